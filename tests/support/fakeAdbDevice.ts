/**
 * A fake Android device that speaks the ADB transport protocol over TCP, so the real adb server
 * (`adb connect 127.0.0.1:PORT`) and everything above it (adbkit, Sightline, peers) drive it like
 * a phone. It answers `shell:` and `exec:` through a small POSIX-ish shell (quoting as `sh -c`
 * does it, so escaping bugs show), and `sync:` (adb push, adbkit push/install). It records the
 * input it receives, the apps started, stopped and installed (`apps`, see fakeAdb/packages.ts) and
 * the files pushed; `settings` turn the screen as WindowManager does; it can rotate, refuse
 * authorisation, fail, hang or drop the connection on demand.
 *
 * Protocol facts (checked with Debian's adb 29): six little-endian u32 header fields, checksums
 * unchecked from version 0x01000001, a banner without a trailing NUL (a NUL disables the features),
 * plain `shell:` when `shell_v2` is not advertised, one WRTE in flight per stream and never larger
 * than the smaller maxdata, and `setNoDelay(true)` (Nagle costs ~50 ms per command otherwise).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { runCommand } from './fakeAdb/commands.ts';
import type { RecordedInput } from './fakeAdb/input.ts';
import { FakePackages, defaultPackages, type FakePackage } from './fakeAdb/packages.ts';
import { renderScreen } from './fakeAdb/screen.ts';
import { runShell, type CmdResult } from './fakeAdb/shell.ts';
import { SyncSession, type PushRecord } from './fakeAdb/sync.ts';
import { FakeUi } from './fakeAdb/ui.ts';

export { androidInputText } from './fakeAdb/input.ts';
export { fakeApk } from './fakeAdb/apk.ts';
export type { RecordedInput } from './fakeAdb/input.ts';
export type { FakePackage, InstallRecord, StartedIntent } from './fakeAdb/packages.ts';
export type { PushRecord } from './fakeAdb/sync.ts';
export { FakeUi, ROW_HEIGHT } from './fakeAdb/ui.ts';

const A_CNXN = 0x4e584e43;
const A_OPEN = 0x4e45504f;
const A_OKAY = 0x59414b4f;
const A_WRTE = 0x45545257;
const A_CLSE = 0x45534c43;
const A_AUTH = 0x48545541;
const A_VERSION = 0x01000001;
const AUTH_TOKEN = 1;
const AUTH_SIGNATURE = 2;

export type Rotation = 0 | 1 | 2 | 3;

/** What to do with the next service whose command matches. */
export type Fault =
  | { output: string | Buffer }
  /** Send this many bytes of the real output, then drop the whole connection (`refuse`: and stay unplugged). */
  | { disconnectAfter: number; refuse?: boolean }
  /** Answer after this long. */
  | { delayMs: number }
  | { hang: true };

export interface FakeDeviceOptions {
  /** Natural (rotation 0) size in px. */
  width?: number;
  height?: number;
  density?: number;
  rotation?: Rotation;
  model?: string;
  sdk?: number;
  /** false: answer CNXN with AUTH until authorize() (adb lists the device as `unauthorized`). */
  authorized?: boolean;
  /** ADB Keyboard installed and selected as the IME (types any text via broadcast). */
  adbKeyboard?: boolean;
  /** The device's maxdata in its CNXN. */
  maxData?: number;
  /** Replace the generated `uiautomator dump` XML. */
  uiXml?: (d: FakeAdbDevice) => string;
  /** Where the rotation shows: `dumpsys input` (default) or only `dumpsys display` (some recent images). */
  rotationIn?: 'input' | 'display';
  /** false: never answer CNXN (adb lists the device as `offline`). */
  respond?: boolean;
  /** Render the first screenshot at start (default true; unit tests that only use the shell skip it). */
  prerender?: boolean;
  /** Installed packages (default: a Pixel-like set, see `defaultPackages`, with `com.example.fake` in front). */
  packages?: FakePackage[];
  /** `accelerometer_rotation` (auto-rotate); default false, as AOSP ships it. */
  autoRotate?: boolean;
}

