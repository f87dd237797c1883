/**
 * Transport only: exposes `window.sightline.invoke(channel, ...args)` for the channels
 * of the IPC contract (src/shared/ipc.ts) and nothing else. `ipcRenderer` itself never
 * reaches the page; the main process validates the sender and the arguments again.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { BRIDGE_GLOBAL, isIpcChannel, type IpcArgs, type IpcChannel, type IpcResult, type SightlineBridge } from '../shared/ipc.ts';

const bridge: SightlineBridge = {
  invoke<C extends IpcChannel>(channel: C, ...args: IpcArgs<C>): Promise<IpcResult<C>> {
    if (!isIpcChannel(channel)) return Promise.reject(new Error(`Unknown IPC channel ${String(channel)}.`));
    return ipcRenderer.invoke(channel, ...args) as Promise<IpcResult<C>>;
  },
};

contextBridge.exposeInMainWorld(BRIDGE_GLOBAL, bridge);
