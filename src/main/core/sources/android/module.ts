/** The Android source module: devices and emulators over ADB, its settings and its own tools. */
import { z } from 'zod';
import { SightlineError } from '../../../../shared/errors.ts';
import { actionHints, runAction } from '../../mcp/action.ts';
import type { ToolResponse } from '../../mcp/response.ts';
import { actionOutput, refField, targetField, xField, yField } from '../../mcp/schemas.ts';
import { defineTool, type ToolContext } from '../../mcp/tool.ts';
import { scrollIntoViewTool } from '../../mcp/sharedTools.ts';
import { defineSource } from '../module.ts';
import type { AndroidSource } from './androidSource.ts';
import { ORIENTATIONS } from './orientation.ts';
import { androidSettings } from './settings.ts';

const deviceField = z.string().min(1).max(512).describe('An Android target id from list_targets: "android:<serial>", or "android:<host>:<port>/<serial>" behind another adb server.');
const packageField = z.string().min(1).max(255).describe('Package name, e.g. com.example.app (list_apps lists them).');

const swipe = defineTool({
  name: 'swipe',
  title: 'Swipe (Android)',
  description: 'Swipe from x, y to toX, toY (image pixels of the latest capture or of ref) over durationMs.',
  input: {
    x: xField,
    y: yField,
    toX: xField.describe('End X in image pixels.'),
    toY: yField.describe('End Y in image pixels.'),
    durationMs: z.int().min(1).max(10_000).default(300).describe('Swipe duration in ms (default 300).'),
    target: targetField.optional(),
    ref: refField.optional(),
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, args, res) {
    await runAction(ctx, { tool: 'swipe', ...args }, res);
  },
});

const listApps = defineTool({
  name: 'list_apps',
  title: 'List apps (Android)',
  description: 'Installed apps of an Android device by package name: the ones the user installed, or all with system: true; filter keeps names containing it.',
  input: {
    target: deviceField,
    system: z.boolean().default(false).describe('Also list the apps that came with the device (default false: user apps only).'),
    filter: z.string().min(1).max(255).optional().describe('Keep packages whose name contains this (case-insensitive).'),
  },
  output: z.object({ target: z.string(), apps: z.array(z.object({ package: z.string(), system: z.boolean() })), count: z.number() }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle(ctx, args, res) {
    const source = await ctx.sources.forTarget(args.target);
    const apps = (source as Partial<AndroidSource>).apps;
    if (source.name !== 'android' || !apps) throw new SightlineError('INVALID_ARGUMENT', `${args.target} is not an Android device.`, 'Give an android:… target from list_targets.');
    const list = await apps.list(args.target, { system: args.system, ...(args.filter ? { filter: args.filter } : {}) }, ctx.signal);
    const shown = list.slice(0, 60).map((a) => a.package).join(', ');
    res.text(`${list.length} ${args.system ? '' : 'user '}app${list.length === 1 ? '' : 's'} on ${args.target}${list.length ? `: ${shown}${list.length > 60 ? ', …' : ''}` : ''}.`);
    res.structured({ target: args.target, apps: list, count: list.length });
  },
});

/** A device-changing action through the core's gate (pause, read-only, the allowlist and the log apply); the device's answer is in `details`. */
async function deviceAction(ctx: ToolContext, verb: string, target: string, params: Record<string, unknown>, res: ToolResponse, allowAs?: string): Promise<void> {
  await runAction(ctx, { tool: `android:${verb}`, target, params, ...(allowAs !== undefined ? { allow: { as: allowAs } } : {}) }, res);
}

const waitField = z.boolean().default(true).describe('Wait until the activity has drawn its first frame (up to 30 s; default true). false returns once Android accepted the start.');

const launchApp = defineTool({
  name: 'launch_app',
  title: 'Launch app (Android)',
  description: 'Start an app by package name the way the home screen does (its launcher activity); a running app comes back as it was. Says which activity is in front after.',
  input: {
    target: deviceField,
    package: packageField,
    activity: z.string().min(1).max(512).optional().describe('Start this activity instead (".MainActivity" or "package/full.Class").'),
    wait: waitField,
  },
  output: actionOutput,
  annotations: { ...actionHints, destructiveHint: false },
  async handle(ctx, { target, ...params }, res) {
    await deviceAction(ctx, 'launch_app', target, params, res, params.package);
  },
});

const stopApp = defineTool({
  name: 'stop_app',
  title: 'Stop app (Android)',
  description: 'Force-stop an app (am force-stop): its processes end; it starts fresh next time.',
  input: { target: deviceField, package: packageField },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { target, ...params }, res) {
    await deviceAction(ctx, 'stop_app', target, params, res, params.package);
  },
});