interface Stream {
  local: number;
  remote: number;
  out: Buffer;
  sent: number;
  inFlight: boolean;
  /** All output is in `out`: close once it is sent. */
  done: boolean;
  cutAfter?: number;
  /** A `sync:` stream reads what the host writes. */
  sync?: SyncSession;
}

interface Conn {
  socket: Socket;
  buf: Buffer;
  maxPayload: number;
  online: boolean;
  streams: Map<number, Stream>;
}

export class FakeAdbDevice {
  readonly inputs: RecordedInput[] = [];
  /** Every service opened, e.g. `exec:screencap '-p'`. */
  readonly services: string[] = [];
  /** When each service was opened and answered (performance.now()). */
  readonly log: { service: string; opened: number; answered?: number }[] = [];
  /** The device's files (what `uiautomator dump FILE` writes, `cat` reads, `rm` removes). */
  readonly files = new Map<string, Buffer>();
  naturalWidth: number;
  naturalHeight: number;
  density: number;
  rotation: Rotation;
  adbKeyboard: boolean;
  /** The package of the app in front. */
  foreground = 'com.example.fake';
  /** Its activity (`.MainActivity` or a full class name), as `dumpsys window` shows it. */
  foregroundActivity = '.MainActivity';
  /** Auto-rotate (`settings … accelerometer_rotation`): when off, the screen follows `userRotation`. */
  autoRotate: boolean;
  /** `settings … user_rotation`. */
  userRotation: Rotation;
  /** The package manager and activity manager: `apps.started`, `apps.stopped`, `apps.installs`, `apps.add()`. */
  readonly apps: FakePackages;
  /** Every file written through `sync:` (adb push, adbkit push/install). */
  readonly pushes: PushRecord[] = [];
  /** `settings` values other than the rotation ones, as `namespace/key`. */
  readonly settings = new Map<string, string>();
  /** The screen's views: taps focus and press, text fills fields, swipes scroll (fakeAdb/ui.ts). */
  readonly ui: FakeUi;
  /** `/proc/sys/kernel/random/boot_id`: the same on every adb server the device is attached to. */
  readonly bootId = randomUUID();
  readonly model: string;
  readonly sdk: number;
  readonly rotationIn: 'input' | 'display';
  port = 0;
  #authorized: boolean;
  #respond: boolean;
  #refuse = false;
  readonly #maxData: number;
  readonly #uiXml: ((d: FakeAdbDevice) => string) | undefined;
  readonly #server: Server;
  readonly #conns = new Set<Conn>();
  readonly #faults: { match: RegExp; fault: Fault }[] = [];
  readonly #pngs = new Map<string, Promise<Buffer>>();

  private constructor(o: FakeDeviceOptions) {
    this.naturalWidth = o.width ?? 1080;
    this.naturalHeight = o.height ?? 2400;
    this.density = o.density ?? 420;
    this.rotation = o.rotation ?? 0;
    this.userRotation = this.rotation;
    this.autoRotate = o.autoRotate ?? false;
    this.model = o.model ?? 'Pixel Fake';
    this.sdk = o.sdk ?? 34;
    this.rotationIn = o.rotationIn ?? 'input';
    this.adbKeyboard = o.adbKeyboard ?? false;
    this.#authorized = o.authorized ?? true;
    this.#respond = o.respond ?? true;
    this.#maxData = o.maxData ?? 256 * 1024;
    this.#uiXml = o.uiXml;
    this.apps = new FakePackages(this, o.packages ?? defaultPackages());
    this.ui = new FakeUi(this);
    this.#server = createServer((s) => this.#accept(s));
  }

