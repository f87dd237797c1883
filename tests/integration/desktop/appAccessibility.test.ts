/**
 * A Chromium window's controls in the desktop tree: Debian's Chromium in a real window on Xvfb +
 * openbox with a real AT-SPI bus. Started as the menu starts it, it shows only its frame (and a
 * Qt 6 app nothing); with `desktop.appAccessibility` on, Sightline's launcher starts it with
 * accessibility on and get_ui_tree, click by text and node, and type_text by placeholder and by
 * label reach the page as they reach a GTK form, and a Qt 6 app started after shows its controls. Turning the setting off removes the launcher and the session status
 * Sightline set. The desktop source is the real module, configured through the settings store.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { desktopModule } from '../../../src/main/core/sources/desktop/module.ts';
import type { HealthCheck } from '../../../src/shared/frame.ts';
import { startA11y, startQtApp, type A11ySession } from '../../support/a11y.ts';
import { serveMailPage, startChromiumWindow, type ChromiumWindow, type MailPage } from '../../support/chromiumWindow.ts';
import { startHarness, textOf, type Harness } from '../../support/mcpHarness.ts';
import { startXvfb, type XDisplay } from '../../support/xvfb.ts';

interface Node {
  id: string;
  role: string;
  name: string;
  value?: string;
  attributes?: Record<string, string>;
}

describe('apps that show their controls only when asked: a Chromium window and a Qt 6 app (AT-SPI)', { timeout: 180_000 }, () => {
  let x: XDisplay;
  let a: A11ySession;
  let page: MailPage;
  let h: Harness;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const windows: ChromiumWindow[] = [];

  beforeAll(async () => {
    x = await startXvfb('1280x800');
    a = await startA11y(x);
    page = await serveMailPage('Mail Probe');
    home = mkdtempSync(join(tmpdir(), 'sightline-chromium-home-'));
    // The session Sightline runs in: its bus, and a home of its own for the launchers it writes.
    env = { PATH: process.env.PATH, HOME: home, DBUS_SESSION_BUS_ADDRESS: a.env.DBUS_SESSION_BUS_ADDRESS, XDG_DATA_DIRS: '/usr/share' };
    h = await startHarness({ modules: [desktopModule], settings: { desktop: { display: x.display } }, env });
  }, 120_000);
  afterAll(async () => {
    for (const w of windows) await w.close();
    await h?.close();
    await page?.close();
    await a?.stop();
    await x?.stop();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  function ok(r: CallToolResult): CallToolResult {
    expect(r.isError, textOf(r)).toBeFalsy();
    return r;
  }

  async function nodes(target: string): Promise<Node[]> {
    return (ok(await h.call('get_ui_tree', { target })).structuredContent as { nodes: Node[] }).nodes;
  }

  function named(list: Node[], role: string, name: string): Node {
    const n = list.find((x) => x.role === role && x.name === name);
    if (!n) throw new Error(`no ${role} “${name}” in ${JSON.stringify(list.map((x) => [x.role, x.name]).slice(0, 80))}`);
    return n;
  }

  async function check(): Promise<HealthCheck> {
    const desktop = (await h.core.sources.health()).find((s) => s.source === 'desktop')!;
    const c = desktop.checks?.find((c) => c.id === 'app-accessibility');
    if (!c) throw new Error(`no app-accessibility check in ${JSON.stringify(desktop)}`);
    return c;
  }

  function busStatus(): string {
    const r = spawnSync('dbus-send', ['--session', '--print-reply=literal', '--dest=org.a11y.Bus', '/org/a11y/bus', 'org.freedesktop.DBus.Properties.Get', 'string:org.a11y.Status', 'string:IsEnabled'], { env: a.env, encoding: 'utf8' });
    // "variant       boolean true": the value is the last word.
    return r.stdout.trim().split(/\s+/).pop() ?? '';
  }

  const launcher = (): string => join(home, '.local/share/applications/chromium.desktop');

  it('off: the setting is offered in Setup, and Chromium as the menu starts it shows nothing of its page, a Qt 6 app nothing at all', async () => {
    const c = await check();
    expect(c).toMatchObject({ status: 'warning', setting: { key: 'desktop.appAccessibility', on: false } });
    expect(c.setting?.effect).toMatch(/--force-renderer-accessibility/);
    expect(c.detail).toMatch(/Chromium/);
    const plain = await startChromiumWindow(a.env, { url: page.url, title: 'Mail Probe', geometry: '700x500+560+40' });
    windows.push(plain);
    const r = await h.call('get_ui_tree', { target: `desktop:window:${plain.windowId}` });
    // No page inside: either no tree at all or the frame alone.
    if (!r.isError) expect(JSON.stringify(r.structuredContent)).not.toContain('Search mail');
    await plain.close();
    // A Qt 6 app started now is not on the accessibility bus at all.
    const qt = await startQtApp(a, { title: 'Qt Before', geometry: '400x220+800+500' });
    try {
      expect(textOf(await h.call('get_ui_tree', { target: `desktop:window:${qt.windowId}` }))).toMatch(/^UNSUPPORTED: The app of .* exposes no accessibility tree.*Start these apps with accessibility on/s);
    } finally {
      await qt.close();
    }
  });

  it('on: Chromium started from Sightline’s launcher shows its page; click and type by text and node reach it', async () => {
    h.core.settings.update({ desktop: { appAccessibility: true } });
    const c = await check();
    expect(c.setting?.on).toBe(true);
    expect(c.detail).toMatch(/launchers for Chromium/);
    const text = readFileSync(launcher(), 'utf8');
    expect(text).toMatch(/^X-Sightline-Accessibility=true$/m);
    const exec = /^Exec=(.*)$/m.exec(text)![1]!;
    expect(exec).toBe('env ACCESSIBILITY_ENABLED=1 /usr/bin/chromium --force-renderer-accessibility %U');
    expect(busStatus()).toBe('true');

    const w = await startChromiumWindow(a.env, { exec, url: page.url, title: 'Mail Probe', geometry: '900x640+40+40' });
    windows.push(w);
    const target = `desktop:window:${w.windowId}`;
    ok(await h.call('capture', { target, maxDimension: 600 }));
    let list: Node[] = [];
    // The page's tree arrives shortly after the window maps.
    for (let i = 0; i < 40 && !list.some((n) => n.name === 'Send'); i++) {
      list = await nodes(target);
      if (!list.some((n) => n.name === 'Send')) await new Promise((r) => setTimeout(r, 250));
    }
    named(list, 'heading', 'Inbox');
    const send = named(list, 'button', 'Send');
    named(list, 'textbox', 'Search mail');
    named(list, 'textbox', 'To');

    const clicked = page.next((e) => e.event === 'click' && e.button === 'Send');
    const byText = ok(await h.call('click', { target, text: 'Send' }));
    await clicked;
    expect(textOf(byText)).not.toMatch(/OCR/);
    const again = page.next((e) => e.event === 'click' && e.button === 'Send');
    const byNode = ok(await h.call('click', { target, node: send.id }));
    await again;
    expect((byNode.structuredContent as { hit?: { role: string; name: string } }).hit).toMatchObject({ role: 'button', name: 'Send' });

    const searched = page.next((e) => e.event === 'text' && e.field === 'search' && e.value === 'invoices');
    const typed = ok(await h.call('type_text', { target, field: 'Search mail', text: 'invoices' }));
    await searched;
    expect(textOf(typed)).not.toMatch(/OCR/);
    const addressed = page.next((e) => e.event === 'text' && e.field === 'to' && e.value === 'ada@example.org');
    ok(await h.call('type_text', { target, field: 'To', text: 'ada@example.org' }));
    await addressed;
    // Read back from the tree: the values the page holds.
    const after = await nodes(target);
    expect(named(after, 'textbox', 'Search mail').value).toBe('invoices');
    expect(named(after, 'textbox', 'To').value).toBe('ada@example.org');
    // The heading's text is one place, not two (its text leaf repeats it).
    const found = ok(await h.call('find_text', { target, text: 'Inbox' })).structuredContent as { via: string; matches: unknown[] };
    expect(found.via).toBe('tree');
    expect(found.matches).toHaveLength(1);
  });

  it('on: a Chromium started without the launcher shows only its frame, which counts as no tree (text is read by OCR)', async () => {
    const plain = await startChromiumWindow(a.env, { url: page.url, title: 'Mail Probe', geometry: '700x500+560+40' });
    try {
      const target = `desktop:window:${plain.windowId}`;
      expect(textOf(await h.call('get_ui_tree', { target }))).toMatch(/^UNSUPPORTED: The app of .* exposes no accessibility tree/);
      const found = ok(await h.call('find_text', { target, text: 'Inbox' })).structuredContent as { via: string };
      expect(found.via).toBe('ocr');
    } finally {
      await plain.close();
    }
  });

  it('on: a Qt 6 app started after it shows its controls (the session status it set)', async () => {
    const qt = await startQtApp(a, { title: 'Qt After', geometry: '400x220+800+500' });
    try {
      const target = `desktop:window:${qt.windowId}`;
      ok(await h.call('capture', { target }));
      const list = await nodes(target);
      named(list, 'button', 'Send');
      const pressed = qt.next((e) => e.event === 'click' && e.button === 'Send');
      ok(await h.call('click', { target, text: 'Send' }));
      await pressed;
      const typed = qt.next((e) => e.event === 'text' && e.value === 'Hello');
      ok(await h.call('type_text', { target, field: 'Subject', text: 'Hello' }));
      await typed;
    } finally {
      await qt.close();
    }
  });

  it('off again: Sightline’s launcher is removed and the session status it set is turned back off', async () => {
    h.core.settings.update({ desktop: { appAccessibility: false } });
    const c = await check();
    expect(c.setting?.on).toBe(false);
    expect(existsSync(launcher())).toBe(false);
    expect(busStatus()).toBe('false');
  });
});
