/**
 * Exact typing on X11. xdotool types a character missing from the keymap by binding
 * its keysym to a spare keycode, sending the key and unbinding it at once; an app that
 * looks the key up after the unbind (Xlib refreshes its keymap lazily) gets nothing or
 * the next character. Measured under Xvfb with a loaded CPU: 7/10 strings exact at
 * xdotool's default 12 ms delay, 9/10 at 40 ms ("®®® ®®" for "한국어 ©®"). Binding every
 * missing character to its own spare keycode *before* typing, and unbinding only once
 * the app had time to read them, typed 20/20 exact at 0 ms. This module plans that
 * (pure, tested on captured `xmodmap -pk` output); `X11Typist` runs it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SightlineError } from '../../../../shared/errors.ts';

export interface Keymap {
  /** Keysyms reachable without modifiers other than Shift (group 1, levels 1–2). */
  plain: Set<number>;
  /** Keycodes with no keysym at all, usable as scratch keys. */
  free: number[];
}

/** Parse `xmodmap -pk` ("   38    \t0x0061 (a)\t0x0041 (A)\t…"; an empty keycode has no values). */
export function parseKeymap(pk: string): Keymap {
  const plain = new Set<number>();
  const free: number[] = [];
  for (const line of pk.split('\n')) {
    const m = /^\s+(\d+)\s*\t?(.*)$/.exec(line);
    if (!m) continue;
    const keycode = Number(m[1]);
    const values = [...(m[2] ?? '').matchAll(/0x([0-9a-f]+)/gi)].map((v) => parseInt(v[1]!, 16));
    if (values.every((v) => v === 0)) {
      // Keycode 8 is the protocol minimum and some toolkits ignore it.
      if (keycode > 8) free.push(keycode);
      continue;
    }
    for (const v of values.slice(0, 2)) if (v) plain.add(v);
  }
  return { plain, free };
}

/** The keysym X11 uses for a character: Latin-1 as itself, everything else as 0x01000000 + code point. */
export function keysymOf(codePoint: number): number {
  return (codePoint >= 0x20 && codePoint <= 0x7e) || (codePoint >= 0xa0 && codePoint <= 0xff) ? codePoint : 0x01000000 + codePoint;
}

/** The name xmodmap (XStringToKeysym) reads back as `keysymOf(codePoint)`. */
export function keysymName(codePoint: number): string {
  return `U${codePoint.toString(16).toUpperCase().padStart(4, '0')}`;
}

export interface Binding {
  keycode: number;
  codePoint: number;
}

export interface TypingChunk {
  text: string;
  /** Characters to bind to spare keycodes before typing this chunk. */
  bind: Binding[];
}

/**
 * Normalise line ends and refuse control characters that have no text meaning (xdotool
 * types \n as Return and \t as Tab); press_key is for the rest.
 */
export function normaliseTypedText(text: string): string {
  const t = text.replace(/\r\n?/g, '\n');
  const bad = [...t].find((ch) => {
    const cp = ch.codePointAt(0)!;
    return (cp < 0x20 && ch !== '\n' && ch !== '\t') || cp === 0x7f;
  });
  if (bad) {
    const cp = bad.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    throw new SightlineError('INVALID_ARGUMENT', `type_text cannot type the control character U+${cp}.`, 'Send keys such as Escape or Backspace with press_key.');
  }
  return t;
}

/**
 * Split `text` into chunks whose missing characters fit the spare keycodes (one is left
 * for xdotool's own use). With no spare keycode at all, one chunk with no bindings:
 * xdotool then remaps by itself (the caller types slowly).
 */
export function planTyping(text: string, keymap: Keymap): TypingChunk[] {
  const capacity = keymap.free.length > 1 ? keymap.free.length - 1 : 0;
  const chunks: TypingChunk[] = [];
  let current: TypingChunk = { text: '', bind: [] };
  let assigned = new Map<number, number>();
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    const missing = ch !== '\n' && ch !== '\t' && !keymap.plain.has(keysymOf(cp));
    if (missing && capacity > 0 && !assigned.has(cp)) {
      if (assigned.size === capacity) {
        chunks.push(current);
        current = { text: '', bind: [] };
        assigned = new Map();
      }
      const keycode = keymap.free[assigned.size]!;
      assigned.set(cp, keycode);
      current.bind.push({ keycode, codePoint: cp });
    }
    current.text += ch;
  }
  if (current.text) chunks.push(current);
  return chunks;
}

