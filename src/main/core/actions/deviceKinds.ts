/**
 * Actions on a device rather than on a point of its screen: apps (launch, stop, open a link,
 * install) and orientation. Any source with an apps or orientation port performs them, so a
 * second device source offers the same tools without a change here.
 */
import { z } from 'zod';
import { portOf } from '../sources/aim.ts';
import { ORIENTATION_VALUES, type InstallParams, type LaunchParams, type ModuleAction, type OpenUrlParams, type OrientationValue } from '../sources/source.ts';
import { defineAction } from './kinds.ts';

export const deviceField = z.string().min(1).max(512).describe('A device id from list_targets, e.g. "android:<serial>".');
export const packageField = z.string().min(1).max(255).describe('Package name, e.g. com.example.app (list_apps lists them).');
const waitField = z.boolean().default(true).describe('Wait until the activity has drawn its first frame (up to 30 s; default true). false returns once the start was accepted.');

export const launchAppKind = defineAction({
  name: 'launch_app',
  aim: 'none',
  input: {
    target: deviceField,
    package: packageField,
    activity: z.string().min(1).max(512).optional().describe('Start this activity of the package instead (".MainActivity" or "package/full.Class").'),
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
    url: z.string().min(3).max(3800).describe('A whole URI with its scheme: https://example.com/page or myapp://item/42.'),
    package: packageField.optional().describe('Open it in this app only (e.g. com.android.chrome).'),
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
    path: z.string().min(1).max(4096).describe('Absolute path of the .apk on this computer, inside a folder the user allowed (files.uploadRoots).'),
    grantPermissions: z.boolean().default(false).describe('Grant every runtime permission the app asks for (pm install -g).'),
    allowDowngrade: z.boolean().default(false).describe('Allow a lower version than the installed one (debuggable apps only).'),
    allowTest: z.boolean().default(false).describe('Allow an APK built as test-only (Android Studio debug runs).'),
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
    orientation: z.enum(ORIENTATION_VALUES).describe('portrait | landscape | reverse-portrait | reverse-landscape | auto.'),
  },
  build: (a, at): ModuleAction<'set_orientation', { orientation: OrientationValue }> => ({ kind: 'set_orientation', target: at.target, params: { orientation: a.orientation } }),
  performer: (source) => {
    const port = portOf(source, 'orientation');
    return (action, signal) => port.setOrientation(action, signal);
  },
});
