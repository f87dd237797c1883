/**
 * The model's instructions: the system prompt (prompt.md, with the actions this target's tools
 * allow) and the text of each step (goal, image size, history, last outcome, UI elements). Pure
 * apart from reading prompt.md when running from sources.
 */
import { readFileSync } from 'node:fs';
import type { Capabilities, Size } from './action.ts';

/** Set by the build (electron.vite.config.ts `define`): prompt.md's text, inlined into the bundle. */
declare const __SIGHTLINE_AGENT_PROMPT__: string | undefined;

/** prompt.md: inlined in the bundle; read beside this module when node runs the sources. */
export function promptTemplate(): string {
  if (typeof __SIGHTLINE_AGENT_PROMPT__ === 'string') return __SIGHTLINE_AGENT_PROMPT__;
  return readFileSync(new URL('./prompt.md', import.meta.url), 'utf8');
}

export function actionLines(caps: Capabilities): string[] {
  const lines = ['{"action": "click", "x": 412, "y": 220, "why": "…", "confidence": 0.9}  click at a point of the screenshot'];
  if (caps.clickNode) lines.push('{"action": "click", "node": "<id>", "why": "…", "confidence": 0.9}  click a listed UI element by its id (preferred when it is listed)');
  if (caps.clickText) lines.push('{"action": "click", "text": "Sign in", "why": "…", "confidence": 0.9}  click the element showing this text');
  if (caps.type) lines.push(`{"action": "type", "text": "hello", "x": 300, "y": 140, "why": "…", "confidence": 0.9}  click at x, y${caps.typeNode ? ' (or "node")' : ''} and type the text exactly; without x, y it types into the focused field`);
  if (caps.key) lines.push('{"action": "key", "key": "Enter", "why": "…", "confidence": 0.9}  press a key or a combination such as Control+A, Escape, Tab');
  if (caps.scroll) lines.push('{"action": "scroll", "deltaY": 400, "x": 500, "y": 300, "why": "…", "confidence": 0.8}  scroll at x, y (default the middle); positive deltaY scrolls down');
  lines.push('{"action": "noop", "why": "…", "confidence": 0.3}  do nothing this turn');
  lines.push('{"action": "done", "why": "…", "confidence": 0.9}  the goal is reached');
  return lines;
}

export function systemPrompt(template: string, caps: Capabilities): string {
  return template.replace('{{actions}}', actionLines(caps).map((l) => `- ${l}`).join('\n')).trim();
}

export interface HistoryEntry {
  step: number;
  action: string;
  why: string;
  outcome: string;
}

export interface UiNode {
  id: string;
  role: string;
  name: string;
  value?: string;
  bounds: { x: number; y: number; width: number; height: number };
  inViewport?: boolean;
  enabled?: boolean;
  clickable?: boolean;
}

export interface StepInput {
  goal: string;
  step: number;
  maxSteps: number;
  targetTitle: string;
  image: Size;
  history: readonly HistoryEntry[];
  nodes?: readonly UiNode[];
}

/** The per-step text. The image size is stated every time: the model must never guess it. */
export function stepText(s: StepInput): string {
  const { width: w, height: h } = s.image;
  const lines = [
    `Goal: ${s.goal}`,
    `Step ${s.step} of ${s.maxSteps}. Target: ${s.targetTitle}.`,
    `The screenshot is ${w}×${h} pixels (width × height). Give x, y in these pixels: 0 ≤ x < ${w}, 0 ≤ y < ${h}.`,
  ];
  const last = s.history.at(-1);
  lines.push(last ? `Last action: ${last.action} → ${last.outcome}` : 'Last action: none yet (this is the first step).');
  if (s.history.length > 1) {
    lines.push('Steps so far:');
    // The oldest steps matter least: keep the prompt short on long runs.
    for (const e of s.history.slice(-12)) lines.push(`${e.step}. ${e.action} (${e.why}) → ${e.outcome}`);
  }
  if (s.nodes?.length) {
    lines.push('UI elements (id, role, "name", box x,y width×height in screenshot pixels):');
    for (const n of s.nodes) {
      const b = n.bounds;
      lines.push(`${n.id} ${n.role} ${JSON.stringify(n.name.slice(0, 80))}${n.value ? ` =${JSON.stringify(n.value.slice(0, 40))}` : ''} @${Math.round(b.x)},${Math.round(b.y)} ${Math.round(b.width)}×${Math.round(b.height)}${n.enabled === false ? ' (disabled)' : ''}`);
    }
  }
  lines.push('Answer with the JSON object only.');
  return lines.join('\n');
}

/** Only elements the model can see in this screenshot, interactive or named, capped. */
export function visibleNodes(nodes: readonly UiNode[], image: Size, max = 60): UiNode[] {
  return nodes
    .filter((n) => n.inViewport !== false && n.bounds.width > 0 && n.bounds.height > 0)
    .filter((n) => n.bounds.x < image.width && n.bounds.y < image.height && n.bounds.x + n.bounds.width > 0 && n.bounds.y + n.bounds.height > 0)
    .filter((n) => n.clickable || n.name.trim() !== '')
    .slice(0, max);
}

export function repairText(problem: string): string {
  return `That answer cannot be used: ${problem}. Answer again with exactly one JSON object as described, and nothing else.`;
}