/** `xmodmap` arguments binding (all four core columns, so Shift does not change it) or clearing keycodes. */
export function xmodmapArgs(bindings: readonly Binding[], clear = false): string[] {
  return bindings.flatMap((b) => {
    const name = keysymName(b.codePoint);
    return ['-e', clear ? `keycode ${b.keycode} =` : `keycode ${b.keycode} = ${name} ${name} ${name} ${name}`];
  });
}

/** Runs a command with the X display and a UTF-8 locale; resolves with stdout. */
export type Exec = (cmd: string, args: string[], timeoutMs: number, signal?: AbortSignal) => Promise<string>;

/** How long an app gets to read a bound key before the binding goes away. */
const SETTLE_MS = 250;
/** Bindings are kept this long after the last typing, so a burst of type_text calls reuses them. */
const IDLE_UNBIND_MS = 1500;

/**
 * Types text exactly with xdotool, binding missing characters to spare keycodes first
 * (xmodmap). Calls must be serialised by the caller (the desktop source's input mutex).
 */
export class X11Typist {
  readonly #exec: Exec;
  /** Bindings this typist made and has not undone yet. */
  #bound: Binding[] = [];
  #lastTyped = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #unbinding: Promise<void> | undefined;

  constructor(exec: Exec) {
    this.#exec = exec;
  }

  async type(text: string, signal?: AbortSignal): Promise<{ chunks: number; bound: number }> {
    const t = normaliseTypedText(text);
    if (!t) return { chunks: 0, bound: 0 };
    this.#cancelTimer();
    // An idle unbind in flight would clear keys this text is planned against.
    await this.#unbinding;
    let plan = planTyping(t, parseKeymap(await this.#exec('xmodmap', ['-pk'], 5000, signal)));
    if (plan.length > 1 && this.#bound.length) {
      // Our earlier bindings hold keycodes this text needs: release them and plan again.
      await this.unbind();
      plan = planTyping(t, parseKeymap(await this.#exec('xmodmap', ['-pk'], 5000, signal)));
    }
    let bound = 0;
    try {
      for (const [i, chunk] of plan.entries()) {
        if (i > 0) await this.unbind();
        if (chunk.bind.length) {
          // Recorded first: a failing xmodmap may have bound some of them.
          this.#bound.push(...chunk.bind);
          await this.#exec('xmodmap', xmodmapArgs(chunk.bind), 5000, signal);
          bound += chunk.bind.length;
        }
        const unbound = plan.length === 1 && !chunk.bind.length && /[^\x20-\x7e\t\n]/.test(chunk.text);
        // Without spare keycodes xdotool rebinds per character: go slowly to give the app time.
        const delay = unbound ? 40 : 2;
        await this.#exec('xdotool', ['type', '--clearmodifiers', '--delay', String(delay), '--', chunk.text], 5000 + [...chunk.text].length * (delay + 20), signal);
        this.#lastTyped = Date.now();
      }
    } finally {
      this.#scheduleUnbind();
    }
    return { chunks: plan.length, bound };
  }

  /** Undo our bindings (after the app had time to read the last key). */
  unbind(): Promise<void> {
    this.#cancelTimer();
    this.#unbinding ??= this.#unbindNow().finally(() => (this.#unbinding = undefined));
    return this.#unbinding;
  }

  async #unbindNow(): Promise<void> {
    if (!this.#bound.length) return;
    const wait = this.#lastTyped + SETTLE_MS - Date.now();
    if (wait > 0) await sleep(wait);
    const bindings = this.#bound;
    this.#bound = [];
    await this.#exec('xmodmap', xmodmapArgs(bindings, true), 5000);
  }

  async dispose(): Promise<void> {
    await this.unbind().catch(() => undefined);
  }

  #scheduleUnbind(): void {
    if (!this.#bound.length) return;
    this.#timer = setTimeout(() => void this.unbind().catch(() => undefined), IDLE_UNBIND_MS);
    this.#timer.unref();
  }

  #cancelTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
