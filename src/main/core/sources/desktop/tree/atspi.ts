/**
 * Linux: the window's tree over AT-SPI, the accessibility bus every GTK, Qt, Electron and Firefox
 * app speaks. The bus address comes from the environment, the X root window (AT_SPI_BUS, set by
 * at-spi-bus-launcher for this display) or `org.a11y.Bus.GetAddress` on the session bus. The
 * window is found among the applications' top-level windows by process id, title and bounds;
 * its subtree is then read level by level with every call of a level sent at once (one round
 * trip per level instead of one per call: a 60-element form reads in a few ms).
 */
import { boxOverlap } from '../../../image/mapping.ts';
import type { Rect } from '../../../../../shared/frame.ts';
import { busUnavailable, connectDbus, type DbusConnection } from './dbus.ts';
import { EDITABLE, sharedRole } from './roles.ts';
import type { AxElement, AxSnapshot, AxStates, TreeBackend, WindowRef } from './types.ts';

const ACC = 'org.a11y.atspi.Accessible';
const REGISTRY = 'org.a11y.atspi.Registry';
const ROOT = '/org/a11y/atspi/accessible/root';
/** AtspiStateType bit numbers (at-spi2-core atspi-constants.h). */
const STATE = { checked: 4, editable: 7, enabled: 8, expanded: 10, focusable: 11, focused: 12, selected: 23, sensitive: 24, showing: 25, visible: 30 } as const;
/** AtspiRelationType LABEL_FOR and LABELLED_BY. */
const LABEL_FOR = 1;
const LABELLED_BY = 2;
/** Children read per element: a list with thousands of rows is cut, not walked. */
const MAX_CHILDREN = 500;
const COORD_SCREEN = 0;

type ObjRef = [bus: string, path: string];

/** How the backend reaches the bus: where to look for its address (tests and the bench give it). */
export interface AtspiOptions {
  env: NodeJS.ProcessEnv;
  /** Runs an X11 helper on the target display (xprop), resolving its stdout. */
  run?: (cmd: string, args: string[], signal: AbortSignal | undefined, timeout: number) => Promise<string>;
  uid?: number;
}

export class AtspiBackend implements TreeBackend {
  readonly name = 'AT-SPI';
  readonly #o: AtspiOptions;
  #bus: Promise<DbusConnection> | undefined;
  /** Window id → its accessible, while it still names that window. */
  readonly #windows = new Map<number, ObjRef>();

  constructor(options: AtspiOptions) {
    this.#o = options;
  }

  async read(window: WindowRef, options: { signal: AbortSignal; maxElements: number }): Promise<AxSnapshot | undefined> {
    const bus = await this.#connect();
    let ref = this.#windows.get(window.id);
    if (ref && !(await stillNames(bus, ref, window))) ref = undefined;
    ref ??= await findWindow(bus, window);
    if (!ref) {
      this.#windows.delete(window.id);
      return undefined;
    }
    this.#windows.set(window.id, ref);
    const elements = await walk(bus, ref, options.maxElements, options.signal);
    // The window alone is no tree: a Chromium app started without accessibility shows its frame and
    // nothing inside, and its text is better read by OCR than not at all.
    if (elements.length <= 1) return undefined;
    return { elements, app: ref[0] };
  }

  /** Whether the accessibility bus answers (for the health checklist); never throws. */
  async probe(): Promise<{ ok: boolean; detail: string }> {
    try {
      const bus = await this.#connect();
      const apps = await bus.call<ObjRef[]>({ destination: REGISTRY, path: ROOT, interface: ACC, member: 'GetChildren' });
      return { ok: true, detail: `${apps.length} application${apps.length === 1 ? '' : 's'} on the accessibility bus` };
    } catch (e) {
      return { ok: false, detail: (e as Error).message };
    }
  }

  async dispose(): Promise<void> {
    const bus = this.#bus;
    this.#bus = undefined;
    if (bus) (await bus.catch(() => undefined))?.close();
  }

