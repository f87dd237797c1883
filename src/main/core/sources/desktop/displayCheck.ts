/**
 * Whether an X11 display name (`:0`, `:1.0`, `host:10`, XQuartz's `/private/tmp/…/org.xquartz:0`)
 * is well formed and an X server answers there: a connection to its socket is opened and closed,
 * nothing is said to the server.
 */
import { connect } from 'node:net';

/** [host or socket path]:display[.screen] */
const DISPLAY_NAME = /^(?<host>[A-Za-z0-9._-]*|\/[^:]+|\[[0-9A-Fa-f:]+\]):(?<n>\d{1,4})(?:\.\d{1,3})?$/;

export async function displayProblem(name: string, timeoutMs = 1500): Promise<string | undefined> {
  const m = DISPLAY_NAME.exec(name.trim());
  if (!m?.groups) return `"${name}" is not an X11 display name: it looks like ":0" (this computer's first display) or "host:0".`;
  const { host = '', n = '0' } = m.groups;
  const target = host.startsWith('/')
    ? { path: `${host}:${n}` }
    : host === '' || host === 'unix'
      ? { path: `/tmp/.X11-unix/X${n}` }
      : { host: host.replace(/^\[|\]$/g, ''), port: 6000 + Number(n) };
  const opened = await new Promise<boolean>((resolve) => {
    const socket = connect(target);
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
  return opened ? undefined : `No X server answers at display ${name}: it cannot be opened.`;
}
