/**
 * `uiautomator dump` → a flat node list in device pixels. Pure (tested on dumps in
 * tests/fixtures/android). Ids are the document (pre-order) position as a string, so they are
 * unique and stable for one dump; the XML's own `index` is only the position among siblings.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Rect } from '../../../../shared/frame.ts';
import type { SourceUiNode } from '../source.ts';

export interface UiDump {
  /** The `rotation` attribute of `<hierarchy>` (quarter turns), when present. */
  rotation?: number;
  nodes: SourceUiNode[];
}

type XmlNode = Record<string, string | XmlNode[] | undefined> & { node?: XmlNode[] };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name) => name === 'node',
  parseAttributeValue: false,
  // Numeric references (`&#10;` in multi-line text) as well as the five XML ones.
  htmlEntities: true,
  trimValues: false,
});

/** Attributes worth passing on besides the ones mapped to UiNode fields (true flags only). */
const FLAGS = ['checkable', 'checked', 'focusable', 'focused', 'scrollable', 'long-clickable', 'password', 'selected'] as const;

export function parseUiDump(output: string, screen?: { width: number; height: number }): UiDump {
  const start = output.search(/<\?xml|<hierarchy/);
  const end = output.lastIndexOf('</hierarchy>');
  if (start < 0 || end < 0) {
    const said = output.trim().split('\n').slice(0, 3).join(' ').slice(0, 300);
    throw new Error(said ? `uiautomator dump failed: ${said}` : 'uiautomator dump returned nothing');
  }
  const xml = output.slice(start, end + '</hierarchy>'.length);
  // The parser is lenient (an unclosed node parses); a cut or corrupt dump must not.
  const valid = XMLValidator.validate(xml);
  if (valid !== true) throw new Error(`uiautomator dump is not valid XML: ${valid.err.msg} (line ${valid.err.line})`);
  const doc = parser.parse(xml) as { hierarchy?: XmlNode };
  const root = doc.hierarchy;
  if (!root || typeof root !== 'object') throw new Error('uiautomator dump has no <hierarchy>');
  const nodes: SourceUiNode[] = [];
  const walk = (n: XmlNode, parentId: string | undefined): void => {
    const id = String(nodes.length);
    nodes.push(toNode(n, id, parentId, screen));
    for (const child of n.node ?? []) walk(child, id);
  };
  for (const top of root.node ?? []) walk(top, undefined);
  const rotation = typeof root.rotation === 'string' && /^\d$/.test(root.rotation) ? Number(root.rotation) : undefined;
  return { ...(rotation !== undefined ? { rotation } : {}), nodes };
}

function toNode(n: XmlNode, id: string, parentId: string | undefined, screen?: { width: number; height: number }): SourceUiNode {
  const attr = (k: string): string => (typeof n[k] === 'string' ? n[k] : '');
  const text = attr('text');
  const desc = attr('content-desc');
  const bounds = parseBounds(attr('bounds'));
  const attributes: Record<string, string> = {};
  for (const k of ['resource-id', 'content-desc', 'text', 'package', 'hint'] as const) if (attr(k)) attributes[k] = attr(k);
  if (attr('index')) attributes.index = attr('index');
  for (const k of FLAGS) if (attr(k) === 'true') attributes[k] = 'true';
  const node: SourceUiNode = {
    id,
    role: attr('class') || 'node',
    name: text || desc,
    bounds,
    clickable: attr('clickable') === 'true',
    enabled: attr('enabled') !== 'false',
    attributes,
  };
  if (parentId !== undefined) node.parentId = parentId;
  if (screen) node.inViewport = intersects(bounds, screen);
  return node;
}

/** `[x1,y1][x2,y2]` → {x, y, width, height} (empty rect for anything else). */
export function parseBounds(s: string): Rect {
  const m = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(s.trim());
  if (!m) return { x: 0, y: 0, width: 0, height: 0 };
  const [x1, y1, x2, y2] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
  return { x: x1, y: y1, width: Math.max(0, x2 - x1), height: Math.max(0, y2 - y1) };
}

/** Whether a box shows on a screen of this size (some of it, with a non-empty box). */
export function intersects(r: Rect, s: { width: number; height: number }): boolean {
  return r.width > 0 && r.height > 0 && r.x < s.width && r.y < s.height && r.x + r.width > 0 && r.y + r.height > 0;
}

/** Case-insensitive match on name, resource-id, content-desc and class. */
export function matchesQuery(n: SourceUiNode, query: string): boolean {
  const q = query.toLowerCase();
  return [n.name, n.role, n.attributes?.['resource-id'], n.attributes?.['content-desc'], n.attributes?.text].some((v) => !!v && v.toLowerCase().includes(q));
}
