/**
 * The Android source: devices and emulators through the adb server (@devicefarmer/adbkit).
 * Captures are `screencap -p` over `exec:` (binary-safe) handed to the core's pipeline as an
 * encoded PNG in device pixels; actions are `input` commands in device pixels; the UI tree is
 * `uiautomator dump`. One mutex per device keeps concurrent calls from interleaving.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { Mutex } from 'async-mutex';
import { SightlineError, isSightlineError } from '../../../../shared/errors.ts';
import type { HealthCheck, Point, SourceHealth, TargetInfo } from '../../../../shared/frame.ts';
import type { Settings } from '../../settings.ts';
import type { ActionDetails, CaptureOptions, CapturedImage, FrameCheck, Source, SourceAction, SourceUiNode, StoredFrame, UiTreeOptions } from '../source.ts';
import { AdbServer, OFFLINE_HINT, UNAUTHORIZED_HINT } from './adb.ts';
import { ADB_KEYBOARD_IME, adbKeyboardCommand, batchCommands, describeChars, planInputText, stepCommand } from './inputText.ts';
import { KEY_EXAMPLES, parseKeys } from './keys.ts';
import { adbServerAddress, installHint, locateAdb } from './locate.ts';
import { DISPLAY_ROTATION_COMMAND, FOCUS_COMMAND, displayCommand, checkPng, parseDisplay, parseForegroundPackage, parseGetpropLines, type DisplayInfo } from './parse.ts';
import { matchesQuery, parseUiDump } from './uiDump.ts';

export interface AndroidSourceOptions {
  settings: Settings['android'];
  env?: NodeJS.ProcessEnv;
  /** For tests: the platform and file check used to find adb. */
  platform?: NodeJS.Platform;
  exists?: (path: string) => boolean;
}

/** What a frame's `state` holds: enough to tell later whether the screen changed under it. */
interface AndroidFrameState {
  serial: string;
  /** Size of the screenshot (device px, current orientation). */
  width: number;
  height: number;
  rotation: number | null;
  /** `wm size` in the current orientation when captured (compared by checkFrame). */
  display: { width: number; height: number };
}

interface DeviceProps {
  model?: string;
  manufacturer?: string;
  release?: string;
  sdk?: number;
}

const PROP_KEYS = ['ro.product.model', 'ro.product.manufacturer', 'ro.build.version.release', 'ro.build.version.sdk'] as const;
const TIMEOUT = { shell: 15_000, screencap: 20_000, uiautomator: 40_000 };
const ROTATION_DEG = ['0°', '90°', '180°', '270°'];

export function createAndroidSource(options: AndroidSourceOptions): Source {
  return new AndroidSource(options);
}

class AndroidSource implements Source {
  readonly name = 'android' as const;
  readonly capabilities = { capture: true, actions: ['click', 'type_text', 'press_key', 'scroll', 'swipe'] as const, uiTree: true };
  readonly #options: AndroidSourceOptions;
  readonly #env: NodeJS.ProcessEnv;
  #server: Promise<{ server: AdbServer; version: number }> | undefined;
  readonly #locks = new Map<string, Mutex>();
  readonly #props = new Map<string, DeviceProps>();
  /** Per device: whether the rotation has to come from `dumpsys display` (undefined: not probed yet). */
  readonly #rotationViaDisplay = new Map<string, boolean>();

  constructor(options: AndroidSourceOptions) {
    this.#options = options;
    this.#env = options.env ?? process.env;
  }

  // ── adb and its server ─────────────────────────────────────────────────────

