/** One key-combination grammar for every source; what one refuses, all refuse. */
import { describe, expect, it } from 'vitest';
import { SightlineError } from '../../../src/shared/errors.ts';
import { splitCombo } from '../../../src/main/core/util/keyCombo.ts';
import { parseKeys } from '../../../src/main/core/sources/android/keys.ts';
import { parseKeyCombo } from '../../../src/main/core/sources/browser/keys.ts';
import { parseCombo } from '../../../src/main/core/sources/desktop/keys.ts';

const KNOWN = new Set(['LeftControl', 'LeftShift', 'LeftAlt', 'LeftSuper', 'Return', 'A', 'B', 'Tab']);
const parsers: [string, (k: string) => unknown][] = [
  ['browser', parseKeyCombo],
  ['desktop', (k) => parseCombo(k, KNOWN, 'linux')],
  ['android', parseKeys],
];

function refusal(parse: (k: string) => unknown, key: string): SightlineError {
  try {
    parse(key);
  } catch (e) {
    return e as SightlineError;
  }
  throw new Error(`"${key}" was accepted`);
}

describe('the key-combination grammar', () => {
  it('splits modifiers from the one key, with aliases and the plus key', () => {
    expect(splitCombo('Ctrl+Shift+ArrowLeft')).toEqual({ modifiers: ['Control', 'Shift'], key: 'ArrowLeft' });
    expect(splitCombo('cmd + a')).toEqual({ modifiers: ['Meta'], key: 'a' });
    expect(splitCombo('Control++')).toEqual({ modifiers: ['Control'], key: '+' });
    expect(splitCombo('+')).toEqual({ modifiers: [], key: '+' });
    expect(splitCombo(' ')).toEqual({ modifiers: [], key: ' ' });
    expect(splitCombo('Control+Shift')).toEqual({ modifiers: ['Control'], key: 'Shift' });
  });

  for (const key of ['a+b', '+Control', 'Control+', 'Control++a', 'A+Control+Tab', '', 'x'.repeat(101)]) {
    it(`every source refuses ${JSON.stringify(key.slice(0, 12))} the same way`, () => {
      const answers = parsers.map(([source, parse]) => {
        const e = refusal(parse, key);
        expect(e, source).toBeInstanceOf(SightlineError);
        expect(e.code, source).toBe('INVALID_ARGUMENT');
        expect(e.hint, source).toBeTruthy();
        return e.message;
      });
      expect(new Set(answers).size, answers.join(' | ')).toBe(1);
    });
  }

  it('never takes a name from Object.prototype for a key', () => {
    for (const key of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'Control+constructor']) {
      for (const [source, parse] of parsers) expect(refusal(parse, key).message, `${source} ${key}`).toMatch(/^Unknown key/);
    }
  });
});
