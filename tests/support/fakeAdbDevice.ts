/**
 * A fake Android device that speaks the ADB transport protocol over TCP, so the real adb server
 * (`adb connect 127.0.0.1:PORT`) and everything above it (adbkit, Sightline, peers) drive it like
 * a phone. It answers `shell:` and `exec:` through a small POSIX-ish shell (quoting as `sh -c`
 * does it, so escaping bugs show), records the input it receives, and can rotate, refuse
 * authorisation, fail, hang or drop the connection on demand.
 *
 * Protocol facts (checked with Debian's adb 29): six little-endian u32 header fields, checksums
 * unchecked from version 0x01000001, a banner without a trailing NUL (a NUL disables the features),
 * plain `shell:` when `shell_v2` is not advertised, one WRTE in flight per stream and never larger
 * than the smaller maxdata, and `setNoDelay(true)` (Nagle costs ~50 ms per command otherwise).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import sharp from 'sharp';

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
export type RecordedInput =
  | { kind: 'tap'; x: number; y: number }
  | { kind: 'swipe'; x1: number; y1: number; x2: number; y2: number; ms: number }
  | { kind: 'text'; text: string; via: 'input' | 'adbkeyboard' }
  | { kind: 'key'; code: number; longpress?: boolean }
  | { kind: 'combo'; codes: number[] };

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
}

interface Stream {
  local: number;
  remote: number;
  out: Buffer;
  sent: number;
  inFlight: boolean;
  done: boolean;
  cutAfter?: number;
}

interface Conn {
  socket: Socket;
  buf: Buffer;
  maxPayload: number;
  online: boolean;
  streams: Map<number, Stream>;
}

interface CmdResult {
  out: Buffer;
  err: string;
  rc: number;
}

const RC = '\u0000RC\u0000';
const UI_DEFAULT = '/sdcard/window_dump.xml';

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
    this.model = o.model ?? 'Pixel Fake';
    this.sdk = o.sdk ?? 34;
    this.rotationIn = o.rotationIn ?? 'input';
    this.adbKeyboard = o.adbKeyboard ?? false;
    this.#authorized = o.authorized ?? true;
    this.#respond = o.respond ?? true;
    this.#maxData = o.maxData ?? 256 * 1024;
    this.#uiXml = o.uiXml;
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

  rotate(r: Rotation): void {
    this.rotation = r;
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
        this.#send(c, A_OKAY, a1, a0); // stdin is ignored
        return;
      case A_CLSE:
        c.streams.delete(a1);
        return;
    }
  }

  #nextId = 1;

  #open(c: Conn, remote: number, service: string): void {
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

  #flush(c: Conn, s: Stream): void {
    if (s.inFlight || !s.done || !c.streams.has(s.local)) return;
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
    c.streams.delete(s.local);
    this.#send(c, A_CLSE, s.local, s.remote);
  }

  // ── the shell ──────────────────────────────────────────────────────────────

  /** Run a command line as `sh -c` would (the subset Sightline and adb send). */
  async run(line: string): Promise<CmdResult> {
    let rc = 0;
    const out: Buffer[] = [];
    let err = '';
    for (const { op, pipeline } of parse(line)) {
      if ((op === '&&' && rc !== 0) || (op === '||' && rc === 0)) continue;
      let stdin: Buffer = Buffer.alloc(0);
      for (const cmd of pipeline) {
        const argv = cmd.argv.map((a) => a.split(RC).join(String(rc)));
        const r = argv.length ? await this.#command(argv, stdin) : { out: Buffer.alloc(0), err: '', rc: 0 };
        for (const { fd, target } of cmd.redirs) {
          if (target === '&1' || target === '&2') continue;
          if (fd === 1 && target !== '/dev/null') this.files.set(target, r.out);
          if (fd === 1) r.out = Buffer.alloc(0);
          else r.err = '';
        }
        stdin = r.out;
        err += r.err;
        rc = r.rc;
      }
      out.push(stdin);
    }
    return { out: Buffer.concat(out), err, rc };
  }

  async #command(argv: string[], stdin: Buffer): Promise<CmdResult> {
    const [name, ...args] = argv as [string, ...string[]];
    const ok = (s: string | Buffer): CmdResult => ({ out: Buffer.from(s), err: '', rc: 0 });
    const fail = (msg: string, rc = 1): CmdResult => ({ out: Buffer.alloc(0), err: msg, rc });
    switch (name.replace(/^\/system\/bin\//, '')) {
      case 'echo':
        return ok(`${args.join(' ')}\n`);
      case 'true':
        return ok('');
      case 'screencap':
        return args.includes('-p') ? ok(await this.screenPng()) : fail('screencap: raw output not supported by the fake\n');
      case 'wm':
        if (args[0] === 'size') return ok(`Physical size: ${this.naturalWidth}x${this.naturalHeight}\n`);
        if (args[0] === 'density') return ok(`Physical density: ${this.density}\n`);
        return fail(`Error: unknown command '${args[0] ?? ''}'\n`, 255);
      case 'dumpsys':
        if (args[0] === 'display') return ok(`DISPLAY MANAGER (dumpsys display)\n  mCurrentOrientation=${this.rotation}\n  mDefaultViewport=DisplayViewport{type=INTERNAL, valid=true}\n`);
        if (args[0] === 'window') {
          return ok(`  mCurrentFocus=Window{f3e6c4 u0 ${this.foreground}/${this.foreground}.MainActivity}\n  mFocusedApp=ActivityRecord{2c7a3e5 u0 ${this.foreground}/.MainActivity t42}\n`);
        }
        if (args[0] !== 'input') return ok('');
        if (this.rotationIn === 'display') return ok('INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Interactive: true\n');
        // Android 13+ dropped SurfaceOrientation on many devices; older releases print it.
        return ok(
          this.sdk >= 33
            ? `INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Interactive: true\n  Viewports:\n    Viewport INTERNAL: displayId=0, uniqueId=local:0, port=0, orientation=${this.rotation}, logicalFrame=[0, 0, ${this.size.width}, ${this.size.height}], physicalFrame=[0, 0, ${this.size.width}, ${this.size.height}], deviceSize=[${this.naturalWidth}, ${this.naturalHeight}], isActive=[1]\n`
            : `INPUT MANAGER (dumpsys input)\n\nInput Reader State:\n  Device 3: touch\n    Touch Input Mapper (mode - DIRECT):\n      Viewport: displayId=0, orientation=${this.rotation}, logicalFrame=[0, 0, ${this.size.width}, ${this.size.height}]\n      SurfaceWidth: ${this.size.width}px\n      SurfaceHeight: ${this.size.height}px\n      SurfaceOrientation: ${this.rotation}\n`,
        );
      case 'grep': {
        const flags = args.filter((a) => a.startsWith('-')).join('');
        const pattern = args.find((a) => !a.startsWith('-')) ?? '';
        const re = new RegExp(pattern, flags.includes('i') ? 'i' : '');
        const lines = stdin.toString().split('\n').filter((l) => re.test(l));
        return lines.length ? ok(`${lines.join('\n')}\n`) : { out: Buffer.alloc(0), err: '', rc: 1 };
      }
      case 'getprop': {
        const props: Record<string, string> = {
          'ro.product.model': this.model,
          'ro.product.manufacturer': 'Sightline',
          'ro.build.version.release': String(this.sdk - 20),
          'ro.build.version.sdk': String(this.sdk),
        };
        if (args[0]) return ok(`${props[args[0]] ?? ''}\n`);
        return ok(Object.entries(props).map(([k, v]) => `[${k}]: [${v}]\n`).join(''));
      }
      case 'settings':
        if (args.join(' ') === 'get secure default_input_method') {
          return ok(this.adbKeyboard ? 'com.android.adbkeyboard/.AdbIME\n' : 'com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME\n');
        }
        return ok('null\n');
      case 'am': {
        const msg = args[args.indexOf('--es') + 2];
        if (args[0] === 'broadcast' && args.includes('ADB_INPUT_B64') && msg !== undefined && this.adbKeyboard) {
          this.inputs.push({ kind: 'text', text: Buffer.from(msg, 'base64').toString('utf8'), via: 'adbkeyboard' });
        }
        return ok('Broadcasting: Intent { act=ADB_INPUT_B64 flg=0x400000 }\nBroadcast completed: result=0\n');
      }
      case 'input':
        return this.#input(args);
      case 'uiautomator': {
        if (args[0] !== 'dump') return fail('Usage: uiautomator <subcommand> [options]\n');
        const file = args.filter((a) => !a.startsWith('--'))[1] ?? UI_DEFAULT;
        const xml = this.uiXml();
        if (file === '/dev/tty') return ok(`${xml}UI hierchary dumped to: /dev/tty\n`);
        this.files.set(file, Buffer.from(xml));
        return ok(`UI hierchary dumped to: ${file}\n`);
      }
      case 'cat': {
        const f = this.files.get(args[0] ?? '');
        return f ? ok(f) : fail(`cat: ${args[0] ?? ''}: No such file or directory\n`);
      }
      case 'rm':
        for (const a of args) if (!a.startsWith('-')) this.files.delete(a);
        return ok('');
      default:
        return fail(`/system/bin/sh: ${name}: inaccessible or not found\n`, 127);
    }
  }

  #input(args: string[]): CmdResult {
    const a = ['touchscreen', 'keyboard', 'touchpad'].includes(args[0] ?? '') ? args.slice(1) : args;
    const nums = (xs: string[]): number[] => xs.map((x) => {
      const n = Number(x);
      if (!Number.isFinite(n) || x.trim() === '') throw new Error(`input: not a number: ${x}`);
      return n;
    });
    const key = (k: string): number => (/^\d+$/.test(k) ? Number(k) : (KEYS[k.replace(/^KEYCODE_/, '')] ?? -1));
    try {
      switch (a[0]) {
        case 'tap': {
          const [x, y] = nums(a.slice(1, 3));
          this.inputs.push({ kind: 'tap', x: x!, y: y! });
          break;
        }
        case 'swipe': {
          const [x1, y1, x2, y2, ms] = nums(a.slice(1, 6));
          this.inputs.push({ kind: 'swipe', x1: x1!, y1: y1!, x2: x2!, y2: y2!, ms: ms ?? 300 });
          break;
        }
        case 'text':
          if (a[1] === undefined) throw new Error('input text: missing text');
          this.inputs.push({ kind: 'text', text: androidInputText(a[1]), via: 'input' });
          break;
        case 'keyevent': {
          const longpress = a.includes('--longpress');
          for (const k of a.slice(1).filter((x) => !x.startsWith('--'))) {
            const code = key(k);
            if (code < 0) throw new Error(`Unknown keycode: ${k}`);
            this.inputs.push(longpress ? { kind: 'key', code, longpress } : { kind: 'key', code });
          }
          break;
        }
        case 'keycombination':
          this.inputs.push({ kind: 'combo', codes: a.slice(1).map(key) });
          break;
        default:
          throw new Error(`Unknown command: ${a[0] ?? ''}`);
      }
      return { out: Buffer.alloc(0), err: '', rc: 0 };
    } catch (e) {
      return { out: Buffer.alloc(0), err: `Error: ${(e as Error).message}\n`, rc: 1 };
    }
  }

  /** The `uiautomator dump` XML for the current screen. */
  uiXml(): string {
    if (this.#uiXml) return this.#uiXml(this);
    const { width: w, height: h } = this.size;
    const b = (x1: number, y1: number, x2: number, y2: number): string => `[${Math.round(x1 * w)},${Math.round(y1 * h)}][${Math.round(x2 * w)},${Math.round(y2 * h)}]`;
    type A = { text?: string; id?: string; desc?: string; clickable?: boolean; enabled?: boolean };
    const node = (i: number, cls: string, bounds: string, a: A, inner = ''): string =>
      `<node index="${i}" text="${a.text ?? ''}" resource-id="${a.id ?? ''}" class="${cls}" package="com.example.fake" content-desc="${a.desc ?? ''}" checkable="false" checked="false" clickable="${a.clickable ?? false}" enabled="${a.enabled ?? true}" focusable="false" focused="false" scrollable="false" long-clickable="false" password="false" selected="false" bounds="${bounds}"${inner ? `>${inner}</node>` : ' />'}`;
    const inner =
      node(0, 'android.widget.TextView', b(0.05, 0.05, 0.95, 0.1), { text: 'Wi-Fi &amp; “network” é' }) +
      node(1, 'android.widget.EditText', b(0.05, 0.2, 0.95, 0.26), { id: 'com.example.fake:id/query', clickable: true }) +
      node(2, 'android.widget.Button', b(0.3, 0.45, 0.7, 0.55), { text: 'OK', id: 'com.example.fake:id/ok', clickable: true }) +
      node(3, 'android.widget.ImageButton', b(0.8, 0.85, 0.95, 0.92), { desc: 'Settings', clickable: true, enabled: false });
    return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="${this.rotation}">${node(0, 'android.widget.FrameLayout', `[0,0][${w},${h}]`, {}, inner)}</hierarchy>`;
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

/**
 * A screen: a background tinted by rotation, a red square at the top-left and a blue one at the
 * bottom-right (so orientation shows), and a band of text-sized blocks with some pixel noise, so
 * both the PNG (~0.7 MB) and the scaled JPEG weigh about what a real phone screen does.
 */
async function renderScreen(width: number, height: number, rotation: Rotation): Promise<Buffer> {
  const px = Buffer.alloc(width * height * 3);
  const bg = [[236, 240, 255], [255, 236, 236], [236, 255, 236], [255, 255, 220]][rotation]!;
  let seed = 0x9e3779b9;
  const rnd = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  const band0 = Math.floor(height * 0.35);
  const band1 = Math.floor(height * 0.8);
  const cell = 6;
  const cols = Math.ceil(width / cell);
  const blocks = Array.from({ length: Math.ceil(height / cell) * cols }, () => rnd() & 0xff);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (x < 100 && y < 100) px.set([220, 20, 20], i);
      else if (x >= width - 100 && y >= height - 100) px.set([20, 20, 220], i);
      else if (y >= band0 && y < band1) {
        const b = blocks[Math.floor(y / cell) * cols + Math.floor(x / cell)]!;
        const ink = b < 90 ? 40 : 230;
        const n = rnd() & 0x0f;
        px.set([ink + n, ink + (n >> 1), ink + 8 - n], i);
      } else px.set(bg, i);
    }
  }
  return sharp(px, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 6 }).toBuffer();
}

/**
 * What Android's `input text` does with its argument (InputShellCommand.sendText): every `%s`
 * becomes a space, any other `%` stays; then characters the virtual keyboard has no keys for
 * (anything outside printable ASCII) vanish without an error.
 */
export function androidInputText(arg: string): string {
  const b = [...arg];
  let escape = false;
  for (let i = 0; i < b.length; i++) {
    if (escape) {
      escape = false;
      if (b[i] === 's') {
        b[i] = ' ';
        b.splice(--i, 1);
      }
    }
    if (b[i] === '%') escape = true;
  }
  return b.filter((c) => c >= ' ' && c <= '~').join('');
}

const KEYS: Record<string, number> = {
  HOME: 3, BACK: 4, CALL: 5, DPAD_UP: 19, DPAD_DOWN: 20, DPAD_LEFT: 21, DPAD_RIGHT: 22, VOLUME_UP: 24, VOLUME_DOWN: 25, POWER: 26,
  CAMERA: 27, TAB: 61, SPACE: 62, ENTER: 66, DEL: 67, MENU: 82, SEARCH: 84, ESCAPE: 111, FORWARD_DEL: 112, CTRL_LEFT: 113,
  SHIFT_LEFT: 59, ALT_LEFT: 57, META_LEFT: 117, A: 29, C: 31, V: 50, APP_SWITCH: 187, WAKEUP: 224, SLEEP: 223, MOVE_HOME: 122, MOVE_END: 123,
};

// ── a POSIX-ish parser: quoting exactly as sh does it; anything it does not model is an error ──

interface Simple {
  argv: string[];
  redirs: { fd: number; target: string }[];
}

function parse(line: string): { op: ';' | '&&' | '||'; pipeline: Simple[] }[] {
  const list: { op: ';' | '&&' | '||'; pipeline: Simple[] }[] = [];
  let pipeline: Simple[] = [];
  let cur: Simple = { argv: [], redirs: [] };
  let op: ';' | '&&' | '||' = ';';
  let word: string | null = null;
  let redir: number | null = null;
  const endWord = (): void => {
    if (word === null) return;
    if (redir !== null) cur.redirs.push({ fd: redir, target: word });
    else cur.argv.push(word);
    word = null;
    redir = null;
  };
  const endCmd = (): void => {
    endWord();
    if (redir !== null) throw new Error('syntax error: redirection without a target');
    pipeline.push(cur);
    cur = { argv: [], redirs: [] };
  };
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === ' ' || c === '\t') {
      endWord();
      i++;
    } else if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) throw new Error('syntax error: unterminated quoted string');
      word = (word ?? '') + line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      word ??= '';
      i++;
      for (;;) {
        if (i >= line.length) throw new Error('syntax error: unterminated quoted string');
        const d = line[i]!;
        if (d === '"') break;
        if (d === '\\' && '$`"\\\n'.includes(line[i + 1] ?? '')) {
          word += line[i + 1];
          i += 2;
        } else if (d === '$' || d === '`') {
          const [text, next] = expand(line, i);
          word += text;
          i = next;
        } else {
          word += d;
          i++;
        }
      }
      i++;
    } else if (c === '\\') {
      word = (word ?? '') + (line[i + 1] ?? '');
      i += 2;
    } else if (c === '#' && word === null) {
      break;
    } else if (c === '$' || c === '`') {
      const [text, next] = expand(line, i);
      word = (word ?? '') + text;
      i = next;
    } else if (c === '>') {
      const fd = word !== null && /^\d$/.test(word) ? Number(word) : 1;
      if (fd !== 1 || word !== null) word = null;
      endWord();
      i += line[i + 1] === '>' ? 2 : 1;
      if (line[i] === '&') {
        cur.redirs.push({ fd, target: `&${line[i + 1] ?? ''}` });
        i += 2;
      } else redir = fd;
    } else if (c === ';' || c === '\n' || c === '&' || c === '|') {
      const two = line.slice(i, i + 2);
      if (c === '&' && two !== '&&') throw new Error('syntax error: background jobs are not modelled');
      endCmd();
      if (c === '|' && two !== '||') {
        i++;
        continue;
      }
      list.push({ op, pipeline });
      pipeline = [];
      op = two === '&&' || two === '||' ? two : ';';
      i += op === ';' ? 1 : 2;
    } else if ('()<{}'.includes(c) && word === null) {
      throw new Error(`syntax error: unexpected '${c}'`);
    } else {
      word = (word ?? '') + c;
      i++;
    }
  }
  endCmd();
  list.push({ op, pipeline });
  return list.map((l) => ({ op: l.op, pipeline: l.pipeline.filter((s) => s.argv.length || s.redirs.length) }));
}

/** `$?` (kept as a marker until run time), `$NAME` (unset here: empty), `` ` `` (not modelled). */
function expand(line: string, i: number): [string, number] {
  if (line[i] === '`' || line[i + 1] === '(') throw new Error('syntax error: command substitution is not modelled');
  if (line[i + 1] === '?') return [RC, i + 2];
  const m = /^[A-Za-z_][A-Za-z0-9_]*|^\{[^}]*\}/.exec(line.slice(i + 1));
  return m ? ['', i + 1 + m[0].length] : ['$', i + 1];
}