  #locate(): ReturnType<typeof locateAdb> {
    const exists = this.#options.exists ?? ((p: string) => existsSync(p) && statSync(p).isFile());
    return locateAdb({ adbPath: this.#options.settings.adbPath, env: this.#env, platform: this.#options.platform ?? process.platform, homedir: this.#env.HOME ?? homedir(), exists });
  }

  #adbNotFound(searched: string[]): SightlineError {
    const setting = this.#options.settings.adbPath;
    const where = setting ? `android.adbPath (${setting}) is not an adb binary` : 'adb was not found';
    return new SightlineError(
      'ADB_NOT_FOUND',
      `${where}; looked in: ${searched.join(', ')}.`,
      installHint(this.#options.platform ?? process.platform),
      { searched },
    );
  }

  /** The adb server, started if needed; a failed attempt is retried on the next call. */
  #adb(): Promise<AdbServer> {
    this.#server ??= (async () => {
      const found = this.#locate();
      if (!found.path) throw this.#adbNotFound(found.searched);
      const address = adbServerAddress(this.#env);
      if ('error' in address) throw new SightlineError('SOURCE_UNAVAILABLE', `${address.error}.`, 'Fix or unset that environment variable.');
      return AdbServer.open(found.path, address, this.#env, (serial) => {
        this.#props.delete(serial);
        this.#rotationViaDisplay.delete(serial);
      });
    })();
    const current = this.#server;
    return current.then(
      (s) => s.server,
      (e: unknown) => {
        if (this.#server === current) this.#server = undefined;
        throw e;
      },
    );
  }

  /** Run a shell command; a dead server is forgotten so the next call starts it again. */
  async #run(serial: string, service: string, signal: AbortSignal, label: string, timeoutMs = TIMEOUT.shell): Promise<Buffer> {
    const adb = await this.#adb();
    try {
      return await adb.run(serial, service, { signal, timeoutMs, label });
    } catch (e) {
      if (isSightlineError(e) && e.code === 'SOURCE_UNAVAILABLE') this.#forgetServer(adb);
      throw e;
    }
  }

  async #shell(serial: string, command: string, signal: AbortSignal, label: string, timeoutMs?: number): Promise<string> {
    return (await this.#run(serial, `shell:${command}`, signal, label, timeoutMs)).toString('utf8');
  }

  #forgetServer(adb: AdbServer): void {
    adb.dispose();
    this.#server = undefined;
  }

  // ── health and targets ─────────────────────────────────────────────────────

  async health(): Promise<SourceHealth> {
    const base = { source: 'android' as const, enabled: true };
    const found = this.#locate();
    const platform = this.#options.platform ?? process.platform;
    const adbCheck: HealthCheck = found.path
      ? { id: 'adb-found', label: 'adb found', status: 'ok', detail: `${found.path} (${found.via})` }
      : { id: 'adb-found', label: 'adb found', status: 'error', detail: `Looked in: ${found.searched.join(', ')}`, fix: installHint(platform) };
    if (!found.path) {
      return {
        ...base,
        available: false,
        degraded: false,
        reason: 'adb (Android platform-tools) was not found',
        remediation: installHint(platform),
        checks: [adbCheck, { id: 'adb-server', label: 'adb server running', status: 'unknown' }, { id: 'devices-authorised', label: 'Devices connected and authorised', status: 'unknown' }],
      };
    }
    let adb: AdbServer;
    let version: number;
    try {
      adb = await this.#adb();
      version = (await this.#server!).version;
    } catch (e) {
      const err = e as SightlineError;
      return {
        ...base,
        available: false,
        degraded: false,
        reason: err.message,
        remediation: err.hint,
        checks: [adbCheck, { id: 'adb-server', label: 'adb server running', status: 'error', detail: err.message, fix: err.hint }, { id: 'devices-authorised', label: 'Devices connected and authorised', status: 'unknown' }],
      };
    }
    const serverCheck: HealthCheck = { id: 'adb-server', label: 'adb server running', status: 'ok', detail: `${adb.address.host}:${adb.address.port}, protocol ${version}` };
    let states: Map<string, string>;
    try {
      states = await adb.devices();
    } catch (e) {
      this.#forgetServer(adb);
      const err = e as SightlineError;
      return { ...base, available: false, degraded: false, reason: err.message, remediation: err.hint, checks: [adbCheck, { ...serverCheck, status: 'error', detail: err.message }] };
    }
    const all = [...states.entries()];
    const ready = all.filter(([, s]) => isReady(s)).map(([id]) => id);
    const unauthorized = all.filter(([, s]) => s === 'unauthorized').map(([id]) => id);
    const other = all.filter(([, s]) => !isReady(s) && s !== 'unauthorized').map(([id, s]) => `${id} (${s})`);
    const check = (status: HealthCheck['status'], detail: string, fix?: string): HealthCheck => ({ id: 'devices-authorised', label: 'Devices connected and authorised', status, detail, ...(fix ? { fix } : {}) });
    const devices = unauthorized.length
      ? check('warning', `Not authorised: ${unauthorized.join(', ')}`, UNAUTHORIZED_HINT)
      : other.length
        ? check('warning', `Not ready: ${other.join(', ')}`, OFFLINE_HINT)
        : ready.length
          ? check('ok', `${ready.length} ready: ${ready.join(', ')}`)
          : check('warning', 'No device connected.', NO_DEVICE_HINT);
    const degraded = devices.status !== 'ok';
    return {
      ...base,
      available: true,
      degraded,
      ...(degraded ? { reason: devices.detail, remediation: devices.fix } : {}),
      checks: [adbCheck, serverCheck, devices],
    };
  }

  async listTargets(signal: AbortSignal): Promise<TargetInfo[]> {
    const adb = await this.#adb();
    const states = [...(await adb.devices()).entries()].sort(([a], [b]) => a.localeCompare(b));
    return Promise.all(states.map(([serial, state]) => this.#target(serial, state, signal)));
  }

  async #target(serial: string, state: string, signal: AbortSignal): Promise<TargetInfo> {
    const id = `android:${serial}`;
    const kind = serial.startsWith('emulator-') ? 'emulator' : 'device';
    if (!isReady(state)) {
      return { id, source: 'android', kind, title: `${serial} (${state})`, state, details: { serial }, hint: stateHint(state) };
    }
    try {
      const [props, display, focus] = await Promise.all([
        this.#deviceProps(serial, signal),
        this.#display(serial, signal, true),
        this.#shell(serial, FOCUS_COMMAND, signal, 'reading the app in front').catch(() => ''),
      ]);
      const title = [props.manufacturer, props.model].filter(Boolean).join(' ') || serial;
      const pkg = parseForegroundPackage(focus);
      return {
        id,
        source: 'android',
        kind,
        title: `${title} (${serial})`,
        // The app in front: what the input allowlist names for Android.
        ...(pkg ? { app: pkg } : {}),
        bounds: { x: 0, y: 0, ...display.size },
        ...(display.density ? { scale: display.density / 160 } : {}),
        state: 'device',
        details: {
          serial,
          package: pkg,
          model: props.model,
          manufacturer: props.manufacturer,
          androidVersion: props.release,
          sdk: props.sdk,
          screen: display.size,
          naturalSize: display.natural,
          density: display.density,
          rotation: display.rotation ?? null,
        },
      };
    } catch (e) {
      // Listed as it is (e.g. dropped while being read), never failing the whole list.
      const err = isSightlineError(e) ? e : new SightlineError('INTERNAL', (e as Error).message);
      return { id, source: 'android', kind, title: `${serial} (${err.code === 'DEVICE_OFFLINE' ? 'offline' : 'unreadable'})`, state: err.code === 'DEVICE_OFFLINE' ? 'offline' : state, details: { serial, error: err.message }, hint: err.hint ?? OFFLINE_HINT };
    }
  }

  async #deviceProps(serial: string, signal: AbortSignal): Promise<DeviceProps> {
    const cached = this.#props.get(serial);
    if (cached) return cached;
    const out = await this.#shell(serial, PROP_KEYS.map((k) => `getprop ${k}`).join('; '), signal, 'getprop');
    const p = parseGetpropLines(out, PROP_KEYS);
    const props: DeviceProps = {
      model: p['ro.product.model'],
      manufacturer: p['ro.product.manufacturer'],
      release: p['ro.build.version.release'],
      sdk: p['ro.build.version.sdk'] ? Number(p['ro.build.version.sdk']) : undefined,
    };
    this.#props.set(serial, props);
    return props;
  }

  /** Screen size, rotation and (with `density`) density; what checkFrame compares. */
  async #display(serial: string, signal: AbortSignal, density = false): Promise<DisplayInfo> {
    // Devices whose input dump shows no rotation get `dumpsys display` too (remembered per device).
    const viaDisplay = this.#rotationViaDisplay.get(serial) === true;
    const command = displayCommand({ density }) + (viaDisplay ? `; ${DISPLAY_ROTATION_COMMAND}` : '');
    const out = await this.#shell(serial, command, signal, 'reading the screen size');
    let info: DisplayInfo;
    try {
      info = parseDisplay(out);
    } catch (e) {
      throw new SightlineError('INTERNAL', `Could not read the screen of android:${serial}: ${(e as Error).message}.`, 'Check that the device is unlocked and booted.');
    }
    if (info.rotation === undefined && !this.#rotationViaDisplay.has(serial)) {
      this.#rotationViaDisplay.set(serial, true);
      const more = await this.#display(serial, signal, density);
      if (more.rotation === undefined) this.#rotationViaDisplay.set(serial, false);
      return more;
    }
    if (!this.#rotationViaDisplay.has(serial)) this.#rotationViaDisplay.set(serial, false);
    return info;
  }

  // ── devices: id, readiness, lock ────────────────────────────────────────────

  #serial(target: string): string {
    if (!target.startsWith('android:') || target.length <= 'android:'.length) {
      throw new SightlineError('TARGET_NOT_FOUND', `"${target}" is not an Android target.`, 'Android target ids look like android:<serial>; call list_targets.');
    }
    return target.slice('android:'.length);
  }

  /** TARGET_NOT_FOUND / DEVICE_UNAUTHORIZED / DEVICE_OFFLINE unless the device is ready. */
  async #requireReady(serial: string): Promise<void> {
    const adb = await this.#adb();
    const state = await adb.state(serial);
    if (state === undefined) throw new SightlineError('TARGET_NOT_FOUND', `android:${serial} is not connected.`, 'Call list_targets; reconnect the device or `adb connect HOST:PORT`.');
    if (isReady(state)) return;
    if (state === 'unauthorized') throw new SightlineError('DEVICE_UNAUTHORIZED', `android:${serial} has not authorised this computer.`, UNAUTHORIZED_HINT);
    throw new SightlineError('DEVICE_OFFLINE', `android:${serial} is ${state}.`, stateHint(state));
  }

  /** Run `fn` alone on this device (concurrent calls queue; a cancelled caller does not run). */
  #exclusive<T>(serial: string, signal: AbortSignal, fn: () => Promise<T>): Promise<T> {
    let lock = this.#locks.get(serial);
    if (!lock) {
      lock = new Mutex();
      this.#locks.set(serial, lock);
    }
    return lock.runExclusive(async () => {
      if (signal.aborted) throw new SightlineError('CANCELLED', 'Cancelled while waiting for the device.');
      await this.#requireReady(serial);
      return fn();
    });
  }

  /**
   * After a failed transfer, say whether the device dropped (DEVICE_OFFLINE) or just failed. The
   * server needs a moment to notice a pulled cable (adb 29 marks it offline within ~100 ms).
   */
  async #explain(serial: string, e: unknown, fallback: (msg: string) => SightlineError): Promise<SightlineError> {
    if (isSightlineError(e) && e.code !== 'INTERNAL') return e;
    for (let i = 0; i < 8; i++) {
      try {
        await this.#requireReady(serial);
      } catch (gone) {
        if (!isSightlineError(gone) || gone.code === 'SOURCE_UNAVAILABLE') break;
        const code = gone.code === 'TARGET_NOT_FOUND' ? 'DEVICE_OFFLINE' : gone.code;
        return new SightlineError(code, `android:${serial} disconnected during the operation (${(e as Error).message}).`, gone.hint ?? OFFLINE_HINT);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    return fallback((e as Error).message);
  }

  // ── capture and staleness ──────────────────────────────────────────────────

  async capture(target: string, options: CaptureOptions): Promise<CapturedImage> {
    const serial = this.#serial(target);
    return this.#exclusive(serial, options.signal, async () => {
      // Read the screen geometry alongside the pixels; a rotation between the two is retried once.
      for (let attempt = 0; ; attempt++) {
        const [raw, display] = await Promise.all([
          this.#run(serial, 'exec:screencap -p', options.signal, 'screencap', TIMEOUT.screencap).catch((e: unknown) => e as Error),
          this.#display(serial, options.signal, true).catch((e: unknown) => e as Error),
        ]);
        let png: ReturnType<typeof checkPng>;
        try {
          if (raw instanceof Error) throw raw;
          png = checkPng(raw);
          if (display instanceof Error) throw display;
        } catch (e) {
          throw await this.#explain(serial, e, (msg) => new SightlineError('SCREENSHOT_FAILED', `screencap on android:${serial} failed: ${msg}.`, 'Capture again; if it keeps failing, unlock the device (secure screens such as a lock screen with DRM cannot be captured).'));
        }
        const pngLandscape = png.width > png.height;
        const displayLandscape = display.size.width > display.size.height;
        if (pngLandscape !== displayLandscape && attempt === 0 && png.width !== png.height) continue;
        const state: AndroidFrameState = { serial, width: png.width, height: png.height, rotation: display.rotation ?? null, display: display.size };
        return {
          target: `android:${serial}`,
          pixels: { kind: 'encoded', data: png.data },
          sourceSize: { width: png.width, height: png.height },
          origin: { x: 0, y: 0 },
          ...(display.density ? { dpi: display.density } : {}),
          state: { ...state },
        };
      }
    });
  }

  async checkFrame(frame: StoredFrame, signal: AbortSignal): Promise<FrameCheck> {
    const serial = this.#serial(frame.target);
    await this.#requireReady(serial);
    const display = await this.#display(serial, signal);
    assertFresh(frame, display);
    return {};
  }

  // ── actions ────────────────────────────────────────────────────────────────

  async perform(action: SourceAction, signal: AbortSignal): Promise<ActionDetails> {
    const serial = this.#serial(action.target);
    return this.#exclusive(serial, signal, async () => {
      switch (action.kind) {
        case 'click': {
          if (action.button !== 'left') throw new SightlineError('UNSUPPORTED', `Android has no ${action.button} click.`, 'Use a plain click (a tap), or holdMs for a long press.');
          if (action.modifiers.length) throw new SightlineError('UNSUPPORTED', 'Android taps take no modifier keys.', 'Tap without modifiers; use press_key for key combinations.');
          const { x, y } = devicePoint(action.point);
          const cmd = action.holdMs ? `input swipe ${x} ${y} ${x} ${y} ${Math.max(1, Math.round(action.holdMs))}` : Array.from({ length: Math.max(1, action.clicks) }, () => `input tap ${x} ${y}`).join(' && ');
          await this.#input(serial, [cmd], signal, 'tap');
          return { note: action.holdMs ? `long press ${Math.round(action.holdMs)} ms at (${x}, ${y})` : `tap at (${x}, ${y})`, command: cmd };
        }
        case 'swipe': {
          const a = devicePoint(action.point);
          const b = devicePoint(action.to);
          const cmd = `input swipe ${a.x} ${a.y} ${b.x} ${b.y} ${Math.max(1, Math.round(action.durationMs))}`;
          await this.#input(serial, [cmd], signal, 'swipe');
          return { command: cmd };
        }
        case 'scroll': {
          // Content scrolls down when the finger moves up: swipe against the delta, kept on screen.
          const display = await this.#display(serial, signal);
          const { width, height } = display.size;
          const from = action.point ? devicePoint(action.point) : { x: Math.round(width / 2), y: Math.round(height / 2) };
          const clamp = (v: number, max: number): number => Math.min(max - 1, Math.max(0, Math.round(v)));
          const to = { x: clamp(from.x - action.deltaX, width), y: clamp(from.y - action.deltaY, height) };
          const cmd = `input swipe ${from.x} ${from.y} ${to.x} ${to.y} 300`;
          await this.#input(serial, [cmd], signal, 'scroll');
          return { command: cmd, note: to.x - from.x !== -action.deltaX || to.y - from.y !== -action.deltaY ? 'scroll distance limited to the screen' : undefined };
        }
        case 'type_text':
          return this.#typeText(serial, action.text, action.point, signal);
        case 'press_key': {
          let codes: number[];
          try {
            codes = parseKeys(action.key);
          } catch (e) {
            throw new SightlineError('INVALID_ARGUMENT', `press_key: ${(e as Error).message}.`, `Use a key name such as ${KEY_EXAMPLES}.`);
          }
          const cmd = codes.length === 1 ? `input keyevent ${codes[0]}` : `input keycombination ${codes.join(' ')}`;
          await this.#input(serial, [cmd], signal, 'press_key');
          return { command: cmd };
        }
        default:
          throw new SightlineError('UNSUPPORTED', `${action.kind} is not supported on Android.`);
      }
    });
  }

  async #typeText(serial: string, text: string, point: Point | undefined, signal: AbortSignal): Promise<ActionDetails> {
    const plan = planInputText(text);
    if (plan.invalid.length) {
      throw new SightlineError('INVALID_ARGUMENT', `type_text: control characters ${describeChars(plan.invalid)} cannot be typed.`, 'Remove them; use "\\n" for Enter and "\\t" for Tab, or press_key.');
    }
    const tap = point ? [`input tap ${devicePoint(point).x} ${devicePoint(point).y}`] : [];
    if (plan.unsupported.length) {
      // `input text` would drop these silently: type through ADB Keyboard when it is the IME, else refuse.
      const ime = (await this.#shell(serial, 'settings get secure default_input_method', signal, 'reading the keyboard')).trim();
      if (ime !== ADB_KEYBOARD_IME) {
        throw new SightlineError(
          'UNSUPPORTED',
          `type_text: ${describeChars(plan.unsupported)} cannot be typed with \`adb shell input text\` (printable ASCII only); nothing was typed.`,
          'Install ADB Keyboard (github.com/senzhk/ADBKeyBoard) and select it: `adb shell ime enable com.android.adbkeyboard/.AdbIME && adb shell ime set com.android.adbkeyboard/.AdbIME`; or type the ASCII parts only.',
        );
      }
      await this.#input(serial, [...tap, adbKeyboardCommand(text)], signal, 'type_text');
      return { note: 'typed through ADB Keyboard (non-ASCII text)', chars: [...text].length };
    }
    await this.#input(serial, [...tap, ...plan.steps.map(stepCommand)], signal, 'type_text');
    return { chars: [...text].length, commands: plan.steps.length };
  }

  /** Run `input` commands, checking each line's exit status and error output. */
  async #input(serial: string, commands: string[], signal: AbortSignal, label: string): Promise<void> {
    for (const line of batchCommands(commands)) {
      let out: string;
      try {
        out = await this.#shell(serial, `${line}; echo "__sl_rc=$?"`, signal, label);
      } catch (e) {
        throw await this.#explain(serial, e, (msg) => new SightlineError('INTERNAL', `${label} on android:${serial} failed: ${msg}.`));
      }
      const m = /__sl_rc=(\d+)\s*$/.exec(out);
      const said = out.replace(/__sl_rc=\d+\s*$/, '').trim();
      if (!m || m[1] !== '0' || /^(Error|Exception)\b/m.test(said)) {
        const unknown = /Unknown command|Error: Unknown|unknown command/i.test(said);
        throw new SightlineError(
          unknown ? 'UNSUPPORTED' : 'INTERNAL',
          `${label} on android:${serial} failed${m ? ` (exit ${m[1]})` : ''}: ${said.split('\n').slice(0, 3).join(' ') || 'no output'}.`,
          unknown ? 'This Android version lacks that input command (key combinations need Android 12+).' : 'Check the device is unlocked and the app is in front.',
        );
      }
    }
  }

  // ── UI tree ─────────────────────────────────────────────────────────────────

  async uiTree(target: string, frame: StoredFrame, options: UiTreeOptions): Promise<SourceUiNode[]> {
    const serial = this.#serial(target);
    return this.#exclusive(serial, options.signal, async () => {
      // A unique file, read and removed in the same command: nothing stays on the device.
      const file = `/data/local/tmp/sightline-ui-${randomBytes(6).toString('hex')}.xml`;
      let out: string;
      try {
        out = await this.#shell(serial, `uiautomator dump ${file} && cat ${file}; rm -f ${file}`, options.signal, 'uiautomator dump', TIMEOUT.uiautomator);
      } catch (e) {
        throw await this.#explain(serial, e, (msg) => new SightlineError('INTERNAL', `uiautomator dump on android:${serial} failed: ${msg}.`));
      }
      const state = frame.state as Partial<AndroidFrameState>;
      let dump: ReturnType<typeof parseUiDump>;
      try {
        dump = parseUiDump(out, frame.sourceSize);
      } catch (e) {
        throw new SightlineError('INTERNAL', `${(e as Error).message}.`, 'Retry when the screen is idle (animations and video block uiautomator).');
      }
      if (dump.rotation !== undefined && typeof state.rotation === 'number' && dump.rotation !== state.rotation) {
        throw staleError(frame, `the device rotated from ${ROTATION_DEG[state.rotation]} to ${ROTATION_DEG[dump.rotation] ?? dump.rotation}`);
      }
      let nodes = dump.nodes;
      if (options.query) nodes = nodes.filter((n) => matchesQuery(n, options.query!));
      return nodes.slice(0, options.maxNodes);
    });
  }

  async dispose(): Promise<void> {
    const current = this.#server;
    this.#server = undefined;
    const s = await current?.catch(() => undefined);
    s?.server.dispose();
  }
}

