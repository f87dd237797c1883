import { describe, expect, it } from 'vitest';
import { BUILTIN_SOURCES } from '../../../src/main/core/sources/builtin.ts';
import { sourceInfoOf } from '../../../src/main/core/sources/registry.ts';
import { buildSettingsSchema, parseWith } from '../../../src/main/core/settings/schema.ts';
import { buildPatch as patchOf, fieldForKey as fieldOf, fieldMessage, fieldsFor, formFrom as formOf, fromFormValue } from '../../../src/renderer/lib/settingsForm.ts';
import type { FormValues } from '../../../src/renderer/lib/settingsForm.ts';
import { isSightlineError } from '../../../src/shared/errors.ts';

// The form of a Sightline with the built-in sources, as the dashboard builds it from GET /api/sources.
const FIELDS = fieldsFor(BUILTIN_SOURCES.map(sourceInfoOf));
const schema = buildSettingsSchema(BUILTIN_SOURCES);
const parseSettings = (input: unknown) => parseWith(schema, input);
const formFrom = (settings: unknown): FormValues => formOf(settings, FIELDS);
const buildPatch = (initial: FormValues, current: FormValues) => patchOf(initial, current, FIELDS);
const fieldForKey = (key: string | undefined) => fieldOf(key, FIELDS);

/** The problems a settings parse names (none when it parses); anything but SETTINGS_INVALID is thrown on. */
function problemsOf(parse: () => unknown): { key: string; message: string }[] {
  try {
    parse();
    return [];
  } catch (e) {
    if (!isSightlineError(e) || e.code !== 'SETTINGS_INVALID') throw e;
    return e.details?.problems as { key: string; message: string }[];
  }
}

describe('settings form', () => {
  const settings = parseSettings({ input: { allowlist: ['firefox', 'example.com'] }, retention: { maxBytes: 2 * 1024 ** 3 } });

  it('edits only keys the settings schema knows', () => {
    for (const f of FIELDS) {
      const patch = buildPatch(formFrom(settings), { ...formFrom(settings), [f.key]: f.kind === 'toggle' ? !formFrom(settings)[f.key] : f.kind === 'select' ? f.options![1]!.value : f.kind === 'text' ? 'x' : '5' });
      // Every field's patch is a key the real schema knows: a value it refuses ('x' is no URL) is
      // a problem of that field's own key, never an unknown key.
      const problems = problemsOf(() => parseSettings(patch));
      for (const p of problems) expect(fieldForKey(p.key), p.key).toBe(f.key);
      expect(problems.filter((p) => /not a known setting/.test(p.message)), f.key).toEqual([]);
    }
    // And a key the schema does not know is found (the check above can fail).
    expect(problemsOf(() => parseSettings({ capture: { maxDimensions: 5 } }))).toEqual([{ key: 'capture.maxDimensions', message: expect.stringMatching(/not a known setting/) }]);
  });

  it('names every invalid key at once', () => {
    const problems = problemsOf(() => parseSettings({ capture: { maxDimension: 10, quality: 500 }, retention: { maxAgeDays: -1 }, input: { nope: true } }));
    expect(problems.map((p) => p.key).sort()).toEqual(['capture.maxDimension', 'capture.quality', 'input.nope', 'retention.maxAgeDays']);
    expect(problems.map((p) => fieldForKey(p.key)).filter(Boolean).sort()).toEqual(['capture.maxDimension', 'capture.quality', 'retention.maxAgeDays']);
  });

  it('shows effective values and sends only what changed', () => {
    const initial = formFrom(settings);
    expect(initial['input.allowlist']).toBe('firefox\nexample.com');
    expect(initial['retention.maxBytes']).toBe('2');
    expect(initial['sources.desktop.enabled']).toBe(true);
    const current = { ...initial, 'capture.maxDimension': '1568', 'input.allowlist': 'firefox\n\n  slack  \n', 'sources.android.enabled': false };
    expect(buildPatch(initial, current)).toEqual({ capture: { maxDimension: 1568 }, input: { allowlist: ['firefox', 'slack'] }, sources: { android: { enabled: false } } });
    expect(buildPatch(initial, { ...initial })).toEqual({});
  });

  it('passes a bad number through so the server names the key', () => {
    const def = FIELDS.find((f) => f.key === 'capture.maxDimension')!;
    expect(fromFormValue(def, 'lots')).toBe('lots');
    expect(fromFormValue(FIELDS.find((f) => f.key === 'retention.maxBytes')!, '1.5')).toBe(Math.round(1.5 * 1024 ** 3));
    expect(() => parseSettings({ capture: { maxDimension: fromFormValue(def, '10') } })).toThrow(/capture\.maxDimension/);
  });

  it('finds the field a server error belongs to', () => {
    expect(fieldForKey('capture.maxDimension')).toBe('capture.maxDimension');
    expect(fieldForKey('input.allowlist.2')).toBe('input.allowlist');
    expect(fieldForKey('retention')).toBe('retention.maxAgeDays');
    expect(fieldForKey('nope.key')).toBeUndefined();
    expect(fieldForKey(undefined)).toBeUndefined();
  });

  it('shortens a validation message for its field', () => {
    expect(fieldMessage('settings.json: "capture.maxDimension" is invalid (Too small: expected number to be >=64).')).toBe('Must be at least 64.');
    // The schema library's words never reach a person.
    expect(fieldMessage('settings.json: "capture.quality" is invalid (Too big: expected number to be <=100).')).toBe('Must be at most 100.');
    expect(fieldMessage('settings.json: "capture.quality" is invalid (Invalid input: expected number, received string).')).toBe('Must be a number.');
    expect(fieldMessage('settings.json: "capture.quality" is invalid (Invalid input: expected int, received number).')).toBe('Must be a whole number.');
    expect(fieldMessage('settings.json: "desktop.display" is invalid (Too small: expected string to have >=1 characters).')).toBe('Must not be empty.');
    expect(fieldMessage('settings.json: "browser.endpoint" is invalid (Invalid URL).')).toBe('Must be a web address such as http://127.0.0.1:9222.');
    expect(fieldMessage('settings.json: "capture.format" is invalid (Invalid option: expected one of "jpeg"|"webp"|"png").')).toBe('Must be one of jpeg, webp, png.');
    expect(fieldMessage('"x" is not a known setting.')).toBe('"x" is not a known setting.');
  });
});
