import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { matchesQuery, parseBounds, parseUiDump } from '../../../src/main/core/sources/android/uiDump.ts';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/android/${name}`, import.meta.url), 'utf8');

describe('parseUiDump', () => {
  const screen = { width: 1080, height: 2400 };
  const dump = parseUiDump(fixture('uiautomator-settings-1080x2400.xml'), screen);

  it('gives every node a unique id in document order, with its parent', () => {
    const ids = dump.nodes.map((n) => n.id);
    expect(ids).toEqual(dump.nodes.map((_, i) => String(i)));
    expect(dump.rotation).toBe(0);
    expect(dump.nodes[0]).toMatchObject({ id: '0', role: 'android.widget.FrameLayout', bounds: { x: 0, y: 0, width: 1080, height: 2400 } });
    expect(dump.nodes[0]!.parentId).toBeUndefined();
    for (const n of dump.nodes.slice(1)) expect(Number(n.parentId)).toBeLessThan(Number(n.id));
    // The XML's own index is only the sibling position: kept as an attribute.
    expect(new Set(dump.nodes.map((n) => n.attributes?.index)).size).toBeLessThan(dump.nodes.length);
  });

  it('maps text, content-desc, resource-id, class, clickable, enabled and bounds', () => {
    const search = dump.nodes.find((n) => n.attributes?.['content-desc'] === 'Search settings')!;
    expect(search).toMatchObject({ role: 'android.widget.Button', name: 'Search settings', clickable: true, enabled: true, bounds: { x: 912, y: 374, width: 132, height: 132 }, inViewport: true });
    const title = dump.nodes.find((n) => n.name === 'Network & internet')!;
    expect(title).toMatchObject({ role: 'android.widget.TextView', clickable: false, attributes: { 'resource-id': 'android:id/title', text: 'Network & internet', package: 'com.android.settings' } });
    // Text wins over content-desc for the name.
    expect(dump.nodes.find((n) => n.attributes?.['resource-id'] === 'com.android.settings:id/search_bar')!.name).toBe('Settings');
  });

  it('decodes entities, numeric references and non-ASCII text', () => {
    const names = dump.nodes.map((n) => n.name);
    expect(names).toContain('Display & touch');
    expect(names).toContain('Dark theme, font size, "brightness"');
    expect(names).toContain('Sécurité & confidentialité');
    expect(names).toContain('Écran de verrouillage\nEmpreinte');
  });

  it('marks flags and off-screen or disabled nodes', () => {
    const sw = dump.nodes.find((n) => n.role === 'android.widget.Switch')!;
    expect(sw.attributes).toMatchObject({ checkable: 'true', checked: 'true' });
    const off = dump.nodes.find((n) => n.attributes?.['resource-id'] === 'com.android.settings:id/offscreen')!;
    expect(off).toMatchObject({ enabled: false, inViewport: false, attributes: { password: 'true' } });
    expect(off.attributes?.checked).toBeUndefined();
  });

  it('reads several top-level windows, a rotation and the /dev/tty trailer', () => {
    const land = parseUiDump(fixture('uiautomator-notes-landscape-devtty.txt'), { width: 2400, height: 1080 });
    expect(land.rotation).toBe(1);
    expect(land.nodes.filter((n) => n.parentId === undefined)).toHaveLength(2);
    expect(land.nodes.find((n) => n.name === 'Save')).toMatchObject({ bounds: { x: 2160, y: 900, width: 160, height: 140 }, clickable: true });
    expect(land.nodes.find((n) => n.name === '12:05')!.parentId).toBe(String(land.nodes.findIndex((n) => n.attributes?.package === 'com.android.systemui')));
  });

  it('finds the XML after "UI hierchary dumped to:" text, and says what uiautomator said on failure', () => {
    const xml = fixture('uiautomator-settings-1080x2400.xml');
    expect(parseUiDump(`UI hierchary dumped to: /data/local/tmp/x.xml\n${xml}`).nodes).toHaveLength(dump.nodes.length);
    expect(() => parseUiDump(fixture('uiautomator-idle-error.txt'))).toThrow('uiautomator dump failed: ERROR: could not get idle state.');
    expect(() => parseUiDump('')).toThrow('uiautomator dump returned nothing');
    expect(() => parseUiDump('<hierarchy rotation="0"><node index="0" bounds="[0,0][1,1]"></hierarchy>')).toThrow(/not valid XML/);
  });
});

describe('parseBounds and matchesQuery', () => {
  it('parses [x1,y1][x2,y2] and tolerates junk', () => {
    expect(parseBounds('[10,20][110,220]')).toEqual({ x: 10, y: 20, width: 100, height: 200 });
    expect(parseBounds('[-5,0][5,10]')).toEqual({ x: -5, y: 0, width: 10, height: 10 });
    expect(parseBounds('')).toEqual({ x: 0, y: 0, width: 0, height: 0 });
  });

  it('matches name, resource-id, content-desc and class, case-insensitively', () => {
    const dump = parseUiDump(fixture('uiautomator-settings-1080x2400.xml'));
    const hits = (q: string) => dump.nodes.filter((n) => matchesQuery(n, q)).map((n) => n.name || n.attributes?.['resource-id']);
    expect(hits('search SETTINGS')).toEqual(['Search settings']);
    expect(hits('recycler_view')).toEqual(['com.android.settings:id/recycler_view']);
    expect(hits('android.widget.switch')).toEqual(['android:id/switch_widget']);
  });
});
