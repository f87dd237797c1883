/**
 * `npm run bench [section…]`: runs the benchmark sections (bench/<name>.bench.ts) one
 * after another and writes docs/benchmarks.md. Each figure is a ratio against a floor
 * or a peer measured in the same run: these machines are shared and noisy.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { basename, join } from 'node:path';
import type { BenchSection } from './types.ts';

const dir = import.meta.dirname;
const out = join(dir, '..', 'docs', 'benchmarks.md');
const wanted = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.includes(basename(f, '.bench.ts')))
  .sort();

/** Sections already in the file, so running one section keeps the others. */
function previousSections(): Map<string, string> {
  const map = new Map<string, string>();
  if (!existsSync(out)) return map;
  const parts = readFileSync(out, 'utf8').split(/^(?=## )/m).slice(1);
  for (const p of parts) map.set(p.slice(3, p.indexOf('\n')).trim(), p.trimEnd());
  return map;
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return n.toFixed(0);
  if (Math.abs(n) >= 10) return n.toFixed(1);
  return n.toFixed(2);
}

function render(s: BenchSection, file: string): string {
  const lines = [`## ${s.title}`, '', `_\`bench/${file}\`, run ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC_`, '', '| metric | value | ratio | against | target | pass |', '|---|---:|---:|---|---|:-:|'];
  for (const r of s.rows) {
    lines.push(`| ${r.metric} | ${fmt(r.value)} ${r.unit} | ${r.ratio === undefined ? '' : `${fmt(r.ratio)}×`} | ${r.against ?? ''} | ${r.target ?? ''} | ${r.pass === undefined ? '' : r.pass ? '✅' : '❌'} |`);
  }
  if (s.notes?.length) lines.push('', ...s.notes.map((n) => `- ${n}`));
  return lines.join('\n');
}

const sections = previousSections();
let failed = 0;
for (const file of files) {
  process.stderr.write(`bench: ${file}\n`);
  try {
    const mod = (await import(join(dir, file))) as { default: () => Promise<BenchSection | BenchSection[]> };
    // A file may measure more than one section (the desktop: capture, and the accessibility tree).
    for (const section of [await mod.default()].flat()) {
      sections.set(section.title, render(section, file));
      for (const r of section.rows) process.stderr.write(`  ${r.metric}: ${fmt(r.value)} ${r.unit}${r.ratio !== undefined ? ` (${fmt(r.ratio)}× ${r.against ?? ''})` : ''}${r.pass === false ? '  ✗ target ' + r.target : ''}\n`);
    }
  } catch (e) {
    failed++;
    process.stderr.write(`  failed: ${(e as Error)?.stack ?? String(e)}\n`);
  }
}
const header = `# Benchmarks\n\nWritten by \`npm run bench\` (one section: \`npm run bench -- <name>\`). Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}. Ratios compare against a floor or a peer measured in the same run; absolute times drift on these shared machines.\n`;
writeFileSync(out, `${header}\n${[...sections.values()].join('\n\n')}\n`);
process.stderr.write(`bench: wrote ${out}\n`);
process.exitCode = failed ? 1 : 0;
