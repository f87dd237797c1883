/**
 * Windows: the window's tree through UI Automation, read by a PowerShell script with
 * System.Windows.Automation (in every Windows with .NET Framework; no compiler or helper binary).
 * It starts from the window's handle, walks the control view with one cache request (the
 * properties come back with each element, not one cross-process call each), and prints JSON
 * that `parseUia` turns into elements. Runtime ids are the elements' own handles. Written to
 * the System.Windows.Automation documentation; it could not be run on the Linux machines this
 * was built on, and its parser is tested on hand-written output of the script's shape
 * (tests/fixtures/desktop/uia-*.handwritten.json) until a capture from real Windows replaces it.
 */
import { execFile } from 'node:child_process';
import { SightlineError } from '../../../../../shared/errors.ts';
import { sharedRole } from './roles.ts';
import type { AxElement, AxSnapshot, TreeBackend, WindowRef } from './types.ts';

/** $args: hwnd, max. A password field's value is never asked for (IsPassword is cached first). */
export const UIA_SCRIPT = String.raw`
$ErrorActionPreference = 'Stop'
Add-Type -AssemblyName UIAutomationClient, UIAutomationTypes
$A = [System.Windows.Automation.AutomationElement]
$req = New-Object System.Windows.Automation.CacheRequest
foreach ($p in @($A::ControlTypeProperty, $A::NameProperty, $A::BoundingRectangleProperty, $A::IsEnabledProperty, $A::HasKeyboardFocusProperty, $A::IsPasswordProperty, $A::IsOffscreenProperty, $A::RuntimeIdProperty, $A::IsValuePatternAvailableProperty, $A::IsTogglePatternAvailableProperty)) { $req.Add($p) }
$req.Add([System.Windows.Automation.ValuePattern]::ValueProperty)
$req.Add([System.Windows.Automation.TogglePattern]::ToggleStateProperty)
$req.TreeScope = [System.Windows.Automation.TreeScope]::Element
$walker = [System.Windows.Automation.TreeWalker]::ControlViewWalker
$max = [int]$args[1]
$out = New-Object System.Collections.ArrayList
$scope = $req.Activate()
try {
  $root = $A::FromHandle([IntPtr][long]$args[0]).GetUpdatedCache($req)
  $stack = New-Object System.Collections.Stack
  $stack.Push(@($root, -1))
  while ($stack.Count -gt 0 -and $out.Count -lt $max) {
    $pair = $stack.Pop(); $e = $pair[0]; $parent = $pair[1]
    $c = $e.Cached
    $r = $c.BoundingRectangle
    $pw = [bool]$c.IsPassword
    $value = $null
    if (-not $pw -and $e.GetCachedPropertyValue($A::IsValuePatternAvailableProperty)) { $value = [string]$e.GetCachedPropertyValue([System.Windows.Automation.ValuePattern]::ValueProperty) }
    $toggle = $null
    if ($e.GetCachedPropertyValue($A::IsTogglePatternAvailableProperty)) { $toggle = [string]$e.GetCachedPropertyValue([System.Windows.Automation.TogglePattern]::ToggleStateProperty) }
    $index = $out.Add([ordered]@{ parent = $parent; type = $c.ControlType.ProgrammaticName; name = $c.Name; value = $value; toggle = $toggle; password = $pw; enabled = $c.IsEnabled; focused = $c.HasKeyboardFocus; offscreen = $c.IsOffscreen; id = ($e.GetRuntimeId() -join '.'); x = $r.X; y = $r.Y; w = $r.Width; h = $r.Height })
    $kids = New-Object System.Collections.ArrayList
    $k = $walker.GetFirstChild($e, $req)
    while ($k -ne $null) { [void]$kids.Add($k); $k = $walker.GetNextSibling($k, $req) }
    for ($i = $kids.Count - 1; $i -ge 0; $i--) { $stack.Push(@($kids[$i], $index)) }
  }
} finally { $scope.Dispose() }
[Console]::OutputEncoding = [System.Text.Encoding]::UTF8
ConvertTo-Json -Compress -Depth 3 -InputObject @{ elements = $out }
`;

interface UiaItem {
  parent: number;
  type: string;
  name: string | null;
  value: string | null;
  toggle: string | null;
  password: boolean;
  enabled: boolean;
  focused: boolean;
  offscreen: boolean;
  id: string;
  x: number | string;
  y: number | string;
  w: number | string;
  h: number | string;
}

/** The script's output as elements (pure: tested on hand-written output). */
export function parseUia(json: string, app = ''): AxSnapshot | undefined {
  const doc = JSON.parse(json.replace(/^\uFEFF/, '')) as { elements?: UiaItem[] | UiaItem };
  // ConvertTo-Json writes a one-element list as the element itself.
  const items = Array.isArray(doc.elements) ? doc.elements : doc.elements ? [doc.elements] : [];
  if (!items.length) return undefined;
  const elements = items.map((it): AxElement => {
    const platformRole = it.type.replace(/^ControlType\./, '');
    const role = it.password ? 'password' : sharedRole('uia', platformRole);
    // An empty rectangle reads "Infinity" (the element has no place on screen).
    const [x, y, w, h] = [it.x, it.y, it.w, it.h].map(Number) as [number, number, number, number];
    const placed = [x, y, w, h].every(Number.isFinite) && w > 0 && h > 0;
    return {
      key: it.id,
      ...(it.parent >= 0 ? { parent: it.parent } : {}),
      role,
      platformRole,
      name: it.name ?? '',
      ...(!it.password && it.value !== null && it.value !== '' ? { value: it.value } : {}),
      bounds: placed ? { x, y, width: w, height: h } : { x: 0, y: 0, width: 0, height: 0 },
      states: {
        enabled: it.enabled,
        showing: placed && !it.offscreen,
        ...(it.focused ? { focused: true } : {}),
        ...(it.toggle !== null ? { checked: it.toggle === 'On' } : {}),
        ...(role === 'textbox' || it.password ? { editable: true } : {}),
        ...(it.password ? { password: true } : {}),
      },
    };
  });
  return { elements, app };
}

export class UiaBackend implements TreeBackend {
  readonly name = 'UI Automation';

  async read(window: WindowRef, options: { signal: AbortSignal; maxElements: number }): Promise<AxSnapshot | undefined> {
    const args = ['-NoProfile', '-NonInteractive', '-ExecutionPolicy', 'Bypass', '-EncodedCommand', uiaCommand(window.id, options.maxElements)];
    const out = await new Promise<string>((ok, fail) => {
      execFile('powershell.exe', args, { signal: options.signal, timeout: 20_000, maxBuffer: 32 * 1024 * 1024, windowsHide: true }, (err, stdout, stderr) => {
        if (err) fail(new SightlineError('INTERNAL', `Reading the UI Automation tree failed: ${stderr.trim() || err.message}`, 'Try again; if the window belongs to an elevated app, run Sightline elevated too.'));
        else ok(stdout);
      });
    });
    return out.trim() ? parseUia(out, window.app) : undefined;
  }
}

/** The script and its arguments as -EncodedCommand wants them (Base64 of UTF-16LE): no quoting to get wrong. */
export function uiaCommand(hwnd: number, max: number): string {
  return Buffer.from(`& { ${UIA_SCRIPT} } ${Math.trunc(hwnd)} ${Math.trunc(max)}`, 'utf16le').toString('base64');
}
