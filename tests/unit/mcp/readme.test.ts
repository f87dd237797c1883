import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, toolTable } from '../../../scripts/toolDocs.ts';

describe('the README tool table', () => {
  it('is generated from the tool definitions (run node scripts/toolDocs.ts when this fails)', () => {
    const readme = readFileSync(join(import.meta.dirname, '../../../README.md'), 'utf8');
    const current = readme.slice(readme.indexOf(BEGIN), readme.indexOf(END) + END.length);
    expect(current).toBe(toolTable());
  });
});
