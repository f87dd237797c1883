/**
 * What an action leaves behind never holds a secret it typed. Text typed into a password field
 * (the source says so in its outcome, or the aim names a node a tree showed as one) is logged,
 * answered and stored only as "typed N characters into a password field"; text matching the mask
 * patterns is blanked from every logged parameter. The field's kind is known only once the source
 * has acted, so the log's parameters are redacted again after the action.
 */
import type { SettingsValues } from '../../../shared/settings.ts';
import { isKnownPasswordNode, maskSpecOf } from '../frames/privacy.ts';
import type { ActionResult } from '../ports.ts';
import { blankSecrets } from '../util/secrets.ts';

/** An action's arguments as redaction reads them: its target, a node it aims at, the text it types. */
export interface TypedArgs {
  target?: string;
  node?: string;
  text?: unknown;
}

/** What the gate asks of redaction: the logged parameters before the action, the answer and the log after it. */
export interface Redactor {
  params(params: Record<string, unknown>, args: TypedArgs): Record<string, unknown>;
  result(answer: ActionResult, args: TypedArgs, log: { params?: Record<string, unknown> }): ActionResult;
  /** The logged parameters of an action (`tool`) that failed. */
  failed(tool: string, params: Record<string, unknown>, args: TypedArgs): Record<string, unknown>;
}

/** Redaction by the privacy settings as they are at each call. */
export function redactor(settings: () => Pick<SettingsValues, 'privacy'>): Redactor {
  return {
    params: (params, args) => redactParams(params, args, settings()),
    result: (answer, args, log) => redactAction(answer, args, log, settings()),
    failed: (tool, params, args) => (tool === 'type_text' ? redactFailedTyping(params, args) : params),
  };
}

/** What the log and the answer say of text typed into a password field. */
export function typedIntoPassword(characters: number): string {
  return `typed ${characters} character${characters === 1 ? '' : 's'} into a password field`;
}

/** The logged parameters of `req` with secrets blanked, and typed text hidden when it goes to a known password field. */
export function redactParams(params: Record<string, unknown>, req: TypedArgs, settings: Pick<SettingsValues, 'privacy'>, password = isKnownPasswordNode(req.target, req.node)): Record<string, unknown> {
  const spec = maskSpecOf(settings);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) out[k] = spec ? blankDeep(v, spec.patterns) : v;
  if (password && typeof req.text === 'string' && 'text' in out) out.text = `[${[...req.text].length} characters for a password field]`;
  return out;
}

/**
 * After the action: when the text went into a password field, the result says only that (no
 * value read back), and the log entry's parameters (`log`, changed in place) hide the text.
 */
export function redactAction(answer: ActionResult, req: TypedArgs, log: { params?: Record<string, unknown> }, settings: Pick<SettingsValues, 'privacy'>): ActionResult {
  const spec = maskSpecOf(settings);
  // What the source read back (the element hit, the field's value, a title) may show a secret too.
  const result = spec ? (blankDeep(answer, spec.patterns, new Set(['afterImage'])) as ActionResult) : answer;
  const password = result.received?.password === true || isKnownPasswordNode(result.target, req.node);
  if (!password || typeof req.text !== 'string') return result;
  if (log.params) log.params = redactParams(log.params, req, settings, true);
  const said = typedIntoPassword([...req.text].length);
  const received = result.received ? { ...result.received, password: true } : undefined;
  if (received) delete received.value;
  return { ...result, ...(received ? { received } : {}), note: [said, result.note].filter(Boolean).join('; ') };
}

/**
 * A failed type_text's text is logged by its length only: a field aimed at by its label may have
 * been a password field that was typed into before the failure, or that was not found at all,
 * and either way whether the text was a secret was never learnt.
 */
export function redactFailedTyping(params: Record<string, unknown>, req: TypedArgs): Record<string, unknown> {
  if (typeof req.text !== 'string' || !('text' in params)) return params;
  return { ...params, text: `[${[...req.text].length} characters, not kept: the action failed]` };
}

/** Every string inside `v` with its secrets blanked (keys in `keep` are passed on as they are). */
function blankDeep(v: unknown, patterns: readonly string[], keep?: ReadonlySet<string>): unknown {
  if (typeof v === 'string') return blankSecrets(v, patterns);
  if (Array.isArray(v)) return v.map((x) => blankDeep(x, patterns));
  if (v && typeof v === 'object' && !Buffer.isBuffer(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, keep?.has(k) ? x : blankDeep(x, patterns)]));
  return v;
}
