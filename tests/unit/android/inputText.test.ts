import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adbKeyboardCommand, batchCommands, planInputText, shellQuote, stepCommand, type TextStep } from '../../../src/main/core/sources/android/inputText.ts';
import { FakeAdbDevice, androidInputText } from '../../support/fakeAdbDevice.ts';

const TRICKY = [
  `it's "quoted" $HOME \`id\` $(id) ; & | > < * ? ~ # ! \\ end`,
  '100%s 50% done %%s %',
  "''''\"\"\"",
  ' leading and trailing ',
  '-n -e --help',
  'tab\there\nnew line\r\nwindows',
];

/**
 * What the device ends up with: the real /bin/sh parses each line (POSIX quoting, as the
 * device's mksh does), a stand-in `input` hands its argument to Android's own `%s` rule.
 */
function typedByRealShell(steps: TextStep[]): string {
  const lines = batchCommands(steps.map(stepCommand));
  let typed = '';
  for (const line of lines) {
    const script = `input() { if [ "$1" = text ]; then printf 'T%s\\0' "$2"; else printf 'K%s\\0' "$2"; fi; }; ${line}`;
    const r = spawnSync('/bin/sh', ['-c', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    for (const item of r.stdout.split('\0').filter(Boolean)) {
      typed += item[0] === 'T' ? androidInputText(item.slice(1)) : item.slice(1) === '66' ? '\n' : '\t';
    }
  }
  return typed;
}

const normalise = (s: string): string => s.replace(/\r\n?/g, '\n');

describe('planInputText', () => {
  it('sends spaces as %s and splits a literal "%s" across two calls', () => {
    expect(planInputText('a b').steps).toEqual([{ kind: 'text', arg: 'a%sb' }]);
    expect(planInputText('50%s').steps).toEqual([{ kind: 'text', arg: '50%' }, { kind: 'text', arg: 's' }]);
    expect(planInputText('100% sure').steps).toEqual([{ kind: 'text', arg: '100%%ssure' }]);
  });

  it('turns newlines and tabs into ENTER and TAB', () => {
    expect(planInputText('a\nb\r\nc\td').steps).toEqual([
      { kind: 'text', arg: 'a' },
      { kind: 'key', code: 66 },
      { kind: 'text', arg: 'b' },
      { kind: 'key', code: 66 },
      { kind: 'text', arg: 'c' },
      { kind: 'key', code: 61 },
      { kind: 'text', arg: 'd' },
    ]);
  });

  it('names what input text cannot carry, and control characters', () => {
    expect(planInputText('héllo 😀 ok')).toMatchObject({ unsupported: ['é', '😀'], invalid: [] });
    expect(planInputText('bell\x07')).toMatchObject({ unsupported: [], invalid: ['\x07'] });
  });

  it('keeps each call short', () => {
    const steps = planInputText('x'.repeat(2500)).steps;
    expect(steps.map((s) => (s.kind === 'text' ? s.arg.length : 0))).toEqual([1000, 1000, 500]);
    for (const line of batchCommands(steps.map(stepCommand))) expect(line.length).toBeLessThanOrEqual(3000);
  });
});

describe('shellQuote', () => {
  it('survives the real sh for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }).map((s) => s.replace(/\0/g, '')), (s) => {
        const r = spawnSync('/bin/sh', ['-c', `printf '%s' ${shellQuote(s)}`], { encoding: 'utf8' });
        expect(r.stdout).toBe(s);
      }),
      { numRuns: 60 },
    );
  });
});

describe('typing exactly', () => {
  it.each(TRICKY)('types %j exactly through the real sh and Android\'s percent-s rule', (text) => {
    const plan = planInputText(text);
    expect(plan.unsupported).toEqual([]);
    expect(typedByRealShell(plan.steps)).toBe(normalise(text));
  });

  it('types any printable ASCII, newline and tab exactly (property)', () => {
    const ascii = fc.string({ unit: fc.constantFrom(...' %s\'"\\$`;&|<>*?#!~()\n\tabcXYZ019-'.split('')), maxLength: 30 });
    fc.assert(
      fc.property(ascii, (text) => {
        expect(typedByRealShell(planInputText(text).steps)).toBe(text);
      }),
      { numRuns: 80 },
    );
  });

  describe('through the fake device shell', () => {
    let device: FakeAdbDevice;
    beforeAll(async () => {
      device = await FakeAdbDevice.start({ prerender: false });
    });
    afterAll(() => device.close());

    it.each(TRICKY)('%j', async (text) => {
      device.inputs.length = 0;
      for (const line of batchCommands(planInputText(text).steps.map(stepCommand))) {
        expect((await device.run(line)).rc).toBe(0);
      }
      const typed = device.inputs.map((i) => (i.kind === 'text' ? i.text : i.kind === 'key' ? (i.code === 66 ? '\n' : '\t') : '?')).join('');
      expect(typed).toBe(normalise(text));
    });

    it('would lose unquoted metacharacters (the check can fail)', async () => {
      device.inputs.length = 0;
      await device.run('input text it%sis%s$HOME');
      expect(device.inputs).toEqual([{ kind: 'text', text: 'it is ', via: 'input' }]);
    });
  });

  it('sends any text to ADB Keyboard as base64', () => {
    const cmd = adbKeyboardCommand('héllo 😀\n');
    const b64 = /--es msg '?([A-Za-z0-9+/=]+)'?$/.exec(cmd)![1]!;
    expect(Buffer.from(b64, 'base64').toString('utf8')).toBe('héllo 😀\n');
  });
});
