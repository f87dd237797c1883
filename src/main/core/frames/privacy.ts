/**
 * Secrets kept out of what Sightline hands out or keeps: boxes filled in images before they are
 * encoded, password and payment values dropped from UI trees, and text matching the mask patterns
 * (util/secrets.ts) blanked from trees, screen text (so find_text, wait_for, text aims and the text
 * index never see it) and frame labels. One switch: `privacy.masking`.
 */
import type { OcrResult } from '../ocr/types.ts';
import type { Rect, UiNode } from '../../../shared/frame.ts';
import type { SettingsValues } from '../../../shared/settings.ts';
import type { FrameLabel } from '../catalog/types.ts';
import { maskPixels, probe, type ImageInput } from '../image/pipeline.ts';
import type { CapturedImage, MaskSpec, SourceUiNode, TextItem } from '../sources/source.ts';
import { MASKED_TEXT, SECRET_AUTOCOMPLETE, blankSecrets, hasSecret, secretFinder } from '../util/secrets.ts';

/** The mask settings in force, or undefined when masking is off. */
export function maskSpecOf(settings: Pick<SettingsValues, 'privacy'>): MaskSpec | undefined {
  const p = settings.privacy;
  return p.masking ? { patterns: p.maskPatterns } : undefined;
}

/** `pixels` with the capture's secret boxes (source space) filled, mapped into the pixels' own size. */
export async function maskCaptured(pixels: ImageInput, captured: Pick<CapturedImage, 'masks' | 'sourceSize' | 'origin'>): Promise<ImageInput> {
  const masks = captured.masks ?? [];
  if (masks.length === 0) return pixels;
  const size = pixels.kind === 'raw' ? pixels : await probe(pixels);
  const kx = size.width / captured.sourceSize.width;
  const ky = size.height / captured.sourceSize.height;
  // A pixel of margin: a box's edge pixels are blended with its neighbours when the image is scaled.
  const px = masks.map((r): Rect => ({ x: (r.x - captured.origin.x) * kx - 1, y: (r.y - captured.origin.y) * ky - 1, width: r.width * kx + 2, height: r.height * ky + 2 }));
  return maskPixels(pixels, px);
}

/** Whether a tree node is a field whose value is a secret (password, card number, one-time code). */
export function isSecretField(n: Pick<UiNode, 'attributes'> & { password?: boolean }): boolean {
  const a = n.attributes ?? {};
  return n.password === true || a.password === 'true' || a.type === 'password' || (SECRET_AUTOCOMPLETE as readonly string[]).includes(a.autocomplete ?? '');
}

/**
 * Nodes with secret fields marked `password` and given no value, and secrets blanked from every
 * name, value and attribute. A node of a password field whose name is its text (Android names a
 * node by its text) is renamed to say what it is.
 */
export function redactNodes<N extends SourceUiNode>(nodes: readonly N[], spec: MaskSpec | undefined): N[] {
  if (!spec) return [...nodes];
  const { patterns } = spec;
  return nodes.map((n) => {
    const secret = isSecretField(n);
    const out: N = { ...n };
    if (secret) {
      delete out.value;
      if (n.attributes?.password === 'true' || n.attributes?.type === 'password' || n.password) out.password = true;
      if (out.attributes?.text) {
        // Android: the text of a password node is its value (dots, or the last character typed).
        if (out.name === out.attributes.text) out.name = 'password field';
        out.attributes = { ...out.attributes, text: MASKED_TEXT };
      }
    } else if (out.value !== undefined) out.value = blankSecrets(out.value, patterns);
    out.name = blankSecrets(out.name, patterns);
    if (out.attributes) out.attributes = Object.fromEntries(Object.entries(out.attributes).map(([k, v]) => [k, blankSecrets(v, patterns)]));
    return out;
  });
}

