/**
 * Actions on a device rather than on a point of its screen: apps (launch, stop, open a link,
 * install) and orientation. Any source with an apps or orientation port performs them, so a
 * second device source offers the same tools without a change here.
 */
import { z } from 'zod';
import { portOf } from '../sources/aim.ts';
import { ORIENTATION_VALUES, type InstallParams, type LaunchParams, type ModuleAction, type OpenUrlParams, type OrientationValue } from '../sources/source.ts';
import { defineAction } from '../actionDefs.ts';

export const deviceField = z.string().min(1).max(512).describe('Device id, e.g. "android:<serial>".');
export const packageField = z.string().min(1).max(255).describe('e.g. com.example.app.');
const waitField = z.boolean().default(true).describe('Wait for its first frame (up to 30 s).');

export const launchAppKind = defineAction({
  name: 'launch_app',
  aim: 'none',
  input: {
    target: deviceField,
    package: packageField,
    activity: z.string().min(1).max(512).optional().describe('This activity instead, e.g. ".MainActivity".'),
    wait: waitField,
  },
  // Judged by the app it starts, not by the one in front.
  allow: (a) => ({ as: a.package }),
  build: (a, at): ModuleAction<'launch_app', LaunchParams> => ({ kind: 'launch_app', target: at.target, params: { package: a.package, ...(a.activity !== undefined ? { activity: a.activity } : {}), wait: a.wait } }),
  performer: (source) => {
    const apps = portOf(source, 'apps');
    return (action, signal) => apps.launch(action, signal);
  },
});

export const stopAppKind = defineAction({
  name: 'stop_app',
  aim: 'none',
  input: { target: deviceField, package: packageField },
  allow: (a) => ({ as: a.package }),
  build: (a, at): ModuleAction<'stop_app', { package: string }> => ({ kind: 'stop_app', target: at.target, params: { package: a.package } }),
  performer: (source) => {
    const apps = portOf(source, 'apps');
    return (action, signal) => apps.stop(action, signal);
  },
});

export const openUrlKind = defineAction({
  name: 'open_url',
  aim: 'none',
  input: {
    target: deviceField,
    url: z.string().min(3).max(3800).describe('A URI with its scheme, e.g. myapp://item/42.'),
    package: packageField.optional().describe('Only in this app.'),
    wait: waitField,
  },
  allow: (a) => (a.package !== undefined ? { as: a.package } : undefined),
  build: (a, at): ModuleAction<'open_url', OpenUrlParams> => ({ kind: 'open_url', target: at.target, params: { url: a.url, ...(a.package !== undefined ? { package: a.package } : {}), wait: a.wait } }),
  performer: (source) => {
    const apps = portOf(source, 'apps');
    return (action, signal) => apps.openUrl(action, signal);
  },
});

export const installApkKind = defineAction({
  name: 'install_apk',
  aim: 'none',
  input: {
    target: deviceField,
    path: z.string().min(1).max(4096).describe('Absolute path inside files.uploadRoots.'),
    grantPermissions: z.boolean().default(false).describe('Grant all runtime permissions.'),
    allowDowngrade: z.boolean().default(false).describe('Allow an older version.'),
    allowTest: z.boolean().default(false).describe('Allow a test-only APK.'),
  },
  build: (a, at): ModuleAction<'install_apk', InstallParams> => ({ kind: 'install_apk', target: at.target, params: { path: a.path, grantPermissions: a.grantPermissions, allowDowngrade: a.allowDowngrade, allowTest: a.allowTest } }),
  performer: (source) => {
    const apps = portOf(source, 'apps');
    return (action, signal) => apps.install(action, signal);
  },
});

export const setOrientationKind = defineAction({
  name: 'set_orientation',
  aim: 'none',
  input: {
    target: deviceField,
    orientation: z.enum(ORIENTATION_VALUES),
  },
  build: (a, at): ModuleAction<'set_orientation', { orientation: OrientationValue }> => ({ kind: 'set_orientation', target: at.target, params: { orientation: a.orientation } }),
  performer: (source) => {
    const port = portOf(source, 'orientation');
    return (action, signal) => port.setOrientation(action, signal);
  },
});
