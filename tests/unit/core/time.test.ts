import { describe, expect, it } from 'vitest';
import { displayLocalTime, parseTimeInput, toLocalIso } from '../../../src/main/core/util/time.ts';

describe('time inputs', () => {
  it('reads a date alone as LOCAL midnight, unlike new Date(date)', () => {
    const d = parseTimeInput('2025-01-15', 'from');
    expect([d.getFullYear(), d.getMonth(), d.getDate(), d.getHours(), d.getMinutes()]).toEqual([2025, 0, 15, 0, 0]);
  });
  it('keeps an explicit offset', () => {
    expect(parseTimeInput('2025-01-15T10:30:00+01:00', 'to').toISOString()).toBe('2025-01-15T09:30:00.000Z');
    expect(parseTimeInput('2025-01-15T10:30:00Z', 'to').toISOString()).toBe('2025-01-15T10:30:00.000Z');
  });
  it('refuses what is not ISO-8601, naming the field', () => {
    for (const bad of ['yesterday', '15/01/2025', '2025-13-01', '']) expect(() => parseTimeInput(bad, 'from')).toThrow(/"from" is not an ISO-8601/);
  });
  it('formats with the local offset and wall-clock time', () => {
    const d = new Date(2025, 5, 1, 8, 9, 10);
    expect(toLocalIso(d)).toMatch(/^2025-06-01T08:09:10\.000[+-]\d\d:\d\d$|^2025-06-01T08:09:10\.000Z$/);
    expect(displayLocalTime(d)).toBe('2025-06-01 08:09:10');
  });
});
