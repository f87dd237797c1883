/**
 * The Android source: devices and emulators through adb servers (@devicefarmer/adbkit), the local
 * one and those of `android.servers`. Captures are `screencap -p` handed to the core's pipeline as
 * an encoded PNG in device pixels; actions are `input` commands in device pixels; the UI tree is
 * `uiautomator dump` with node ids that stay valid; apps, links, installs and orientation are the
 * module's own actions. One lock per device keeps concurrent calls from interleaving (devices.ts).
 */
import type { HealthCheck, SourceHealth } from '../../../../shared/frame.ts';
import type { SightlineError } from '../../../../shared/errors.ts';
import type { Source } from '../source.ts';
import { OFFLINE_HINT, UNAUTHORIZED_HINT } from './adb.ts';
import { AndroidApps } from './appControl.ts';
import { AndroidDevices, NO_DEVICE_HINT, isReady, type AndroidDevicesOptions } from './devices.ts';
import { DeviceDumps } from './dumps.ts';
import { AndroidInput } from './input.ts';
import { installHint } from './locate.ts';
import { AndroidScreen } from './screen.ts';
import { AndroidText } from './text.ts';
import { AndroidTree } from './tree.ts';

export type AndroidSourceOptions = AndroidDevicesOptions;

export interface AndroidSource extends Source {
  readonly screen: AndroidScreen;
  readonly input: AndroidInput;
  readonly tree: AndroidTree;
  readonly text: AndroidText;
  /** Apps (list, launch, stop, open a link, install) and orientation: the device ports of the shared tools. */
  readonly apps: AndroidApps;
  readonly orientation: AndroidApps;
}

export function createAndroidSource(options: AndroidSourceOptions): AndroidSource {
  const devices = new AndroidDevices(options);
  const dumps = new DeviceDumps(devices);
  const apps = new AndroidApps(devices);
  const screen = new AndroidScreen(devices, dumps);
  return {
    name: 'android',
    screen,
    input: new AndroidInput(devices, dumps, screen),
    tree: new AndroidTree(devices, dumps),
    text: new AndroidText(devices, dumps),
    apps,
    orientation: apps,
    health: () => health(devices),
    dispose: () => devices.dispose(),
  };
}

const unknown = (id: string, label: string): HealthCheck => ({ id, label, status: 'unknown' });

async function health(d: AndroidDevices): Promise<SourceHealth> {
  const base = { source: 'android', enabled: true };
  const found = d.locate();
  const adbCheck: HealthCheck = found.path
    ? { id: 'adb-found', label: 'adb found', status: 'ok', detail: `${found.path} (${found.via})` }
    : { id: 'adb-found', label: 'adb found', status: 'error', detail: `Looked in: ${found.searched.join(', ')}`, fix: installHint(d.platform) };
  const servers = await Promise.all([undefined, ...d.extraServers].map((s) => serverHealth(d, s)));
  const [local, ...extra] = servers;
  const up = servers.filter((s) => s.states);
  const devicesCheck = unknown('devices-authorised', 'Devices connected and authorised');
  const serverChecks = servers.map((s) => s.check);
  if (up.length === 0) {
    const reason = found.path || extra.length ? (local!.error?.message ?? 'no adb server answers') : 'adb (Android platform-tools) was not found';
    const remediation = found.path || extra.length ? local!.error?.hint : installHint(d.platform);
    return { ...base, available: false, degraded: false, reason, ...(remediation ? { remediation } : {}), checks: [adbCheck, ...serverChecks, devicesCheck] };
  }
  // Named as in target ids without the source prefix: the serial, or `host:port/serial` behind another server.
  const all = up.flatMap((s) => [...s.states!.entries()].map(([serial, state]) => [d.ref(s.server, serial).id.slice('android:'.length), state] as const));
  const ready = all.filter(([, s]) => isReady(s)).map(([id]) => id);
  const unauthorized = all.filter(([, s]) => s === 'unauthorized').map(([id]) => id);
  const other = all.filter(([, s]) => !isReady(s) && s !== 'unauthorized').map(([id, s]) => `${id} (${s})`);
  const check = (status: HealthCheck['status'], detail: string, fix?: string): HealthCheck => ({ ...devicesCheck, status, detail, ...(fix ? { fix } : {}) });
  const devices = unauthorized.length
    ? check('warning', `Not authorised: ${unauthorized.join(', ')}`, UNAUTHORIZED_HINT)
    : other.length
      ? check('warning', `Not ready: ${other.join(', ')}`, OFFLINE_HINT)
      : ready.length
        ? check('ok', `${ready.length} ready: ${ready.join(', ')}`)
        : check('warning', 'No device connected.', NO_DEVICE_HINT);
  const down = servers.find((s) => !s.states);
  const degraded = devices.status !== 'ok' || !!down;
  const why = devices.status !== 'ok' ? { reason: devices.detail, remediation: devices.fix } : down ? { reason: down.check.detail, remediation: down.check.fix } : {};
  return { ...base, available: true, degraded, ...(degraded ? why : {}), ...(ready.length === 0 ? { idle: true } : {}), checks: [adbCheck, ...serverChecks, devices] };
}

/** One server: reachable (its device states) or why not. */
async function serverHealth(d: AndroidDevices, server: string | undefined): Promise<{ server?: string; check: HealthCheck; states?: Map<string, string>; error?: SightlineError }> {
  const id = server === undefined ? 'adb-server' : `adb-server:${server}`;
  const label = server === undefined ? 'adb server running' : `adb server ${server}`;
  const where = server === undefined ? {} : { server };
  try {
    const adb = await d.adb(server);
    const version = await d.serverVersion(server);
    const check: HealthCheck = { id, label, status: 'ok', detail: `${adb.address.host}:${adb.address.port}, protocol ${version}` };
    try {
      return { ...where, check, states: await adb.devices() };
    } catch (e) {
      d.forgetServer(adb, server);
      const err = e as SightlineError;
      return { ...where, check: { ...check, status: 'error', detail: err.message }, error: err };
    }
  } catch (e) {
    const err = e as SightlineError;
    const notFound = err.code === 'ADB_NOT_FOUND';
    return { ...where, check: notFound ? unknown(id, label) : { id, label, status: 'error', detail: err.message, ...(err.hint ? { fix: err.hint } : {}) }, error: err };
  }
}
