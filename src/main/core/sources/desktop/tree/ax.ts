/**
 * macOS: the window's tree through Accessibility (AX), read by a JXA script run with `osascript`
 * (on every Mac, no compiler or helper binary). System Events walks the process's window whose
 * title and place match, element by element, and prints one JSON document that `parseAx` turns
 * into elements. Sightline needs the Accessibility permission for it (as for input). Written to
 * the System Events and AX attribute documentation; it could not be run on the Linux machines
 * this was built on, and its parser is tested on hand-written output of the script's shape
 * (tests/fixtures/desktop/ax-*.handwritten.json) until a capture from a real Mac replaces it.
 */
import { execFile } from 'node:child_process';
import { SightlineError } from '../../../../../shared/errors.ts';
import { MAC_ACCESSIBILITY } from '../environment.ts';
import { sharedRole } from './roles.ts';
import type { AxElement, AxSnapshot, TreeBackend, WindowRef } from './types.ts';

/**
 * Arguments: pid, title, x, y, max. Prints {"app": name, "elements": [...]} or {"error": text}.
 * A secure text field's value is never asked for.
 */
export const AX_SCRIPT = String.raw`
function run(argv) {
  var pid = Number(argv[0]), title = argv[1], wx = Number(argv[2]), wy = Number(argv[3]), max = Number(argv[4]);
  var se = Application('System Events');
  var procs = se.processes.whose({ unixId: pid });
  if (procs.length === 0) return JSON.stringify({ error: 'no process ' + pid });
  var proc = procs[0];
  var wins = proc.windows();
  var win = null;
  for (var i = 0; i < wins.length && !win; i++) {
    var p = wins[i].position();
    if (wins[i].name() === title && Math.abs(p[0] - wx) <= 2 && Math.abs(p[1] - wy) <= 2) win = wins[i];
  }
  for (var j = 0; j < wins.length && !win; j++) if (wins[j].name() === title) win = wins[j];
  if (!win) return JSON.stringify({ error: 'no window' });
  var out = [];
  function attr(el, name) { try { return el.attributes.byName(name).value(); } catch (e) { return null; } }
  function visit(el, parent) {
    if (out.length >= max) return;
    var role = attr(el, 'AXRole') || '', subrole = attr(el, 'AXSubrole') || '';
    var pos = attr(el, 'AXPosition'), size = attr(el, 'AXSize');
    var secure = subrole === 'AXSecureTextField';
    var v = secure ? null : attr(el, 'AXValue');
    var item = {
      parent: parent, role: role, subrole: subrole,
      name: attr(el, 'AXTitle') || attr(el, 'AXDescription') || '',
      value: v === null || v === undefined ? null : String(v),
      x: pos ? pos[0] : 0, y: pos ? pos[1] : 0, w: size ? size[0] : 0, h: size ? size[1] : 0,
      enabled: attr(el, 'AXEnabled') !== false, focused: attr(el, 'AXFocused') === true
    };
    var index = out.push(item) - 1;
    var kids = [];
    try { kids = el.uiElements(); } catch (e) {}
    for (var k = 0; k < kids.length; k++) visit(kids[k], index);
  }
  visit(win, null);
  return JSON.stringify({ app: proc.name(), elements: out });
}
`;

interface AxItem {
  parent: number | null;
  role: string;
  subrole?: string;
  name: string;
  value: string | null;
  x: number;
  y: number;
  w: number;
  h: number;
  enabled: boolean;
  focused: boolean;
}

/** The script's output as elements (pure: tested on hand-written output). */
export function parseAx(json: string): AxSnapshot | undefined {
  const doc = JSON.parse(json) as { app?: string; elements?: AxItem[]; error?: string };
  if (!doc.elements?.length) return undefined;
  const elements = doc.elements.map((it): AxElement => {
    const platformRole = it.subrole === 'AXSecureTextField' ? 'AXSecureTextField' : it.role;
    const role = sharedRole('ax', platformRole);
    const password = platformRole === 'AXSecureTextField';
    const toggle = role === 'checkbox' || role === 'radio';
    return {
      ...(it.parent !== null ? { parent: it.parent } : {}),
      role,
      platformRole,
      // Static text carries its words in AXValue, not AXTitle.
      name: it.name || (role === 'label' && it.value ? it.value : ''),
      ...(!password && !toggle && role !== 'label' && it.value !== null && it.value !== '' ? { value: it.value } : {}),
      bounds: it.w > 0 && it.h > 0 ? { x: it.x, y: it.y, width: it.w, height: it.h } : { x: 0, y: 0, width: 0, height: 0 },
      states: {
        enabled: it.enabled,
        showing: it.w > 0 && it.h > 0,
        ...(it.focused ? { focused: true } : {}),
        ...(toggle ? { checked: it.value === '1' } : {}),
        ...(role === 'textbox' || password ? { editable: true } : {}),
        ...(password ? { password: true } : {}),
      },
    };
  });
  return { elements, app: doc.app ?? '' };
}

export class AxBackend implements TreeBackend {
  readonly name = 'macOS Accessibility';

  async read(window: WindowRef, options: { signal: AbortSignal; maxElements: number }): Promise<AxSnapshot | undefined> {
    if (!window.pid) return undefined;
    const args = ['-l', 'JavaScript', '-e', AX_SCRIPT, String(window.pid), window.title, String(window.bounds.x), String(window.bounds.y), String(options.maxElements)];
    const out = await new Promise<string>((ok, fail) => {
      execFile('osascript', args, { signal: options.signal, timeout: 20_000, maxBuffer: 32 * 1024 * 1024 }, (err, stdout, stderr) => {
        // -1743/-25211: not allowed to send Apple events / assistive access denied.
        if (err && /-1743|-25211|not allowed assistive|assistive access/i.test(stderr)) {
          fail(new SightlineError('PERMISSION_DENIED', 'Reading the window\'s accessibility tree was refused.', `Allow Sightline in ${MAC_ACCESSIBILITY} (and to control System Events in Automation).`));
        } else if (err) fail(new SightlineError('INTERNAL', `osascript failed: ${stderr.trim() || err.message}`, 'Try again; if it persists, check sightline://health.'));
        else ok(stdout);
      });
    });
    return parseAx(out);
  }
}
