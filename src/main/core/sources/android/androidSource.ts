/**
 * The Android source: devices and emulators through the adb server (@devicefarmer/adbkit).
 * Captures are `screencap -p` handed to the core's pipeline as an encoded PNG in device pixels;
 * actions are `input` commands in device pixels; the UI tree is `uiautomator dump`. One lock per
 * device keeps concurrent calls from interleaving (devices.ts).
 */
import type { HealthCheck, SourceHealth } from '../../../../shared/frame.ts';
import type { SightlineError } from '../../../../shared/errors.ts';
import type { Source } from '../source.ts';
import { OFFLINE_HINT, UNAUTHORIZED_HINT, type AdbServer } from './adb.ts';
import { AndroidDevices, NO_DEVICE_HINT, isReady, type AndroidDevicesOptions } from './devices.ts';
import { AndroidInput } from './input.ts';
import { installHint } from './locate.ts';
import { AndroidScreen } from './screen.ts';
import { AndroidTree } from './tree.ts';

export type AndroidSourceOptions = AndroidDevicesOptions;

export interface AndroidSource extends Source {
  readonly screen: AndroidScreen;
  readonly input: AndroidInput;
  readonly tree: AndroidTree;
}

export function createAndroidSource(options: AndroidSourceOptions): AndroidSource {
  const devices = new AndroidDevices(options);
  return {
    name: 'android',
    screen: new AndroidScreen(devices),
    input: new AndroidInput(devices),
    tree: new AndroidTree(devices),
    health: () => health(devices),
    dispose: () => devices.dispose(),
  };
}

async function health(d: AndroidDevices): Promise<SourceHealth> {
  const base = { source: 'android', enabled: true };
  const found = d.locate();
  const adbCheck: HealthCheck = found.path
    ? { id: 'adb-found', label: 'adb found', status: 'ok', detail: `${found.path} (${found.via})` }
    : { id: 'adb-found', label: 'adb found', status: 'error', detail: `Looked in: ${found.searched.join(', ')}`, fix: installHint(d.platform) };
  if (!found.path) {
    return {
      ...base,
      available: false,
      degraded: false,
      reason: 'adb (Android platform-tools) was not found',
      remediation: installHint(d.platform),
      checks: [adbCheck, { id: 'adb-server', label: 'adb server running', status: 'unknown' }, { id: 'devices-authorised', label: 'Devices connected and authorised', status: 'unknown' }],
    };
  }
  let adb: AdbServer;
  let version: number;
  try {
    adb = await d.adb();
    version = await d.serverVersion();
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
    d.forgetServer(adb);
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
