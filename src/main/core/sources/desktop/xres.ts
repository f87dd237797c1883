/**
 * Which process owns an X11 window, as the X server knows it. `_NET_WM_PID` is a property the
 * window's own app sets, so any app can claim to be another; the X-Resource extension's
 * XResQueryClientIds with the LocalClientPID mask answers with the process id the server read
 * from the connection's credentials (SO_PEERCRED) when the window's client connected. A client
 * that came over the network, or a server whose process ids are not ours (another pid namespace,
 * found by asking about our own connection), cannot be told: its windows are refused by the caller.
 *
 * One connection of our own (the `x11` package, plain JavaScript), opened on first use and kept.
 */
import { createRequire } from 'node:module';

/** The part of the `x11` package used here (it ships no types). */
interface XClient {
  display: { resource_base: number };
  require(ext: 'res', cb: (err: Error | null, res?: XRes) => void): void;
  on(event: 'error' | 'end' | 'close', listener: (e?: Error) => void): void;
  terminate(): void;
}
interface XRes {
  major: number;
  minor: number;
  ClientIdMask: { LocalClientPID: number };
  QueryClientIds(specs: { client: number; mask: number }[], cb: (err: Error | null, ids?: { client: number; mask: number; value: number[] }[]) => void): void;
}
interface X11Module {
  createClient(options: { display: string }, cb: (err: Error | null, display?: { client: XClient }) => void): XClient;
}

/** The owner of each window asked about: a process id, or why none can be told. */
export type XOwner = { pid: number } | { unknown: string };

const TIMEOUT_MS = 3000;

export class XResourceOwners {
  readonly #display: () => string | undefined;
  readonly #prepare: () => void;
  #conn: Promise<{ client: XClient; res: XRes }> | undefined;

  /** `prepare` readies the environment the connection reads (XAUTHORITY) before it opens. */
  constructor(display: () => string | undefined, prepare: () => void) {
    this.#display = display;
    this.#prepare = prepare;
  }

  /** The owner of each window (by X window id), in one round trip. */
  async owners(windows: readonly number[]): Promise<Map<number, XOwner>> {
    const out = new Map<number, XOwner>();
    if (windows.length === 0) return out;
    let conn: { client: XClient; res: XRes };
    try {
      conn = await this.#connect();
    } catch (e) {
      for (const w of windows) out.set(w, { unknown: (e as Error).message });
      return out;
    }
    const { res } = conn;
    const mask = res.ClientIdMask.LocalClientPID;
    // One request per window, sent together (one round trip): the answer for a window whose
    // client is gone is empty, and one in the server's own range (client 0) names no app.
    const ask = (w: number): Promise<XOwner> =>
      new Promise((ok, fail) =>
        res.QueryClientIds([{ client: w, mask }], (err, ids) => {
          if (err) return fail(err);
          const pid = ids?.find((i) => i.mask === mask && i.client !== 0)?.value[0];
          ok(pid ? { pid } : { unknown: ids?.length ? 'it belongs to the X server itself' : 'its X client did not connect from this computer (a network or forwarded connection), or is gone' });
        }),
      );
    try {
      const answers = await withTimeout(Promise.all(windows.map(ask)), 'X-Resource query');
      windows.forEach((w, i) => out.set(w, answers[i]!));
    } catch (e) {
      this.#reset();
      for (const w of windows) out.set(w, { unknown: `the X server did not answer (${(e as Error).message})` });
    }
    return out;
  }

  async owner(window: number): Promise<XOwner> {
    return (await this.owners([window])).get(window) ?? { unknown: 'no answer' };
  }

  dispose(): void {
    void this.#conn?.then((c) => c.client.terminate()).catch(() => undefined);
    this.#conn = undefined;
  }

  #reset(): void {
    this.dispose();
  }

  #connect(): Promise<{ client: XClient; res: XRes }> {
    this.#conn ??= this.#open();
    const p = this.#conn;
    p.catch(() => {
      if (this.#conn === p) this.#conn = undefined;
    });
    return p;
  }

  async #open(): Promise<{ client: XClient; res: XRes }> {
    const display = this.#display();
    if (!display) throw new Error('no X display is set');
    this.#prepare();
    const x11 = createRequire(import.meta.url)('x11') as X11Module;
    const client = await withTimeout(
      new Promise<XClient>((ok, fail) => {
        const c = x11.createClient({ display }, (err, d) => (err || !d ? fail(err ?? new Error('no display')) : ok(d.client)));
        c.on('error', (e) => fail(e ?? new Error('X connection error')));
      }),
      `opening X display ${display}`,
    );
    // A connection that breaks later is opened again on the next question.
    const drop = (): void => this.#reset();
    client.on('error', drop);
    client.on('end', drop);
    const res = await withTimeout(
      new Promise<XRes>((ok, fail) => client.require('res', (err, r) => (err || !r ? fail(new Error('the X server has no X-Resource extension')) : ok(r)))),
      'X-Resource extension',
    ).catch((e: unknown) => {
      client.terminate();
      throw e;
    });
    if (res.major < 1 || (res.major === 1 && res.minor < 2)) {
      client.terminate();
      throw new Error(`the X server's X-Resource extension is version ${res.major}.${res.minor}; client ids need 1.2`);
    }
    // Our own connection must come back as this process: else the server's process ids are not ours.
    const self = await new Promise<number | undefined>((ok) =>
      res.QueryClientIds([{ client: client.display.resource_base, mask: res.ClientIdMask.LocalClientPID }], (err, ids) => ok(err ? undefined : ids?.[0]?.value[0])),
    );
    if (self !== process.pid) {
      client.terminate();
      throw new Error(`the X server names processes Sightline cannot see (it calls Sightline's own connection process ${self ?? 'unknown'}, not ${process.pid})`);
    }
    return { client, res };
  }
}

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    p,
    new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`${what} took longer than ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}
