/** The desktop source module: displays and application windows on macOS, Windows and X11. */
import { focusWindowTool } from '../../mcp/sharedTools.ts';
import { defineSource } from '../module.ts';
import { desktopSettings } from './settings.ts';

export const desktopModule = defineSource({
  name: 'desktop',
  label: 'Desktop',
  icon: 'monitor',
  description: 'Displays and application windows.',
  kind: 'live',
  settings: desktopSettings,
  fields: [
    { key: 'desktop.display', section: 'Connections', kind: 'text', label: 'X11 display', placeholder: ':0', env: 'DISPLAY', help: 'Used when Sightline is started without DISPLAY (MCP clients start it with a bare environment).' },
    { key: 'desktop.raiseBeforeCapture', section: 'Capture', kind: 'toggle', label: 'Raise a covered window before capturing it', help: 'Off: the capture names what covers it instead.' },
    {
      key: 'desktop.appAccessibility',
      section: 'Capture',
      kind: 'toggle',
      label: 'Start Chromium, Electron and Qt apps with accessibility on (Linux)',
      help: 'Their controls reach get_ui_tree once they are started again; Setup lists the apps. Off removes Sightline’s launchers.',
    },
  ],
  // A display that is misspelt or not running would be saved and then fail every capture.
  vet: async (next, previous) => {
    if (!next.display || next.display === previous.display || process.platform === 'win32') return undefined;
    const { displayProblem } = await import('./displayCheck.ts');
    const problem = await displayProblem(next.display);
    return problem ? { key: 'desktop.display', message: problem, hint: 'Name a running X server, e.g. ":0"; `echo $DISPLAY` in a terminal of your desktop session prints it.' } : undefined;
  },
  tools: [focusWindowTool],
  osPermissions: true,
  async create(ctx) {
    const { createDesktopSource } = await import('./desktopSource.ts');
    const source = createDesktopSource({
      settings: ctx.settings(),
      env: ctx.env,
      dataDir: ctx.dataDir,
      permissions: ctx.host.macPermissions,
      // Raising is input to the desktop: never while the person has paused it or made Sightline read-only.
      raiseBeforeCapture: () => ctx.settings().raiseBeforeCapture && ctx.inputAllowed(),
    });
    // The session's accessibility status lasts as long as the desktop session: set again on every start.
    await source.appAccess?.apply(ctx.settings().appAccessibility);
    return source;
  },
});
