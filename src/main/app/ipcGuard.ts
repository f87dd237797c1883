/**
 * Checks on every IPC call before a handler runs: the sender must be the dashboard's
 * main frame on the app's origin, and the arguments must be what the contract says.
 */
import type { IpcArgs, IpcChannel, PermissionPane } from '../../shared/ipc.ts';
import { isIpcChannel } from '../../shared/ipc.ts';
import { isAppUrl } from './navigation.ts';

export interface SenderInfo {
  /** The URL of the frame that sent the message (event.senderFrame.url). */
  url: string | undefined;
  /** Whether it is the top frame (not an iframe). */
  isMainFrame: boolean;
}

export function isTrustedSender(sender: SenderInfo | null | undefined, appOrigin: string): boolean {
  return !!sender && sender.isMainFrame && typeof sender.url === 'string' && isAppUrl(sender.url, appOrigin);
}

const PANES: readonly PermissionPane[] = ['screen', 'accessibility'];

/** Validate a call's arguments against the contract; returns them typed or throws. */
export function validateIpcArgs<C extends IpcChannel>(channel: C, args: readonly unknown[]): IpcArgs<C> {
  if (!isIpcChannel(channel)) throw new Error(`Unknown IPC channel ${String(channel)}.`);
  switch (channel) {
    case 'sightline:open-permission-pane': {
      const pane = args[0];
      if (args.length !== 1 || typeof pane !== 'string' || !(PANES as readonly string[]).includes(pane)) {
        throw new Error(`${channel} takes one of ${PANES.join(', ')}.`);
      }
      return [pane] as IpcArgs<C>;
    }
    default:
      if (args.length !== 0) throw new Error(`${channel} takes no arguments.`);
      return [] as unknown as IpcArgs<C>;
  }
}
