/**
 * Every error an agent or the dashboard can get says what to do next (README: "Errors … end with
 * a hint"). Checked on the source: every `new SightlineError(code, message, hint, …)` in src/
 * gives a hint argument, and it is not empty or `undefined`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../../..');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

function missingHints(path: string): string[] {
  const sf = ts.createSourceFile(path, readFileSync(path, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isNewExpression(n) && n.expression.getText(sf) === 'SightlineError') {
      const hint = n.arguments?.[2];
      const empty = !hint || hint.kind === ts.SyntaxKind.UndefinedKeyword || hint.getText(sf) === 'undefined' || (ts.isStringLiteral(hint) && hint.text.trim() === '');
      if (empty) out.push(`${relative(ROOT, path)}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

describe('error hints', () => {
  it('every SightlineError in src/ is given a hint', () => {
    const missing = files(join(ROOT, 'src')).flatMap(missingHints);
    expect(missing).toEqual([]);
  });

  it('the check can fail', () => {
    const sf = join(ROOT, 'tests/unit/core/hints.fixture.ts.txt');
    expect(missingHints(sf)).toHaveLength(2);
  });
});
