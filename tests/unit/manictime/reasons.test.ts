import { describe, expect, it } from 'vitest';
import { explainEmpty, type ArchiveFacts } from '../../../src/main/core/sources/manictime/reasons.ts';

const DAY = 86_400_000;
const now = Date.UTC(2024, 3, 10, 12);
const facts = (over: Partial<ArchiveFacts> = {}): ArchiveFacts => ({
  folderFound: true,
  folder: '/mt/Screenshots',
  total: 100,
  firstMs: now - 3 * DAY,
  lastMs: now - 60_000,
  inWindowAnyTarget: 0,
  target: undefined,
  targetsInWindow: [],
  ...over,
});

describe('explainEmpty', () => {
  it('SOURCE_UNAVAILABLE when the folder is missing, naming the settings', () => {
    const e = explainEmpty(facts({ folderFound: false }), { fromMs: 0, toMs: now }, now);
    expect(e.reason).toBe('SOURCE_UNAVAILABLE');
    expect(e.remediation).toMatch(/manictime\.dataDir/);
  });

  it('CAPTURE_DISABLED when there are no screenshots at all', () => {
    const e = explainEmpty(facts({ total: 0 }), { fromMs: now - DAY, toMs: now }, now);
    expect(e.reason).toBe('CAPTURE_DISABLED');
    expect(e.remediation).toMatch(/Screenshots/);
  });

  it('RETENTION_OR_PURGED when the window ends before the oldest kept screenshot', () => {
    const e = explainEmpty(facts(), { fromMs: now - 10 * DAY, toMs: now - 9 * DAY }, now);
    expect(e.reason).toBe('RETENTION_OR_PURGED');
    expect(e.remediation).toMatch(/3 days by default/);
  });

  it('CAPTURE_DISABLED when nothing was captured since long before the window', () => {
    const e = explainEmpty(facts({ firstMs: now - 40 * DAY, lastMs: now - 30 * DAY }), { fromMs: now - DAY, toMs: now }, now);
    expect(e.reason).toBe('CAPTURE_DISABLED');
  });

  it('UNKNOWN for a gap between screenshots (idle, locked, off)', () => {
    const e = explainEmpty(facts(), { fromMs: now - 2 * DAY, toMs: now - 2 * DAY + 3_600_000 }, now);
    expect(e.reason).toBe('UNKNOWN');
    expect(e.remediation).toMatch(/idle|locked|off/);
  });

  it('NO_MATCH when only the target filter excludes everything', () => {
    const e = explainEmpty(facts({ inWindowAnyTarget: 4, target: 'manictime:monitor:7', targetsInWindow: ['manictime:monitor:0'] }), { fromMs: 0, toMs: now }, now);
    expect(e.reason).toBe('NO_MATCH');
    expect(e.remediation).toMatch(/manictime:monitor:0/);
  });
});
