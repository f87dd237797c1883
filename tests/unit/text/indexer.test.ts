/**
 * The background text indexer against a real catalog, with a scripted OCR: frames whose app
 * cannot be known are skipped while ocr.excludeApps is set, a newly excluded app's text is
 * deleted, stop/start in quick succession leaves exactly the state asked for, a failure that may
 * pass is retried (only a bad file is unreadable at once), a live frame that could not be read
 * is caught up later.
 */
import { describe, expect, it } from 'vitest';
import { SightlineError } from '../../../src/shared/errors.ts';
import type { CoreSettings } from '../../../src/shared/settings.ts';
import type { Catalog } from '../../../src/main/core/catalog/catalog.ts';
import type { FrameLabel } from '../../../src/main/core/catalog/types.ts';
import { MAX_ATTEMPTS, TextIndexer } from '../../../src/main/core/text/indexer.ts';
import { TEXT_READER } from '../../../src/main/core/text/reread.ts';
import type { TextItem } from '../../../src/main/core/sources/source.ts';
import { BusySignal } from '../../../src/main/core/util/busy.ts';
import { frame, openCatalog } from '../catalog/helpers.ts';

type Ocr = CoreSettings['ocr'];
type Read = (ref: string, signal: AbortSignal) => Promise<{ items: TextItem[] }>;

/** OCR that "reads" one word per frame: `w<ref>` (letters and digits only). */
const word = (ref: string): string => `w${ref.replace(/[^a-z0-9]/gi, '')}`;
const readWord: Read = async (ref) => ({ items: [{ text: `${word(ref)} shown`, bounds: { x: 20, y: 30, width: 100, height: 20 } }] });

function setup(over: Partial<Ocr> = {}, read: Read = readWord) {
  const catalog = openCatalog();
  const settings: Ocr = { enabled: true, engine: 'auto', index: true, cpuBudget: 1, excludeApps: [], ...over };
  const reads: string[] = [];
  const logs: string[] = [];
  const indexer = new TextIndexer({
    store: catalog.text,
    frames: { find: (ref) => catalog.frames.get(ref), countOwn: () => catalog.frames.count({ external: false, rootOnly: true }) },
    read: (ref, signal) => {
      reads.push(ref);
      return read(ref, signal);
    },
    archives: async () => [],
    refresh: async () => undefined,
    settings: () => settings,
    busy: new BusySignal(),
    onProgress: () => undefined,
    log: (line) => logs.push(line),
    timing: { quietMs: 0, liveMaxWaitMs: 0, retryMs: 20, pollMs: 20, batch: 4 },
  });
  catalog.on('frame', (f) => indexer.onFrame(f));
  return { catalog, settings, indexer, reads, logs };
}

