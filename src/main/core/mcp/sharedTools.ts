/**
 * Tools several source modules offer (each lists the same object in its `tools`): listed while
 * any of those sources is, once. Their actions go to whichever source owns the target, through
 * the port the kind names (input, apps, orientation), so a second device source offers them by
 * implementing the port. The core's own tools (every source's) are in tools/.
 */
import { z } from 'zod';
import { installApkKind, launchAppKind, openUrlKind, setOrientationKind, stopAppKind, deviceField } from '../actions/deviceKinds.ts';
import { focusWindowKind, scrollIntoViewKind, swipeKind } from '../actions/kinds.ts';
import { actionHints, actionTool } from './action.ts';
import { defineTool, type AnyTool } from './tool.ts';

/** Sources whose UI trees scroll (browser pages, Android lists). */
export const scrollIntoViewTool = actionTool(scrollIntoViewKind, {
  title: 'Scroll an element into view',
  description: 'Scroll a node into view to look at it (acting on a node scrolls it already).',
  annotations: { ...actionHints, destructiveHint: false },
});

/** Sources with windows to raise. */
export const focusWindowTool = actionTool(focusWindowKind, {
  title: 'Focus a window',
  description: 'Raise and focus a desktop window.',
  annotations: { ...actionHints, destructiveHint: false },
});

/** Touch screens. */
export const swipeTool = actionTool(swipeKind, {
  title: 'Swipe',
  description: 'Swipe from x, y to toX, toY over durationMs.',
});

const listApps = defineTool({
  name: 'list_apps',
  title: 'List apps',
  description: "A device's installed apps (packages).",
  input: {
    target: deviceField,
    system: z.boolean().default(false).describe('Also system apps.'),
    filter: z.string().min(1).max(255).optional().describe('Name contains.'),
  },
  output: z.object({ target: z.string(), apps: z.array(z.object({ package: z.string(), system: z.boolean() })), count: z.number() }),
  annotations: { readOnlyHint: true, openWorldHint: true },
  async handle(ctx, args, res) {
    const apps = await ctx.sources.port(args.target, 'apps');
    const list = await apps.list(args.target, { system: args.system, ...(args.filter ? { filter: args.filter } : {}) }, ctx.signal);
    const shown = list.slice(0, 60).map((a) => a.package).join(', ');
    res.text(`${list.length} ${args.system ? '' : 'user '}app${list.length === 1 ? '' : 's'} on ${args.target}${list.length ? `: ${shown}${list.length > 60 ? ', …' : ''}` : ''}.`);
    res.structured({ target: args.target, apps: list, count: list.length });
  },
});

const launchApp = actionTool(launchAppKind, {
  title: 'Launch app',
  description: 'Start an app as the home screen does; says what is in front after.',
  annotations: { ...actionHints, destructiveHint: false },
});

const stopApp = actionTool(stopAppKind, {
  title: 'Stop app',
  description: 'Force-stop an app.',
});

const openUrl = actionTool(openUrlKind, {
  title: 'Open URL on a device',
  description: 'Open a URL or deep link on a device; says which app opened it.',
  annotations: { ...actionHints, destructiveHint: false },
});

const installApk = actionTool(installApkKind, {
  title: 'Install APK',
  description: 'Install or update an APK from this computer.',
});

const setOrientation = actionTool(setOrientationKind, {
  title: 'Set orientation',
  description: 'Turn the screen (auto follows the sensor). Older frames become stale.',
  annotations: { ...actionHints, destructiveHint: false, idempotentHint: true },
});

/** Tools of devices with apps (phones, tablets, emulators). */
export const appTools: readonly AnyTool[] = [listApps, launchApp, stopApp, openUrl, installApk];
export const orientationTool = setOrientation;
