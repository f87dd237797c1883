/** The economy benchmark's accounting: a tally of calls and of what the model reads, and helpers every agent uses. */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { estimateVisionTokens } from '../src/main/core/image/fit.ts';

export type Call = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>;

export interface Tally {
  calls: number;
  textChars: number;
  imageTokens: number;
  log: string[];
}

export const tally = (): Tally => ({ calls: 0, textChars: 0, imageTokens: 0, log: [] });
export const tokens = (t: Tally): number => Math.round(t.textChars / 4) + t.imageTokens;

/** All the text blocks of an answer, as the model reads them. */
export function callText(r: CallToolResult): string {
  return r.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
}

/** Add one call and what the model reads of its answer: every text block, and each image's estimated vision tokens. */
export async function countAnswer(r: CallToolResult, t: Pick<Tally, 'calls' | 'textChars' | 'imageTokens'>): Promise<void> {
  t.calls++;
  for (const c of r.content) {
    if (c.type === 'text') t.textChars += c.text.length;
    if (c.type === 'image') {
      // An image's size is in its header, but reading it needs a decoder; sharp is already a dependency.
      const { default: sharp } = await import('sharp');
      const m = await sharp(Buffer.from(c.data, 'base64')).metadata();
      t.imageTokens += estimateVisionTokens({ width: m.width ?? 0, height: m.height ?? 0 });
    }
  }
}

/**
 * Count a call and what the model reads of its answer. Error answers are counted and returned
 * like the rest: an agent reads them and decides what to do next.
 */
export function counted(call: Call, t: Tally): Call {
  return async (name, args) => {
    const r = await call(name, args);
    await countAnswer(r, t);
    const text = callText(r);
    if (process.env.ECONOMY_DUMP) process.stderr.write(`--- ${name} ${JSON.stringify(args)} (${text.length} chars${r.isError ? ', error' : ''})\n${text}\n`);
    t.log.push(`${name}${r.isError ? ' (error)' : ''}`);
    return r;
  };
}

/** The answer of a call that must succeed; an error answer ends the task (the agent has no better next step). */
export async function ok(r: Promise<CallToolResult>): Promise<CallToolResult> {
  const a = await r;
  if (a.isError) throw new Error(callText(a).slice(0, 400));
  return a;
}
