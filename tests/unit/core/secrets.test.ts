/** Secrets in text (the finder the page and Node share), the mask settings, and filled boxes in pixels. */
import { describe, expect, it } from 'vitest';
import { redactItems, redactNodes } from '../../../src/main/core/frames/privacy.ts';
import { MASK_COLOUR, maskPixels } from '../../../src/main/core/image/pipeline.ts';
import { redactParams } from '../../../src/main/core/actions/redact.ts';
import { buildSettingsSchema, parseWith } from '../../../src/main/core/settings/schema.ts';
import { blankSecrets, secretFinder } from '../../../src/main/core/util/secrets.ts';
import { DEFAULT_MASK_PATTERNS } from '../../../src/shared/settings.ts';

const P = DEFAULT_MASK_PATTERNS;
const found = (t: string): string[] => secretFinder(P)(t).map(([a, b]) => t.slice(a, b));

describe('the secret finder', () => {
  it('finds Luhn-valid card numbers, grouped or not, and leaves numbers that fail the check', () => {
    expect(found('Card 4111 1111 1111 1111 on file')).toEqual(['4111 1111 1111 1111']);
    expect(found('5555-5555-5555-4444')).toEqual(['5555-5555-5555-4444']);
    expect(found('378282246310005')).toEqual(['378282246310005']);
    expect(found('Order 4111 1111 1111 1112 shipped')).toEqual([]);
    expect(found('Call 1234567890123456 now')).toEqual([]);
    // Longer digit runs are not card numbers; a card followed by a year still is.
    expect(found('41111111111111111111111')).toEqual([]);
    expect(found('4111 1111 1111 1111 2031')).toEqual(['4111 1111 1111 1111']);
  });

  it('finds API keys with well-known prefixes, not words that merely start like them', () => {
    const keys = ['sk-proj-Zq8Wm3Lp0Xv7Tn2Rb5Yc9Hd4', 'ghp_abcdefghijklmnopqrstuvwxyz0123456789', 'github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'AKIAIOSFODNN7EXAMPLE', 'xoxb-123456789012-abcdefghij', 'glpat-abcdefghij0123456789', 'sk_live_abcdefghij0123456789'];
    for (const k of keys) expect(found(`token: ${k} end`), k).toEqual([k]);
    expect(found('task-list sk-short risk-assessment')).toEqual([]);
  });

  it('blanks secrets with a fixed width, whatever their length', () => {
    expect(blankSecrets('pay 4111 1111 1111 1111 now', P)).toBe('pay •••• now');
    expect(blankSecrets('nothing here', P)).toBe('nothing here');
  });
});

describe('the privacy settings', () => {
  const schema = buildSettingsSchema([]);
  it('default to masking on with the built-in patterns, and refuse a pattern that is not one', () => {
    expect(parseWith(schema, {}).privacy).toEqual({ masking: true, maskPatterns: [...DEFAULT_MASK_PATTERNS] });
    expect(() => parseWith(schema, { privacy: { maskPatterns: ['(unclosed'] } })).toThrow(/privacy\.maskPatterns\.0/);
    expect(() => parseWith(schema, { privacy: { maskPatterns: ['x*'] } })).toThrow(/privacy\.maskPatterns/);
    expect(parseWith(schema, { privacy: { masking: false, maskPatterns: ['card-number', 'ACME-[0-9]{6}'] } }).privacy.maskPatterns).toHaveLength(2);
  });
});

describe('redaction', () => {
  const spec = { patterns: P };
  it('drops secret fields’ values and blanks secrets in names, and keeps what is not secret', () => {
    const nodes = redactNodes(
      [
        { id: '1', role: 'textbox', name: 'Password', value: '••••••', bounds: { x: 0, y: 0, width: 1, height: 1 }, attributes: { type: 'password' } },
        { id: '2', role: 'textbox', name: 'Card number', value: '5555 5555 5555 4444', bounds: { x: 0, y: 0, width: 1, height: 1 }, attributes: { autocomplete: 'cc-number' } },
        { id: '3', role: 'android.widget.EditText', name: '••••', bounds: { x: 0, y: 0, width: 1, height: 1 }, attributes: { password: 'true', text: '••••' } },
        { id: '4', role: 'text', name: 'Card 4111 1111 1111 1111', bounds: { x: 0, y: 0, width: 1, height: 1 } },
        { id: '5', role: 'text', name: 'Order 4111 1111 1111 1112', bounds: { x: 0, y: 0, width: 1, height: 1 } },
      ],
      spec,
    );
    expect(nodes.map((n) => [n.name, n.value, n.password])).toEqual([
      ['Password', undefined, true],
      ['Card number', undefined, undefined],
      ['password field', undefined, true],
      ['Card ••••', undefined, undefined],
      ['Order 4111 1111 1111 1112', undefined, undefined],
    ]);
    expect(redactNodes(nodes, undefined)).toEqual(nodes);
  });

  it('blanks a card read by OCR as four words, word by word', () => {
    const b = { x: 0, y: 0, width: 1, height: 1 };
    const [item] = redactItems([{ text: 'Card 4111 1111 1111 1111 ok', bounds: b, words: ['Card', '4111', '1111', '1111', '1111', 'ok'].map((text) => ({ text, bounds: b })) }], spec);
    expect(item!.text).toBe('Card •••• ok');
    expect(item!.words!.map((w) => w.text)).toEqual(['Card', '••••', '••••', '••••', '••••', 'ok']);
  });

  it('logs no secret typed anywhere, and no text typed into a known password field', () => {
    const settings = { privacy: { masking: true, maskPatterns: [...P] } };
    expect(redactParams({ text: 'pay 4111 1111 1111 1111' }, { text: 'pay 4111 1111 1111 1111' }, settings)).toEqual({ text: 'pay ••••' });
    expect(redactParams({ text: 'hunter2' }, { text: 'hunter2' }, settings, true)).toEqual({ text: '[7 characters for a password field]' });
  });
});

describe('maskPixels', () => {
  it('fills each box (clamped to the image) with the mask colour, on a copy', async () => {
    const data = Buffer.alloc(4 * 3 * 3, 255);
    const out = await maskPixels({ kind: 'raw', data, width: 4, height: 3, channels: 3 }, [{ x: 2.5, y: -1, width: 9, height: 2 }]);
    expect(data.every((v) => v === 255)).toBe(true);
    const px = (x: number, y: number): number[] => [...(out as { data: Buffer }).data.subarray((y * 4 + x) * 3, (y * 4 + x) * 3 + 3)];
    expect(px(2, 0)).toEqual([MASK_COLOUR.r, MASK_COLOUR.g, MASK_COLOUR.b]);
    expect(px(3, 0)).toEqual([MASK_COLOUR.r, MASK_COLOUR.g, MASK_COLOUR.b]);
    expect(px(1, 0)).toEqual([255, 255, 255]);
    expect(px(2, 1)).toEqual([255, 255, 255]);
  });
});