const openUrl = defineTool({
  name: 'open_url',
  title: 'Open URL (Android)',
  description: 'Open a URL or deep link (android.intent.action.VIEW), in the app Android picks or in package. Says which app opened it, or that Android shows its chooser.',
  input: {
    target: deviceField,
    url: z.string().min(3).max(3800).describe('A whole URI with its scheme: https://example.com/page or myapp://item/42.'),
    package: packageField.optional().describe('Open it in this app only (e.g. com.android.chrome).'),
    wait: waitField,
  },
  output: actionOutput,
  annotations: { ...actionHints, destructiveHint: false },
  async handle(ctx, { target, ...params }, res) {
    await deviceAction(ctx, 'open_url', target, params, res, params.package);
  },
});

const installApk = defineTool({
  name: 'install_apk',
  title: 'Install APK (Android)',
  description: 'Install (or update, keeping its data) an APK file of this computer on the device. The file must lie inside a folder of files.uploadRoots.',
  input: {
    target: deviceField,
    path: z.string().min(1).max(4096).describe('Absolute path of the .apk on this computer, inside a folder the user allowed (files.uploadRoots).'),
    grantPermissions: z.boolean().default(false).describe('Grant every runtime permission the app asks for (pm install -g).'),
    allowDowngrade: z.boolean().default(false).describe('Allow a lower version than the installed one (debuggable apps only).'),
    allowTest: z.boolean().default(false).describe('Allow an APK built as test-only (Android Studio debug runs).'),
  },
  output: actionOutput,
  annotations: actionHints,
  async handle(ctx, { target, ...params }, res) {
    await deviceAction(ctx, 'install_apk', target, params, res);
  },
});

const setOrientation = defineTool({
  name: 'set_orientation',
  title: 'Set orientation (Android)',
  description: 'Turn the screen: portrait, landscape, reverse-portrait or reverse-landscape (auto-rotate off), or auto (follow the sensor). Reads the rotation back; frames captured before become stale. The current orientation is in list_targets details.',
  input: {
    target: deviceField,
    orientation: z.enum([...ORIENTATIONS, 'auto']).describe('portrait | landscape | reverse-portrait | reverse-landscape | auto.'),
  },
  output: actionOutput,
  annotations: { ...actionHints, destructiveHint: false, idempotentHint: true },
  async handle(ctx, { target, ...params }, res) {
    await deviceAction(ctx, 'set_orientation', target, params, res);
  },
});

export const androidModule = defineSource({
  name: 'android',
  label: 'Android',
  icon: 'phone',
  description: 'Devices and emulators over adb.',
  kind: 'live',
  settings: androidSettings,
  fields: [
    { key: 'android.adbPath', section: 'Connections', kind: 'text', label: 'adb path', placeholder: 'adb (from PATH)' },
    {
      key: 'android.servers',
      section: 'Connections',
      kind: 'list',
      label: 'More adb servers',
      help: 'host:port of adb servers on other machines (a lab box running `adb -a nodaemon server`, a DeviceFarmer provider); their devices are listed too.',
      placeholder: '192.168.1.20:5037',
    },
  ],
  tools: [swipe, scrollIntoViewTool, listApps, launchApp, stopApp, openUrl, installApk, setOrientation],
  // The package in front is what the allowlist names for Android (the device's name is not an app).
  allowNames: (t) => [typeof t.details?.package === 'string' ? t.details.package : undefined],
  async create(ctx) {
    const { createAndroidSource } = await import('./androidSource.ts');
    return createAndroidSource({ settings: ctx.settings(), env: ctx.env, core: () => ctx.core() });
  },
});
