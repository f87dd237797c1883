/**
 * Terminal output: a live line per step and a final summary for people; with --json, one JSON
 * document (the run summary) on stdout and nothing else. Line formatting is pure. Everything
 * printed passes through `redact`: a model (or a gateway) may echo a key back in its answer.
 */
import { clip } from './action.ts';
import { redact } from './artifacts.ts';
import type { Reporter, RunSummary, StepRecord } from './loop.ts';

const ms = (n: number): string => (n >= 10_000 ? `${(n / 1000).toFixed(1)} s` : `${Math.round(n)} ms`);

export function stepLine(s: StepRecord, maxSteps: number): string {
  const width = String(maxSteps).length;
  const what = s.action ?? '(no action)';
  const why = s.why ? `  ${JSON.stringify(clip(s.why, 70))}` : '';
  const model = s.timings.modelMs !== undefined ? ` (model ${ms(s.timings.modelMs)})` : '';
  return `step ${String(s.step).padStart(width)}/${maxSteps}  ${what}${why}  → ${s.outcome}  ${ms(s.timings.totalMs)}${model}`;
}

export function summaryLines(r: RunSummary): string[] {
  const took = ms(r.durationMs);
  const n = r.steps.length;
  const head =
    r.stop.reason === 'done'
      ? `Done in ${n} step${n === 1 ? '' : 's'}, ${took}: ${r.stop.message}`
      : `Stopped (${r.stop.reason}${r.stop.code ? `, ${r.stop.code}` : ''}) after ${n} step${n === 1 ? '' : 's'}, ${took}: ${r.stop.message}`;
  return [head, `Exit ${r.stop.exitCode}. Artifacts: ${r.artifacts}`];
}

export function createReporter(json: boolean, stdout: NodeJS.WriteStream = process.stdout, secrets: readonly string[] = []): Reporter {
  // As written and as JSON escapes it (the --json summary).
  const hidden = [...secrets, ...secrets.map((k) => JSON.stringify(k).slice(1, -1))];
  const write = (text: string): void => void stdout.write(redact(text, hidden));
  const tty = !json && stdout.isTTY === true;
  let pending = false;
  const clearPending = (): void => {
    if (pending) stdout.write('\r\x1b[K');
    pending = false;
  };
  return {
    stepStarted(step, maxSteps) {
      if (!tty) return;
      clearPending();
      stdout.write(`step ${step}/${maxSteps}  …`);
      pending = true;
    },
    stepDone(s, maxSteps) {
      if (json) return;
      clearPending();
      write(`${stepLine(s, maxSteps)}\n`);
    },
    summary(r) {
      clearPending();
      if (json) write(`${JSON.stringify(r)}\n`);
      else write(`${summaryLines(r).join('\n')}\n`);
    },
  };
}
