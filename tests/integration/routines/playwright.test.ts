/**
 * A routine exported as a Playwright test runs: an agent's run on a real Chromium page is
 * recorded through MCP, saved, exported with `sightline routine export --playwright`, and the
 * file is run by `playwright test` (the installed @playwright/test, on the system Chromium,
 * the password given in the environment). It passes against the page it was recorded on, and
 * fails against the page whose button was relabelled.
 */
import { spawn } from 'node:child_process';
import { existsSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, isRoot } from '../../fixtures/browser/harness.ts';
import { startHarness, tempDir, textOf, type Harness } from '../../support/mcpHarness.ts';
import { open, type Ctx } from '../browser/kit.ts';

const ROOT = join(import.meta.dirname, '../../..');
const CLI = join(ROOT, 'src/cli/index.ts');
/** The runner @playwright/test installs (a devDependency: CI's `npm ci` brings it, and no browser). */
const PLAYWRIGHT = join(ROOT, 'node_modules/.bin/playwright');
const EMAIL = 'ada@example.org';
const PASSWORD = 'correct-horse-42';

let c: Ctx;
let h: Harness;
let dir: string;

interface Ran {
  code: number | null;
  out: string;
}

function run(cmd: string, args: string[], env: Record<string, string>, cwd: string): Promise<Ran> {
  return new Promise((done) => {
    const p = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (out += d.toString()));
    p.once('exit', (code) => done({ code, out }));
  });
}

/** `playwright test` on one spec in `dir`: headless system Chromium, short waits, never a browser download. */
function playwrightTest(spec: string, env: Record<string, string>): Promise<Ran> {
  return run(PLAYWRIGHT, ['test', spec, '--config', join(dir, 'playwright.config.mjs')], { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', PLAYWRIGHT_BROWSERS_PATH: join(dir, 'no-browsers'), CI: '1', ...env }, dir);
}

beforeAll(async () => {
  c = await open('routines/order.html');
  dir = tempDir('sightline-playwright-');
  h = await startHarness({ sources: [c.source], settings: { sources: { browser: { enabled: true } }, files: { uploadRoots: [dir] } } });
  // The spec imports @playwright/test: it resolves through the project's node_modules.
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const config = {
    testDir: '.',
    timeout: 20_000,
    workers: 1,
    reporter: 'line',
    use: { headless: true, actionTimeout: 3000, navigationTimeout: 10_000, launchOptions: { executablePath: CHROMIUM, args: isRoot ? ['--no-sandbox'] : [] } },
  };
  writeFileSync(join(dir, 'playwright.config.mjs'), `export default ${JSON.stringify(config, null, 2)};\n`);
});

afterAll(async () => {
  await h?.close();
  await c?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a routine exported as a Playwright test', () => {
  it('passes with `playwright test` against the page it was recorded on, and fails where the button was relabelled', { timeout: 120_000 }, async () => {
    expect(existsSync(PLAYWRIGHT), 'npm ci installs @playwright/test').toBe(true);
    for (const [tool, args] of [
      ['capture', {}],
      ['type_text', { field: 'Email', text: EMAIL }],
      ['type_text', { field: 'Password', text: PASSWORD }],
      ['click', { text: 'Place order' }],
    ] as const) {
      const r = await h.call(tool, { target: c.target, ...args });
      expect(r.isError, textOf(r)).toBeFalsy();
    }
    const saved = await h.call('save_routine', { name: 'order' });
    expect(saved.isError, textOf(saved)).toBeFalsy();

    const exported = await run(process.execPath, [CLI, 'routine', 'export', 'order', '--playwright', '--data-dir', h.dataDir], {}, ROOT);
    expect(exported.code, exported.out).toBe(0);
    const spec = exported.out;
    // It opens the page the run started on, not just its origin.
    expect(spec).toContain(`await page.goto('${c.srv.url('routines/order.html')}');`);
    expect(spec).not.toContain(PASSWORD);
    writeFileSync(join(dir, 'order.spec.ts'), spec);

    const missing = await playwrightTest('order.spec.ts', {});
    expect(missing.code, missing.out).not.toBe(0);
    expect(missing.out).toContain('Set ROUTINE_PASSWORD');

    const passed = await playwrightTest('order.spec.ts', { ROUTINE_PASSWORD: PASSWORD });
    expect(passed.code, passed.out).toBe(0);
    expect(passed.out).toMatch(/\b1 passed\b/);

    // The same test on the page whose "Place order" button now says "Delete account".
    writeFileSync(join(dir, 'relabelled.spec.ts'), spec.replace('/routines/order.html', '/routines/relabelled.html'));
    const failed = await playwrightTest('relabelled.spec.ts', { ROUTINE_PASSWORD: PASSWORD });
    expect(failed.code, failed.out).toBe(1);
    expect(failed.out).toMatch(/\b1 failed\b/);
    expect(failed.out).toMatch(/getByRole\('button', \{ name: 'Place order', exact: true \}\)/);
  });

  it('fills a form as fill_form did: text, a drop-down by its option, a checkbox and a file', { timeout: 120_000 }, async () => {
    const cv = join(dir, 'cv.pdf');
    writeFileSync(cv, '%PDF-1.4\n');
    await c.page.goto(c.srv.url('economy/form.html'));
    const before = h.core.activity.list({ limit: 1000 }).length;
    for (const [tool, args] of [
      ['capture', {}],
      ['fill_form', { fields: [{ label: 'Full name', value: 'Ada Lovelace' }, { label: 'Country', value: 'Portugal' }, { label: 'Send me the newsletter', value: true }, { label: 'Attachment', value: [cv] }] }],
      ['click', { text: 'Send application' }],
    ] as const) {
      const r = await h.call(tool, { target: c.target, ...args });
      expect(r.isError, textOf(r)).toBeFalsy();
    }
    const saved = await h.call('save_routine', { name: 'apply', fromAction: before + 1, toAction: before + 2 });
    expect(textOf(saved)).toMatch(/inputs: full_name, country/);
    const exported = await run(process.execPath, [CLI, 'routine', 'export', 'apply', '--playwright', '--data-dir', h.dataDir], {}, ROOT);
    expect(exported.code, exported.out).toBe(0);
    expect(exported.out).toContain(`await page.getByLabel('Attachment', { exact: true }).setInputFiles(['${cv}']);`);
    // The page's own record of what was sent, checked after the routine's last step.
    const check = `  expect(await page.evaluate(() => JSON.stringify((window as unknown as { state: unknown }).state))).toBe(${JSON.stringify(JSON.stringify({ submits: [{ name: 'Ada Lovelace', country: 'pt', news: true, files: ['cv.pdf'] }] }))});\n});`;
    writeFileSync(join(dir, 'apply.spec.ts'), exported.out.replace(/\}\);\n$/, `${check}\n`));
    const passed = await playwrightTest('apply.spec.ts', { ROUTINE_FULL_NAME: 'Ada Lovelace', ROUTINE_COUNTRY: 'Portugal' });
    expect(passed.code, passed.out).toBe(0);
    expect(passed.out).toMatch(/\b1 passed\b/);
  });
});