/** Text items with secrets blanked (a secret field's own text is dropped). */
export function redactItems(items: readonly TextItem[], spec: MaskSpec | undefined, secretNodes?: ReadonlySet<string>): TextItem[] {
  if (!spec) return [...items];
  const { patterns } = spec;
  const out: TextItem[] = [];
  for (const it of items) {
    if (it.node !== undefined && secretNodes?.has(it.node)) continue;
    const label = it.label !== undefined && hasSecret(it.label, patterns);
    if (!label && !hasSecret(it.text, patterns) && !it.words?.some((w) => hasSecret(w.text, patterns))) {
      out.push(it);
      continue;
    }
    out.push({
      ...it,
      text: blankSecrets(it.text, patterns),
      ...(it.words ? { words: redactWords(it.text, it.words, patterns) } : {}),
      ...(label ? { label: blankSecrets(it.label!, patterns) } : {}),
    });
  }
  return out;
}

/** OCR lines with secrets blanked, words too (what the text index reads screen by screen). */
export function redactOcr(result: OcrResult, spec: MaskSpec | undefined): OcrResult {
  if (!spec) return result;
  const { patterns } = spec;
  const lines = result.lines.map((l) => {
    if (!hasSecret(l.text, patterns) && !l.words.some((w) => hasSecret(w.text, patterns))) return l;
    const words = redactWords(l.text, l.words.map((w) => ({ text: w.text, bounds: { x: 0, y: 0, width: 0, height: 0 } })), patterns);
    return { ...l, text: blankSecrets(l.text, patterns), words: l.words.map((w, i) => ({ ...w, text: words[i]!.text })) };
  });
  return { ...result, lines };
}

/**
 * A line's words with every word that is part of a secret blanked: a card number read as four
 * words is a secret only as a line. Words are found in the line in order.
 */
function redactWords(line: string, words: NonNullable<TextItem['words']>, patterns: readonly string[]): NonNullable<TextItem['words']> {
  const ranges = secretFinder(patterns)(line);
  let at = 0;
  return words.map((w) => {
    const start = line.indexOf(w.text, at);
    if (start < 0) return { ...w, text: blankSecrets(w.text, patterns) };
    const end = start + w.text.length;
    at = end;
    const inSecret = ranges.some(([a, b]) => start < b && end > a);
    return { ...w, text: inSecret ? MASKED_TEXT : w.text };
  });
}

/** A frame's label (window or page title, document) with secrets blanked. */
export function redactLabel(label: FrameLabel | undefined, spec: MaskSpec | undefined): FrameLabel | undefined {
  if (!label || !spec) return label;
  return Object.fromEntries(Object.entries(label).map(([k, v]) => [k, typeof v === 'string' ? blankSecrets(v, spec.patterns) : v])) as FrameLabel;
}

/** Password nodes seen per target (their ids are handles: valid while the element lives). */
const passwordNodes = new Map<string, Set<string>>();
const MAX_REMEMBERED = 500;

/** Remember the password fields of a target's tree, so typing into one by node is never logged in clear. */
export function rememberPasswordNodes(target: string, nodes: readonly { id: string; password?: boolean }[]): void {
  const ids = nodes.filter((n) => n.password).map((n) => n.id);
  if (ids.length === 0) return;
  let set = passwordNodes.get(target);
  if (!set) {
    if (passwordNodes.size >= MAX_REMEMBERED) passwordNodes.clear();
    set = new Set();
    passwordNodes.set(target, set);
  }
  if (set.size + ids.length > MAX_REMEMBERED) set.clear();
  for (const id of ids) set.add(id);
}

/** Whether `node` of `target` was a password field in a tree read earlier. */
export function isKnownPasswordNode(target: string | undefined, node: string | undefined): boolean {
  return target !== undefined && node !== undefined && passwordNodes.get(target)?.has(node) === true;
}

/** After redaction, a tree query matches only what is still shown (a secret cannot be probed for). */
export function matchesShown(n: Pick<SourceUiNode, 'name' | 'role' | 'value' | 'attributes'>, query: string): boolean {
  const q = query.toLowerCase();
  return [n.name, n.role, n.value, ...Object.values(n.attributes ?? {})].some((v) => !!v && v.toLowerCase().includes(q));
}