async function until(what: string, ok: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const tick = (ms = 30): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function add(catalog: Catalog, label?: FrameLabel, minutesAgo = 0): Promise<string> {
  return (await catalog.frames.insert(frame({ minutesAgo, ...(label ? { label } : {}) }))).ref;
}

/** The refs whose stored text holds `w` (FTS5). */
function found(catalog: Catalog, w: string): string[] {
  return catalog.text.search({ match: `"${w}"`, limit: 100 }).hits.map((h) => h.frame.ref);
}

/** A read that waits until released (an engine busy with a page). */
function gate(): { read: Read; release(): void; started: Promise<void> } {
  let release!: () => void;
  let started!: () => void;
  const open = new Promise<void>((r) => (release = r));
  const began = new Promise<void>((r) => (started = r));
  return {
    read: async (ref) => {
      started();
      await open;
      return readWord(ref, new AbortController().signal);
    },
    release: () => release(),
    started: began,
  };
}

describe('privacy: ocr.excludeApps', () => {
  it('while the list is set, a frame whose app cannot be known is never read; an excluded one neither', async () => {
    const { catalog, indexer, reads } = setup({ excludeApps: ['KeePass'] });
    const ledger = await add(catalog, { app: 'Ledger', title: 'Ledger main' }, 3);
    const display = await add(catalog, undefined, 2); // a whole display: no label
    const vault = await add(catalog, { title: 'Database.kdbx - KeePass' }, 1);
    const titleOnly = await add(catalog, { title: 'Quarterly report' }, 0);
    indexer.start();
    await until('idle', () => catalog.text.has(ledger) && catalog.text.has(titleOnly) && indexer.status().state === 'idle');
    await indexer.stop();
    expect(reads.sort()).toEqual([ledger, titleOnly].sort());
    expect(catalog.text.has(display)).toBe(false);
    expect(catalog.text.has(vault)).toBe(false);
    expect(indexer.status()).toMatchObject({ excluded: 1, unlabeled: 1 });
  });

  it('a live frame without a label is skipped too; with an empty list it is indexed', async () => {
    const strict = setup({ excludeApps: ['KeePass'] });
    strict.indexer.start();
    await until('idle', () => strict.indexer.status().state === 'idle');
    const a = await add(strict.catalog);
    await until('skipped', () => strict.indexer.status().unlabeled === 1);
    await strict.indexer.stop();
    expect(strict.catalog.text.has(a)).toBe(false);
    expect(strict.reads).toEqual([]);

    const open = setup({ excludeApps: [] });
    open.indexer.start();
    const b = await add(open.catalog);
    await until('indexed', () => open.catalog.text.has(b));
    await open.indexer.stop();
  });

  it('adding an app to the list deletes the text already indexed for it (and, from an empty list, for frames with no app)', async () => {
    const { catalog, settings, indexer } = setup({ excludeApps: [] });
    const ledger = await add(catalog, { app: 'Ledger', title: 'Ledger main' }, 3);
    const bank = await add(catalog, { app: 'Bank', title: 'Accounts - Ledger sync' }, 2);
    const plain = await add(catalog, { app: 'Notes', title: 'Shopping' }, 1);
    const display = await add(catalog, undefined, 0);
    indexer.start();
    await until('all indexed', () => [ledger, bank, plain, display].every((r) => catalog.text.has(r)));
    expect(found(catalog, word(ledger))).toEqual([ledger]);

    settings.excludeApps = ['Ledger'];
    await indexer.settingsChanged();
    // By app or by title, as the indexer would have excluded them; the frames themselves stay.
    expect(catalog.text.has(ledger)).toBe(false);
    expect(catalog.text.has(bank)).toBe(false);
    expect(catalog.text.has(display)).toBe(false);
    expect(catalog.text.has(plain)).toBe(true);
    expect(found(catalog, word(ledger))).toEqual([]);
    expect(catalog.text.search({ match: '"ledger"', limit: 10 }).hits).toEqual([]);
    expect(catalog.frames.get(ledger)).toBeDefined();
    expect(catalog.text.count()).toBe(1);
    await indexer.stop();
    expect(catalog.text.has(ledger)).toBe(false);

    // Applied once: a restart with the same list deletes nothing more, and reads nothing of them.
    settings.excludeApps = ['Ledger', 'Notes'];
    await indexer.settingsChanged();
    expect(catalog.text.has(plain)).toBe(false);
    await indexer.stop();
  });

  it('an exclusion applied while the indexer was off is applied when it starts', async () => {
    const { catalog, settings, indexer } = setup({ excludeApps: [] });
    const ledger = await add(catalog, { app: 'Ledger' });
    indexer.start();
    await until('indexed', () => catalog.text.has(ledger));
    await indexer.stop();
    settings.excludeApps = ['ledger'];
    indexer.start();
    expect(catalog.text.has(ledger)).toBe(false);
    await indexer.stop();
  });
});

describe('stop and start', () => {
  it('off → on → off in quick succession ends stopped, and stop() waits for the page being read', async () => {
    const g = gate();
    const { catalog, settings, indexer } = setup({}, g.read);
    indexer.start();
    const ref = await add(catalog, { app: 'Ledger' });
    await g.started;
    settings.index = false;
    const first = indexer.settingsChanged();
    settings.index = true;
    void indexer.settingsChanged();
    settings.index = false;
    const last = indexer.settingsChanged();
    let ended = false;
    void last.then(() => (ended = true));
    await tick();
    expect(ended).toBe(false); // the page is still being read
    g.release();
    await Promise.all([first, last]);
    await tick(100);
    expect(indexer.running).toBe(false);
    expect(indexer.status().state).toBe('off');
    // Stopped means stopped: the catalog can close under it.
    catalog.close();
    await tick(100);
    expect(ref).toBeTruthy();
  });

  it('start() while a stop is pending starts after the old run has ended, never beside it', async () => {
    const g = gate();
    const { catalog, indexer } = setup({}, g.read);
    indexer.start();
    await add(catalog, { app: 'Ledger' });
    await g.started;
    const stopped = indexer.stop();
    indexer.start();
    await tick();
    expect(indexer.running).toBe(false);
    g.release();
    await stopped;
    await until('restarted', () => indexer.running);
    const again = indexer.stop();
    // A second stop() waits for the same end.
    await Promise.all([again, indexer.stop()]);
    expect(indexer.running).toBe(false);
  });
});

describe('failures', () => {
  it('a failure that may pass is retried; the text is indexed once it reads', async () => {
    let fails = 2;
    const read: Read = async (ref, signal) => {
      if (fails-- > 0) throw new SightlineError('FILE_UNAVAILABLE', 'The archive folder is away for a moment.', 'Try again.');
      return readWord(ref, signal);
    };
    const { catalog, indexer, reads } = setup({}, read);
    const ref = await add(catalog, { app: 'Ledger' });
    indexer.start();
    await until('read', () => found(catalog, word(ref)).length === 1);
    await indexer.stop();
    expect(reads).toEqual([ref, ref, ref]);
  });

  it('a frame that keeps failing is stored as unreadable after MAX_ATTEMPTS; a bad file at once', async () => {
    const read: Read = async (ref) => {
      throw ref.endsWith('bad') ? new SightlineError('IMAGE_INVALID', 'Not an image.', 'Nothing to do.') : new SightlineError('TIMEOUT', 'OCR took too long.', 'Try again.');
    };
    const { catalog, indexer, reads } = setup({}, read);
    const slow = await add(catalog, { app: 'Ledger' }, 1);
    const bad = (await catalog.frames.insert(frame({ label: { app: 'Ledger' }, ref: 'frame-bad' }))).ref;
    indexer.start();
    await until('both stored', () => catalog.text.has(slow) && catalog.text.has(bad));
    await indexer.stop();
    expect(reads.filter((r) => r === slow)).toHaveLength(MAX_ATTEMPTS);
    expect(reads.filter((r) => r === bad)).toHaveLength(1);
  });

  it('a live frame whose read must wait (no engine yet) is caught up later, not lost', async () => {
    let engine = false;
    const read: Read = async (ref, signal) => {
      if (!engine) throw new SightlineError('UNSUPPORTED', 'No OCR engine yet.', 'Install one.');
      return readWord(ref, signal);
    };
    const { catalog, indexer, reads } = setup({}, read);
    indexer.start();
    await until('idle', () => indexer.status().state === 'idle');
    const ref = await add(catalog, { app: 'Ledger' });
    await until('tried live', () => reads.length >= 1);
    engine = true;
    await until('caught up', () => catalog.text.has(ref));
    await indexer.stop();
    expect(found(catalog, word(ref))).toEqual([ref]);
  });
});

describe('text an older reader wrote', () => {
  it('is read again once, newest first, after the frames with no text; search answers with the old text meanwhile', async () => {
    const { catalog, indexer, reads } = setup();
    const old = [await add(catalog, { app: 'Notes', title: 'a' }, 3), await add(catalog, { app: 'Notes', title: 'b' }, 2)];
    // Written by the reader before versions were kept (0), with what that reader got wrong.
    for (const ref of old) catalog.text.put({ ref, text: 'neighbour title', boxes: [], label: { app: 'Notes' }, status: 'read' });
    const fresh = await add(catalog, { app: 'Notes', title: 'c' }, 1);
    expect(catalog.text.countStale(TEXT_READER)).toBe(2);
    expect(found(catalog, 'neighbour').sort()).toEqual([...old].sort());
    indexer.start();
    await until('read again', () => catalog.text.countStale(TEXT_READER) === 0 && indexer.status().state === 'idle');
    await indexer.stop();
    // The frame with no text first, then the old ones newest first; each once.
    expect(reads).toEqual([fresh, old[1], old[0]]);
    expect(found(catalog, 'neighbour')).toEqual([]);
    for (const ref of [...old, fresh]) expect(found(catalog, word(ref))).toEqual([ref]);
    expect(indexer.status().reread).toBeUndefined();
  });

  it('says how far it got while reading again, and marks a frame that cannot be read again instead of trying it forever', async () => {
    const slow = gate();
    const { catalog, indexer, reads } = setup({}, async (ref, signal) => {
      if (ref === gone) throw new SightlineError('FRAME_NOT_FOUND', 'gone', 'capture again');
      return slow.read(ref, signal);
    });
    const gone = await add(catalog, { app: 'Notes', title: 'a' }, 3);
    const kept = await add(catalog, { app: 'Notes', title: 'b' }, 2);
    for (const ref of [gone, kept]) catalog.text.put({ ref, text: 'old words', boxes: [], label: { app: 'Notes' }, status: 'read' });
    indexer.start();
    await slow.started;
    expect(indexer.status()).toMatchObject({ state: 'indexing', reread: { done: 0, total: 2 } });
    slow.release();
    await until('marked', () => catalog.text.countStale(TEXT_READER) === 0 && indexer.status().state === 'idle');
    await new Promise((r) => setTimeout(r, 100));
    await indexer.stop();
    expect(reads.filter((r) => r === gone)).toHaveLength(1);
    // Its old text stays (its file is gone, nothing better can be had); the other is read anew.
    expect(found(catalog, 'old')).toEqual([gone]);
    expect(found(catalog, word(kept))).toEqual([kept]);
  });
});
