/**
 * The UI Automation backend on a real Windows window (a WinForms form PowerShell opens): runs on
 * the Windows runner of .github/workflows/platforms.yml, skipped elsewhere. macOS has no such test:
 * reading the AX tree needs the Accessibility permission, which a hosted runner cannot grant
 * (the AX parser is tested on hand-written output in tests/unit/desktop, no real capture yet).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDesktopSource, type DesktopSource } from '../../../src/main/core/sources/desktop/desktopSource.ts';

const FORM = String.raw`
Add-Type -AssemblyName System.Windows.Forms
$f = New-Object System.Windows.Forms.Form
$f.Text = 'Sightline UIA Form'; $f.Width = 420; $f.Height = 300; $f.StartPosition = 'Manual'; $f.Left = 100; $f.Top = 100
$l = New-Object System.Windows.Forms.Label; $l.Text = 'Email'; $l.Left = 10; $l.Top = 20; $f.Controls.Add($l)
$t = New-Object System.Windows.Forms.TextBox; $t.Name = 'email'; $t.Left = 120; $t.Top = 18; $t.Width = 200; $f.Controls.Add($t)
$p = New-Object System.Windows.Forms.TextBox; $p.UseSystemPasswordChar = $true; $p.Text = 'hunter2'; $p.Left = 120; $p.Top = 60; $p.Width = 200; $f.Controls.Add($p)
$b = New-Object System.Windows.Forms.Button; $b.Text = 'Save'; $b.Left = 120; $b.Top = 120; $f.Controls.Add($b)
$c = New-Object System.Windows.Forms.CheckBox; $c.Text = 'Subscribe'; $c.Checked = $true; $c.Left = 10; $c.Top = 160; $f.Controls.Add($c)
$f.Add_Shown({ [Console]::Out.WriteLine('ready'); [Console]::Out.Flush() })
[System.Windows.Forms.Application]::Run($f)
`;

describe.runIf(process.platform === 'win32')('UI Automation tree of a WinForms window', { timeout: 90_000 }, () => {
  let form: ChildProcess;
  let source: DesktopSource;

  beforeAll(async () => {
    form = spawn('powershell.exe', ['-NoProfile', '-Command', FORM], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((ok, fail) => {
      const t = setTimeout(() => fail(new Error('the form did not open')), 60_000);
      form.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && (clearTimeout(t), ok()));
    });
    source = createDesktopSource({ settings: {} });
  }, 90_000);
  afterAll(async () => {
    await source?.dispose?.();
    form?.kill();
  });

  it('reads the form’s controls with roles, names, states and boxes; never the password', async () => {
    const signal = new AbortController().signal;
    const targets = await source.screen.listTargets(signal);
    const win = targets.find((t) => t.title === 'Sightline UIA Form');
    expect(win, JSON.stringify(targets.map((t) => t.title))).toBeDefined();
    const tree = await source.tree!.read(win!.id, signal);
    expect(tree).toBeDefined();
    const elements = tree!.read.elements;
    const save = elements.find((e) => e.role === 'button' && e.name === 'Save');
    expect(save?.bounds.width).toBeGreaterThan(0);
    expect(elements.find((e) => e.role === 'checkbox' && e.name === 'Subscribe')?.states.checked).toBe(true);
    const password = elements.find((e) => e.role === 'password');
    expect(password?.states.password).toBe(true);
    expect(JSON.stringify(elements)).not.toContain('hunter2');
    // Ids survive a fresh read.
    const again = await source.tree!.read(win!.id, signal);
    const id = (t: typeof tree, name: string): string | undefined => t!.read.ids[t!.read.elements.findIndex((e) => e.name === name && e.role === 'button')];
    expect(id(again, 'Save')).toBe(id(tree, 'Save'));
  });
});