  #connect(): Promise<DbusConnection> {
    this.#bus ??= (async () => {
      const address = await this.#address();
      try {
        const bus = await connectDbus(address);
        // The registry answers on a live bus; a stale address (launcher gone) fails here, once.
        await bus.call({ destination: REGISTRY, path: ROOT, interface: ACC, member: 'GetChildren' });
        return bus;
      } catch (e) {
        throw busUnavailable(address, e);
      }
    })();
    // A failed connection is tried again on the next read (the session may come up later).
    this.#bus.catch(() => (this.#bus = undefined));
    return this.#bus;
  }

  async #address(): Promise<string> {
    const env = this.#o.env;
    if (env.AT_SPI_BUS_ADDRESS) return env.AT_SPI_BUS_ADDRESS;
    if (this.#o.run) {
      // at-spi-bus-launcher publishes the address on the display's root window: right for the display we capture.
      const out = await this.#o.run('xprop', ['-root', '-notype', 'AT_SPI_BUS'], undefined, 2000).catch(() => '');
      const m = /AT_SPI_BUS\s*=\s*"([^"]+)"/.exec(out);
      if (m?.[1]) return m[1];
    }
    const session = env.DBUS_SESSION_BUS_ADDRESS ?? (this.#o.uid !== undefined ? `unix:path=/run/user/${this.#o.uid}/bus` : undefined);
    if (!session) throw busUnavailable('no session bus', new Error('DBUS_SESSION_BUS_ADDRESS is not set'));
    let bus: DbusConnection | undefined;
    try {
      bus = await connectDbus(session);
      return await bus.call<string>({ destination: 'org.a11y.Bus', path: '/org/a11y/bus', interface: 'org.a11y.Bus', member: 'GetAddress' });
    } catch (e) {
      throw busUnavailable(`session bus ${session}`, e);
    } finally {
      bus?.close();
    }
  }
}

/** The cached accessible still names the window (an app may reuse paths after closing one). */
async function stillNames(bus: DbusConnection, ref: ObjRef, window: WindowRef): Promise<boolean> {
  try {
    const name = await prop<string>(bus, ref, 'Name');
    return name === window.title;
  } catch {
    return false;
  }
}

interface Candidate {
  ref: ObjRef;
  score: number;
}

/**
 * The window's accessible among every application's top-level windows: the same process (when
 * both sides know it), the same title, and the most overlap with the window's bounds (a frame's
 * extents include or exclude the decorations depending on the toolkit, so bounds only break ties).
 */