function isReady(state: string): boolean {
  return state === 'device' || state === 'emulator';
}

const NO_DEVICE_HINT = 'Enable Developer options → USB debugging on the device and connect it by USB, or run `adb connect HOST:PORT` for a network device or emulator.';

function stateHint(state: string): string {
  if (state === 'unauthorized') return UNAUTHORIZED_HINT;
  if (state === 'offline') return OFFLINE_HINT;
  if (/no permissions/i.test(state)) return 'adb lacks permission for the USB device: add a udev rule for it (see https://developer.android.com/studio/run/device) and reconnect.';
  if (/recovery|sideload|bootloader|rescue/i.test(state)) return `The device is in ${state} mode: boot it into Android.`;
  if (state === 'authorizing' || state === 'connecting') return 'The device is connecting; call list_targets again in a moment.';
  return OFFLINE_HINT;
}

/** Device pixels are integers; the core hands over exact source-space points. */
function devicePoint(p: Point): { x: number; y: number } {
  return { x: Math.round(p.x), y: Math.round(p.y) };
}

function assertFresh(frame: StoredFrame, display: DisplayInfo): void {
  const state = frame.state as Partial<AndroidFrameState>;
  if (typeof state.rotation === 'number' && display.rotation !== undefined && state.rotation !== display.rotation) {
    throw staleError(frame, `the device rotated from ${ROTATION_DEG[state.rotation]} to ${ROTATION_DEG[display.rotation]}`);
  }
  const was = state.display;
  if (was && (was.width !== display.size.width || was.height !== display.size.height)) {
    throw staleError(frame, `the screen changed from ${was.width}x${was.height} to ${display.size.width}x${display.size.height}`);
  }
}

function staleError(frame: StoredFrame, why: string): SightlineError {
  return new SightlineError('FRAME_STALE', `${why} since frame ${frame.ref}.`, `Capture ${frame.target} again and use the new image's coordinates.`, { ref: frame.ref });
}