  static async start(options: FakeDeviceOptions = {}): Promise<FakeAdbDevice> {
    const d = new FakeAdbDevice(options);
    await new Promise<void>((resolve) => d.#server.listen(0, '127.0.0.1', resolve));
    d.port = (d.#server.address() as { port: number }).port;
    if (options.prerender !== false) void d.screenPng(); // render ahead: the first capture should not pay for it
    return d;
  }

  /** The serial adb gives a device connected over TCP. */
  get serial(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** Current screen size (rotations 1 and 3 swap the natural size, as on a phone). */
  get size(): { width: number; height: number } {
    const swap = this.rotation % 2 === 1;
    return { width: swap ? this.naturalHeight : this.naturalWidth, height: swap ? this.naturalWidth : this.naturalHeight };
  }

  /**
   * The screen turns to `r`. With auto-rotate off this is what `wm user-rotation lock` does (the
   * setting follows); with it on, the sensor turned it.
   */
  rotate(r: Rotation): void {
    this.rotation = r;
    if (!this.autoRotate) this.userRotation = r;
  }

  /** Fail the next service whose `shell:`/`exec:` string matches. */
  failNext(match: RegExp, fault: Fault): void {
    this.#faults.push({ match, fault });
  }

  /** Drop every connection (the cable is pulled); `refuse` keeps new ones out until reconnectable(). */
  disconnect(options: { refuse?: boolean } = {}): void {
    if (options.refuse) this.#refuse = true;
    for (const c of this.#conns) c.socket.destroy();
  }

  reconnectable(): void {
    this.#refuse = false;
  }

  /** The user accepts the RSA prompt: waiting connections come online. */
  authorize(): void {
    this.#authorized = true;
    for (const c of this.#conns) if (!c.online) this.#online(c);
  }

  async close(): Promise<void> {
    this.disconnect({ refuse: true });
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  // ── transport ──────────────────────────────────────────────────────────────

  #accept(socket: Socket): void {
    if (this.#refuse) {
      socket.destroy();
      return;
    }
    socket.setNoDelay(true);
    const c: Conn = { socket, buf: Buffer.alloc(0), maxPayload: 4096, online: false, streams: new Map() };
    this.#conns.add(c);
    socket.on('data', (chunk) => {
      c.buf = c.buf.length ? Buffer.concat([c.buf, chunk]) : chunk;
      while (c.buf.length >= 24) {
        const len = c.buf.readUInt32LE(12);
        if (c.buf.length < 24 + len) break;
        const cmd = c.buf.readUInt32LE(0);
        const a0 = c.buf.readUInt32LE(4);
        const a1 = c.buf.readUInt32LE(8);
        const data = c.buf.subarray(24, 24 + len);
        c.buf = c.buf.subarray(24 + len);
        this.#message(c, cmd, a0, a1, data);
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => this.#conns.delete(c));
  }

  #send(c: Conn, cmd: number, a0: number, a1: number, data: Buffer = Buffer.alloc(0)): void {
    if (c.socket.destroyed) return;
    const h = Buffer.alloc(24);
    h.writeUInt32LE(cmd, 0);
    h.writeUInt32LE(a0, 4);
    h.writeUInt32LE(a1, 8);
    h.writeUInt32LE(data.length, 12);
    h.writeUInt32LE(0, 16); // checksum: not verified from A_VERSION 0x01000001 on
    h.writeUInt32LE((cmd ^ 0xffffffff) >>> 0, 20);
    c.socket.write(data.length ? Buffer.concat([h, data]) : h);
  }

  #online(c: Conn): void {
    c.online = true;
    const banner = `device::ro.product.name=fake;ro.product.model=${this.model};ro.product.device=fake;features=cmd`;
    this.#send(c, A_CNXN, A_VERSION, this.#maxData, Buffer.from(banner)); // no trailing NUL
  }

  #message(c: Conn, cmd: number, a0: number, a1: number, data: Buffer): void {
    switch (cmd) {
      case A_CNXN:
        c.maxPayload = Math.min(a1, this.#maxData);
        if (!this.#respond) return;
        if (this.#authorized) this.#online(c);
        else this.#send(c, A_AUTH, AUTH_TOKEN, 0, randomBytes(20));
        return;
      case A_AUTH:
        // Reject every signature; after the last key adb sends its public key and shows `unauthorized`.
        if (a0 === AUTH_SIGNATURE && !this.#authorized) this.#send(c, A_AUTH, AUTH_TOKEN, 0, randomBytes(20));
        return;
      case A_OPEN:
        this.#open(c, a0, data.toString('utf8').replace(/\0$/, ''));
        return;
      case A_OKAY: {
        const s = c.streams.get(a1);
        if (s) {
          s.inFlight = false;
          this.#flush(c, s);
        }
        return;
      }
      case A_WRTE:
        this.#send(c, A_OKAY, a1, a0); // shell stdin is ignored; sync streams read it
        c.streams.get(a1)?.sync?.feed(data);
        return;
      case A_CLSE:
        c.streams.delete(a1);
        return;
    }
  }

  #nextId = 1;

  #open(c: Conn, remote: number, service: string): void {
    if (service === 'sync:' && c.online) return this.#openSync(c, remote);
    const m = /^(shell|exec):(.*)$/s.exec(service);
    if (!m || !c.online) {
      this.#send(c, A_CLSE, 0, remote);
      return;
    }
    this.services.push(service);
    const entry: { service: string; opened: number; answered?: number } = { service, opened: performance.now() };
    this.log.push(entry);
    const s: Stream = { local: this.#nextId++, remote, out: Buffer.alloc(0), sent: 0, inFlight: false, done: false };
    c.streams.set(s.local, s);
    this.#send(c, A_OKAY, s.local, remote);
    const i = this.#faults.findIndex((f) => f.match.test(m[2]!));
    const fault = i >= 0 ? this.#faults.splice(i, 1)[0]!.fault : undefined;
    if (fault && 'hang' in fault) return;
    const answer = (out: Buffer): void => {
      entry.answered = performance.now();
      s.out = out;
      s.done = true;
      this.#flush(c, s);
    };
    if (fault && 'output' in fault) return answer(Buffer.from(fault.output));
    if (fault && 'disconnectAfter' in fault) {
      s.cutAfter = fault.disconnectAfter;
      if (fault.refuse) this.#refuse = true;
    }
    const delay = fault && 'delayMs' in fault ? fault.delayMs : 0;
    void this.run(m[2]!)
      .then((r) => Buffer.concat([r.out, Buffer.from(r.err)]), (e: unknown) => Buffer.from(`/system/bin/sh: ${(e as Error).message}\n`))
      .then((out) => (delay ? setTimeout(() => answer(out), delay) : answer(out)));
  }

  #openSync(c: Conn, remote: number): void {
    this.services.push('sync:');
    this.log.push({ service: 'sync:', opened: performance.now() });
    const s: Stream = { local: this.#nextId++, remote, out: Buffer.alloc(0), sent: 0, inFlight: false, done: false };
    const flush = (): void => this.#flush(c, s);
    s.sync = new SyncSession(
      this.files,
      this.pushes,
      (b) => {
        s.out = Buffer.concat([s.out, b]);
        flush();
      },
      () => {
        s.done = true;
        flush();
      },
    );
    c.streams.set(s.local, s);
    this.#send(c, A_OKAY, s.local, remote);
  }

  #flush(c: Conn, s: Stream): void {
    if (s.inFlight || !c.streams.has(s.local)) return;
    if (s.sent < s.out.length) {
      let chunk = s.out.subarray(s.sent, s.sent + c.maxPayload);
      if (s.cutAfter !== undefined && s.sent + chunk.length >= s.cutAfter) {
        chunk = chunk.subarray(0, s.cutAfter - s.sent);
        if (chunk.length) this.#send(c, A_WRTE, s.local, s.remote, chunk);
        c.socket.end(() => c.socket.destroy());
        return;
      }
      s.sent += chunk.length;
      s.inFlight = true;
      this.#send(c, A_WRTE, s.local, s.remote, chunk);
      return;
    }
    if (!s.done) return;
    c.streams.delete(s.local);
    this.#send(c, A_CLSE, s.local, s.remote);
  }

  // ── the shell ──────────────────────────────────────────────────────────────

  /** Run a command line as `sh -c` would (the subset Sightline and adb send). */
  run(line: string): Promise<CmdResult> {
    return runShell(line, (argv, stdin) => runCommand(this, argv, stdin), this.files);
  }

  /** The `uiautomator dump` XML for the current screen. */
  uiXml(): string {
    return this.#uiXml ? this.#uiXml(this) : this.ui.xml();
  }

  /** `screencap -p` for the current size and rotation: a real PNG with recognisable content. */
  screenPng(): Promise<Buffer> {
    const { width, height } = this.size;
    const key = `${width}x${height}r${this.rotation}`;
    let png = this.#pngs.get(key);
    if (!png) {
      png = renderScreen(width, height, this.rotation);
      this.#pngs.set(key, png);
    }
    return png;
  }
}
