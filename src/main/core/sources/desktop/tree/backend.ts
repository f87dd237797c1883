/** The tree backend of the platform Sightline runs on, or none where the platform has no route. */
import type { DesktopSession } from '../session.ts';
import { AtspiBackend } from './atspi.ts';
import { AxBackend } from './ax.ts';
import type { TreeBackend } from './types.ts';
import { UiaBackend } from './uia.ts';

export function treeBackend(session: DesktopSession, env: NodeJS.ProcessEnv): TreeBackend | undefined {
  switch (session.platform) {
    case 'linux':
      return new AtspiBackend({ env, run: (cmd, args, signal, timeout) => session.run(cmd, args, signal, timeout), ...(process.getuid ? { uid: process.getuid() } : {}) });
    case 'darwin':
      return new AxBackend();
    case 'win32':
      return new UiaBackend();
    default:
      return undefined;
  }
}
