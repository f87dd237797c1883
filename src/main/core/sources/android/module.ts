/** The Android source module: devices and emulators over ADB, its settings and the shared device tools it serves. */
import { appTools, orientationTool, scrollIntoViewTool, swipeTool } from '../../mcp/sharedTools.ts';
import { defineSource } from '../module.ts';
import { androidSettings } from './settings.ts';

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
  tools: [swipeTool, scrollIntoViewTool, ...appTools, orientationTool],
  async create(ctx) {
    const { createAndroidSource } = await import('./androidSource.ts');
    return createAndroidSource({ settings: ctx.settings(), env: ctx.env });
  },
});
