import { describe, expect, it } from 'vitest';
import { matchTarget, type TargetEntry } from '../../../src/cli/agent/target.ts';

const targets: TargetEntry[] = [
  { id: 'browser:A', source: 'browser', kind: 'tab', title: 'Inbox — Mail', details: { url: 'https://mail.example/inbox' } },
  { id: 'browser:B', source: 'browser', kind: 'tab', title: 'Mail settings', details: { url: 'https://mail.example/settings' } },
  { id: 'desktop:window:7', source: 'desktop', kind: 'window', title: 'Untitled - Notes', app: 'notes' },
  { id: 'android:emu', source: 'android', kind: 'device', title: 'Pixel', details: { package: 'com.example.notes' } },
];

describe('matchTarget', () => {
  it('an exact id wins', () => {
    expect(matchTarget('browser:B', targets)).toMatchObject({ ok: true, target: { id: 'browser:B' } });
  });
  it('matches title, app, package and URL case-insensitively', () => {
    expect(matchTarget('inbox', targets)).toMatchObject({ ok: true, target: { id: 'browser:A' } });
    expect(matchTarget('/SETTINGS', targets)).toMatchObject({ ok: true, target: { id: 'browser:B' } });
    expect(matchTarget('com.example.notes', targets)).toMatchObject({ ok: true, target: { id: 'android:emu' } });
  });
  it('an exact field beats a partial one', () => {
    expect(matchTarget('NOTES', targets)).toMatchObject({ ok: true, target: { id: 'desktop:window:7' } });
  });
  it('ambiguous: lists the candidates by id', () => {
    const m = matchTarget('mail', targets);
    expect(m.ok).toBe(false);
    if (m.ok) return;
    expect(m.candidates.map((c) => c.id)).toEqual(['browser:A', 'browser:B']);
    expect(m.message).toMatch(/matches 2 targets; pass one id with --target:\n {2}browser:A {2}tab {2}"Inbox — Mail"/);
  });
  it('no match: lists every target', () => {
    const m = matchTarget('calculator', targets);
    expect(m.ok).toBe(false);
    if (!m.ok) expect(m.message.split('\n')).toHaveLength(1 + targets.length);
  });
});
