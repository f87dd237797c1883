/**
 * The `sync:` service (file transfer v1, what `adb push`/`pull` and adbkit's push speak): 8-byte
 * requests `ID + u32 LE` (STAT, LIST, SEND, RECV, QUIT; inside a SEND, DATA chunks then DONE
 * with the mtime), replies OKAY/FAIL/STAT/DENT/DATA/DONE. Requests arrive split or merged
 * across WRTE packets, so the bytes are buffered and parsed as a stream.
 */

/** Where the shell user may write (elsewhere SEND fails as adbd's does). */
const WRITABLE = ['/data/local/tmp/', '/sdcard/', '/storage/emulated/0/'];
const MAX_DATA = 64 * 1024;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;

export interface PushRecord {
  path: string;
  mode: number;
  bytes: number;
}

export class SyncSession {
  #buf: Buffer = Buffer.alloc(0);
  /** The SEND in progress (`refused`: FAIL already sent, its data is read and dropped as adbd does). */
  #send: { path: string; mode: number; chunks: Buffer[]; refused: boolean } | undefined;
  readonly #files: Map<string, Buffer>;
  readonly #pushes: PushRecord[];
  readonly #reply: (b: Buffer) => void;
  readonly #quit: () => void;

  constructor(files: Map<string, Buffer>, pushes: PushRecord[], reply: (b: Buffer) => void, quit: () => void) {
    this.#files = files;
    this.#pushes = pushes;
    this.#reply = reply;
    this.#quit = quit;
  }

  feed(data: Buffer): void {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, data]) : data;
    while (this.#buf.length >= 8) {
      const id = this.#buf.toString('latin1', 0, 4);
      const len = this.#buf.readUInt32LE(4);
      // DONE carries the mtime in its length field; everything else is followed by `len` bytes.
      const body = id === 'DONE' ? 0 : len;
      if (id !== 'DONE' && len > (id === 'DATA' ? MAX_DATA : 1024)) {
        this.#fail(`${id} too long: ${len}`, true);
        return;
      }
      if (this.#buf.length < 8 + body) return;
      const payload = this.#buf.subarray(8, 8 + body);
      this.#buf = this.#buf.subarray(8 + body);
      if (!this.#request(id, len, payload)) return;
    }
  }

  /** false: the session is over. */
  #request(id: string, len: number, payload: Buffer): boolean {
    if (this.#send) {
      if (id === 'DATA') {
        this.#send.chunks.push(Buffer.from(payload));
        return true;
      }
      if (id === 'DONE') {
        const { path, mode, chunks, refused } = this.#send;
        this.#send = undefined;
        if (refused) {
          this.#quit();
          return false;
        }
        const data = Buffer.concat(chunks);
        this.#files.set(path, data);
        this.#pushes.push({ path, mode, bytes: data.length });
        this.#reply(header('OKAY', 0));
        return true;
      }
      return this.#fail(`unexpected ${id} during SEND`, true);
    }
    const arg = payload.toString('utf8');
    switch (id) {
      case 'SEND': {
        const comma = arg.lastIndexOf(',');
        const path = comma < 0 ? arg : arg.slice(0, comma);
        const mode = comma < 0 ? 0o644 : Number(arg.slice(comma + 1));
        const refused = !WRITABLE.some((w) => path.startsWith(w));
        if (refused) this.#fail(`couldn't create file: Permission denied`, false);
        this.#send = { path, mode, chunks: [], refused };
        return true;
      }
      case 'STAT': {
        const f = this.#files.get(arg);
        const isDir = !f && WRITABLE.some((w) => w === `${arg}/` || w === arg);
        const out = Buffer.alloc(16);
        out.write('STAT', 0, 'latin1');
        out.writeUInt32LE(f ? S_IFREG | 0o644 : isDir ? S_IFDIR | 0o771 : 0, 4);
        out.writeUInt32LE(f?.length ?? 0, 8);
        out.writeUInt32LE(f || isDir ? 1_700_000_000 : 0, 12);
        this.#reply(out);
        return true;
      }
      case 'RECV': {
        const f = this.#files.get(arg);
        if (!f) return this.#fail('open failed: No such file or directory', false);
        for (let at = 0; at < f.length; at += MAX_DATA) {
          const chunk = f.subarray(at, at + MAX_DATA);
          this.#reply(Buffer.concat([header('DATA', chunk.length), chunk]));
        }
        this.#reply(header('DONE', 0));
        return true;
      }
      case 'LIST': {
        const dir = arg.endsWith('/') ? arg : `${arg}/`;
        for (const [path, data] of this.#files) {
          const name = path.startsWith(dir) ? path.slice(dir.length) : '';
          if (!name || name.includes('/')) continue;
          const dent = Buffer.alloc(24);
          dent.write('DENT', 0, 'latin1');
          dent.writeUInt32LE(S_IFREG | 0o644, 4);
          dent.writeUInt32LE(data.length, 8);
          dent.writeUInt32LE(1_700_000_000, 12);
          dent.writeUInt32LE(Buffer.byteLength(name), 16);
          this.#reply(Buffer.concat([dent, Buffer.from(name)]));
        }
        const done = Buffer.alloc(24);
        done.write('DONE', 0, 'latin1');
        this.#reply(done);
        return true;
      }
      case 'QUIT':
        this.#quit();
        return false;
      default:
        return this.#fail(`unknown command ${JSON.stringify(id)}`, true);
    }
  }

  /** FAIL + message; `fatal` ends the session as adbd does on a protocol error. */
  #fail(message: string, fatal: boolean): boolean {
    const msg = Buffer.from(message);
    this.#reply(Buffer.concat([header('FAIL', msg.length), msg]));
    if (fatal) this.#quit();
    return !fatal;
  }
}

function header(id: string, n: number): Buffer {
  const h = Buffer.alloc(8);
  h.write(id, 0, 'latin1');
  h.writeUInt32LE(n >>> 0, 4);
  return h;
}