async function findWindow(bus: DbusConnection, window: WindowRef): Promise<ObjRef | undefined> {
  const apps = await bus.call<ObjRef[]>({ destination: REGISTRY, path: ROOT, interface: ACC, member: 'GetChildren' });
  const found: Candidate[] = [];
  await Promise.all(
    apps.map(async ([name]) => {
      const [pid, tops] = await Promise.all([
        bus.call<number>({ destination: 'org.freedesktop.DBus', path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus', member: 'GetConnectionUnixProcessID', signature: 's', body: [name] }).catch(() => undefined),
        bus.call<ObjRef[]>({ destination: name, path: ROOT, interface: ACC, member: 'GetChildren' }).catch(() => [] as ObjRef[]),
      ]);
      if (window.pid && pid && window.pid !== pid) return;
      await Promise.all(
        tops.map(async (ref) => {
          const [title, ext] = await Promise.all([prop<string>(bus, ref, 'Name').catch(() => ''), extents(bus, ref)]);
          const score = (window.pid && pid === window.pid ? 4 : 0) + (title === window.title ? 2 : 0) + boxOverlap(ext, window.bounds);
          if (score >= 2) found.push({ ref, score });
        }),
      );
    }),
  );
  found.sort((a, b) => b.score - a.score);
  return found[0]?.ref;
}

interface Raw {
  ref: ObjRef;
  parent?: number;
  role: string;
  name: string;
  states: number[];
  bounds: Rect;
  children: ObjRef[];
}

/** The subtree under `root`, pre-order, parents before children. */
async function walk(bus: DbusConnection, root: ObjRef, max: number, signal: AbortSignal): Promise<AxElement[]> {
  const raws: Raw[] = [];
  // Breadth-first reads (one round trip a level), then put in pre-order.
  let level: { ref: ObjRef; parent?: number }[] = [{ ref: root }];
  const childIndex = new Map<number, number[]>();
  while (level.length && raws.length < max) {
    if (signal.aborted) throw signal.reason;
    const read = await Promise.all(level.slice(0, max - raws.length).map(({ ref, parent }) => readOne(bus, ref, parent)));
    const next: { ref: ObjRef; parent?: number }[] = [];
    for (const r of read) {
      if (!r) continue;
      const index = raws.push(r) - 1;
      if (r.parent !== undefined) childIndex.set(r.parent, [...(childIndex.get(r.parent) ?? []), index]);
      // What is not on screen (a hidden page, a closed menu) is not walked.
      if (index > 0 && !has(r.states, STATE.showing)) continue;
      for (const c of r.children.slice(0, MAX_CHILDREN)) next.push({ ref: c, parent: index });
    }
    level = next;
  }
  // Pre-order, with parents re-indexed.
  const order: number[] = [];
  const visit = (i: number): void => {
    order.push(i);
    for (const c of childIndex.get(i) ?? []) visit(c);
  };
  if (raws.length) visit(0);
  const at = new Map(order.map((raw, i) => [raw, i]));
  const elements = order.map((i): AxElement => toElement(raws[i]!, at));
  await readDetails(bus, order.map((i) => raws[i]!), elements);
  return elements;
}

async function readOne(bus: DbusConnection, ref: ObjRef, parent: number | undefined): Promise<Raw | undefined> {
  const [role, states, name, bounds, children] = await Promise.all([
    call<string>(bus, ref, ACC, 'GetRoleName'),
    call<number[]>(bus, ref, ACC, 'GetState'),
    prop<string>(bus, ref, 'Name'),
    extents(bus, ref),
    call<ObjRef[]>(bus, ref, ACC, 'GetChildren'),
  ]).catch(() => [undefined, undefined, undefined, undefined, undefined] as const);
  // An element that went away while being read is left out.
  if (role === undefined || states === undefined) return undefined;
  return { ref, ...(parent !== undefined ? { parent } : {}), role, name: name ?? '', states, bounds: bounds ?? empty(), children: children ?? [] };
}

function toElement(r: Raw, at: Map<number, number>): AxElement {
  const role = sharedRole('atspi', r.role);
  const password = r.role === 'password text';
  const states: AxStates = {
    enabled: has(r.states, STATE.enabled) && has(r.states, STATE.sensitive),
    showing: has(r.states, STATE.showing) && has(r.states, STATE.visible),
    ...(has(r.states, STATE.focused) ? { focused: true } : {}),
    ...(has(r.states, STATE.focusable) ? { focusable: true } : {}),
    ...(has(r.states, STATE.editable) ? { editable: true } : {}),
    ...(has(r.states, STATE.selected) ? { selected: true } : {}),
    ...(has(r.states, STATE.expanded) ? { expanded: true } : {}),
    ...(role === 'checkbox' || role === 'radio' || role === 'menuitemcheckbox' || role === 'menuitemradio' || r.role === 'toggle button' ? { checked: has(r.states, STATE.checked) } : {}),
    ...(password ? { password: true } : {}),
  };
  return {
    key: `${r.ref[0]}${r.ref[1]}`,
    ...(r.parent !== undefined ? { parent: at.get(r.parent)! } : {}),
    role,
    platformRole: r.role,
    name: r.name,
    bounds: r.bounds,
    states,
  };
}

/** Second round: fields' text, numbers, and what labels label (only the elements that have them). */
async function readDetails(bus: DbusConnection, raws: Raw[], elements: AxElement[]): Promise<void> {
  const byKey = new Map(elements.map((e, i) => [e.key!, i]));
  const relations = (i: number): Promise<[number, ObjRef[]][]> => call<[number, ObjRef[]][]>(bus, raws[i]!.ref, ACC, 'GetRelationSet').catch(() => []);
  const related = (set: [number, ObjRef[]][], type: number): number | undefined => {
    const t = set.find(([ty]) => ty === type)?.[1][0];
    return t ? byKey.get(`${t[0]}${t[1]}`) : undefined;
  };
  const labelledBy = new Map<number, number>();
  await Promise.all(
    elements.map(async (e, i) => {
      const ref = raws[i]!.ref;
      if (e.role === 'label') {
        const target = related(await relations(i), LABEL_FOR);
        if (target !== undefined) e.labelFor = target;
        return;
      }
      if (EDITABLE.has(e.role) && !e.name) {
        // A field is named by its label where the toolkit does not copy the label into the name (GTK 3),
        // else by its placeholder, as a page names a field that has nothing else (GTK 3 keeps it in an attribute).
        const label = related(await relations(i), LABELLED_BY);
        if (label !== undefined) labelledBy.set(i, label);
        else {
          const attributes = await call<[string, string][] | Record<string, string>>(bus, ref, ACC, 'GetAttributes').catch(() => undefined);
          const placeholder = attribute(attributes, 'placeholder-text')?.trim();
          if (placeholder) e.name = placeholder;
        }
      }
      // A password field's value is never read (the bus would hand it over).
      if (e.states.password) return;
      if (e.role === 'textbox' || e.role === 'combobox' || e.role === 'spinbutton') {
        const text = await call<string>(bus, ref, 'org.a11y.atspi.Text', 'GetText', 'ii', [0, -1]).catch(() => undefined);
        if (text) e.value = text;
      } else if (e.role === 'slider' || e.role === 'progressbar' || e.role === 'scrollbar' || e.role === 'meter') {
        const v = await call<number>(bus, ref, 'org.freedesktop.DBus.Properties', 'Get', 'ss', ['org.a11y.atspi.Value', 'CurrentValue']).catch(() => undefined);
        if (typeof v === 'number') e.value = String(Math.round(v * 1000) / 1000);
      }
    }),
  );
  for (const [field, label] of labelledBy) {
    elements[field]!.name = elements[label]!.name;
    elements[label]!.labelFor ??= field;
  }
}

function call<T>(bus: DbusConnection, [destination, path]: ObjRef, iface: string, member: string, signature?: string, body?: unknown[]): Promise<T> {
  return bus.call<T>({ destination, path, interface: iface, member, ...(signature ? { signature, body } : {}) });
}

function prop<T>(bus: DbusConnection, ref: ObjRef, name: string): Promise<T> {
  return call<T>(bus, ref, 'org.freedesktop.DBus.Properties', 'Get', 'ss', [ACC, name]);
}

async function extents(bus: DbusConnection, ref: ObjRef): Promise<Rect> {
  const e = await call<number[]>(bus, ref, 'org.a11y.atspi.Component', 'GetExtents', 'u', [COORD_SCREEN]).catch(() => undefined);
  if (!e || e.length < 4) return empty();
  const [x, y, width, height] = e as [number, number, number, number];
  // Toolkits report -1 (or -2^31) for an element with no place on screen.
  if (width <= 0 || height <= 0 || x < -100_000 || y < -100_000) return empty();
  return { x, y, width, height };
}

/** One attribute of an `a{ss}` answer (dbus-native hands a dict as [key, value] pairs). */
function attribute(attributes: [string, string][] | Record<string, string> | undefined, key: string): string | undefined {
  if (!attributes) return undefined;
  if (Array.isArray(attributes)) return attributes.find(([k]) => k === key)?.[1];
  return attributes[key];
}

function has(states: readonly number[], bit: number): boolean {
  const word = states[bit >> 5] ?? 0;
  return ((word >>> (bit & 31)) & 1) === 1;
}

function empty(): Rect {
  return { x: 0, y: 0, width: 0, height: 0 };
}
