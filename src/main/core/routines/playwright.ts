/**
 * A browser routine as a Playwright test: each step becomes the locator Playwright itself would
 * aim with (by role and name, by label, by text, exact), each expected page a `toHaveURL`. Inputs
 * are read from the environment (`ROUTINE_<NAME>`); a secret has no default in the file.
 */
import { SightlineError } from '../../../shared/errors.ts';
import { describeRead } from './reads.ts';
import { isInputRef, type Routine, type RoutineStep, type StepAim } from './format.ts';

export function toPlaywright(r: Routine): string {
  if (r.target.source !== 'browser') throw new SightlineError('UNSUPPORTED', `Routine "${r.name}" acts on ${r.target.source}; only a browser routine is a Playwright test.`, 'Export a routine saved from a browser tab.');
  const env = (name: string): string => `ROUTINE_${name.toUpperCase()}`;
  const lines: string[] = [
    `// Exported by Sightline from routine "${r.name}" (${r.createdAt}).`,
    `import { test, expect } from '@playwright/test';`,
    '',
  ];
  for (const i of r.inputs) {
    lines.push(i.default !== undefined ? `const ${i.name} = process.env.${env(i.name)} ?? ${q(i.default)};` : `const ${i.name} = required(${q(env(i.name))});`);
  }
  if (r.inputs.some((i) => i.default === undefined)) {
    lines.push('', 'function required(name: string): string {', '  const v = process.env[name];', '  if (v === undefined) throw new Error(`Set ${name}: the routine needs it.`);', '  return v;', '}');
  }
  if (r.steps.some((s) => s.kind === 'fill_form' && (s.params.fields as { value: unknown }[]).some((f) => typeof f.value === 'string' || isInputRef(f.value)))) {
    lines[1] = `import { test, expect, type Locator } from '@playwright/test';`;
    lines.push(
      '',
      '/** A form field as fill_form fills it: a drop-down by the label of its option, anything else by its text. */',
      'async function fillField(field: Locator, value: string): Promise<void> {',
      '  if (await field.evaluate((e) => e instanceof HTMLSelectElement)) await field.selectOption({ label: value });',
      '  else await field.fill(value);',
      '}',
    );
  }
  lines.push('', `test(${q(r.description ?? r.name)}, async ({ page }) => {`);
  // The routine acts on a tab already at its page: the test opens it first unless it navigates at once.
  if (r.steps[0]?.kind !== 'navigate') lines.push(r.start ? `  await page.goto(${q(r.start)});` : `  await page.goto(${q(`${r.target.origin}/`)}); // the page the routine starts on: adjust`);
  r.steps.forEach((s, i) => {
    lines.push(`  // step ${i + 1}: ${s.kind}`);
    // Playwright answers a dialog from a handler set before the action that opens it.
    const next = r.steps[i + 1];
    if (next?.kind === 'handle_dialog') lines.push(`  page.once('dialog', (d) => d.${next.params.accept ? `accept(${typeof next.params.promptText === 'string' ? q(next.params.promptText) : ''})` : 'dismiss()'});`);
    for (const l of stepLines(s)) lines.push(`  ${l}`);
    if (s.expect?.url) lines.push(`  await expect(page).toHaveURL(new RegExp(${q(`^${escapeRegex(s.expect.url)}`)}));`);
  });
  lines.push('});', '');
  return lines.join('\n');
}

function stepLines(s: RoutineStep): string[] {
  const p = s.params;
  switch (s.kind) {
    case 'navigate':
      if (typeof p.url === 'string') return [`await page.goto(${q(p.url)});`];
      return [p.action === 'back' ? 'await page.goBack();' : p.action === 'forward' ? 'await page.goForward();' : 'await page.reload();'];
    case 'press_key':
      return [`await page.keyboard.press(${q(String(p.key))});`];
    case 'type_text': {
      const text = value(p.text);
      const out = s.aim ? [`await ${locator(s.aim)}.${p.clear ? 'fill' : 'pressSequentially'}(${text});`] : [`await page.keyboard.type(${text});`];
      if (p.submit) out.push(s.aim ? `await ${locator(s.aim)}.press('Enter');` : `await page.keyboard.press('Enter');`);
      return out;
    }
    case 'fill_form':
      return (p.fields as { label: string; value: unknown }[]).map((f) => {
        const at = `page.getByLabel(${q(f.label)}, { exact: true })`;
        if (typeof f.value === 'boolean') return `await ${at}.setChecked(${String(f.value)});`;
        // A list is the files a file input was given; text is typed, or is the label of the option chosen.
        if (Array.isArray(f.value)) return `await ${at}.setInputFiles([${f.value.map(value).join(', ')}]);`;
        return `await fillField(${at}, ${value(f.value)});`;
      });
    case 'select_option': {
      const chosen = p.label ?? p.value;
      return [`await ${locator(s.aim!)}.selectOption(${JSON.stringify(Array.isArray(chosen) ? chosen : [chosen])});`];
    }
    case 'set_checked':
      return [`await ${locator(s.aim!)}.setChecked(${String(p.checked)});`];
    case 'hover':
      return [`await ${locator(s.aim!)}.hover();`];
    case 'drag':
      return [`await ${locator(s.aim!)}.dragTo(${locator(s.to!)});`];
    case 'handle_dialog':
      return ['// answered by the handler set before the step that opened it'];
    case 'wait_for':
      if (s.params.networkIdle) return [`await page.waitForLoadState('networkidle');`];
      if (typeof p.text !== 'string') return [`// ${describeRead(s)}: a tree query, with no Playwright locator to match it`];
      return [p.gone ? `await expect(page.getByText(${q(p.text)})).toHaveCount(0);` : `await expect(page.getByText(${q(p.text)}).first()).toBeVisible();`];
    case 'find_text':
      return [`await expect(page.getByText(${p.regex ? `new RegExp(${q(String(p.text))})` : q(String(p.text))}).first()).toBeVisible();`];
    case 'get_ui_tree':
      return [`// ${describeRead(s)}: what the routine hands back, nothing to check`];
    case 'launch_app':
      return [`// launch_app ${String(p.package)}: an Android step, with nothing to do in a page`];
    case 'click': {
      const opts = [p.button && p.button !== 'left' ? `button: ${q(String(p.button))}` : '', typeof p.clicks === 'number' && p.clicks > 1 ? `clickCount: ${p.clicks}` : ''].filter(Boolean);
      return [`await ${locator(s.aim!)}.click(${opts.length ? `{ ${opts.join(', ')} }` : ''});`];
    }
  }
}

function locator(a: StepAim): string {
  if (a.purpose === 'field') return `page.getByLabel(${q(a.name)}, { exact: true })`;
  if (a.role) return `page.getByRole(${q(a.role)}, { name: ${q(a.name)}, exact: true })`;
  return `page.getByText(${q(a.name)}, { exact: true })`;
}

function value(v: unknown): string {
  return isInputRef(v) ? v.input : q(String(v));
}

function q(s: string): string {
  return `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
