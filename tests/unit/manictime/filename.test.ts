import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  capturedAtIso,
  displayLocalTime,
  formatScreenshotName,
  isDayFolderName,
  offsetField,
  pairKey,
  parseScreenshotName,
} from '../../../src/main/core/sources/manictime/filename.ts';

// Golden names: the first is a real ManicTime name (de-CH machine, UTC+1).
describe('parseScreenshotName v1', () => {
  it('parses a real full-size name with an unsigned positive offset', () => {
    const p = parseScreenshotName('2026-02-27_06-14-44_01-00_3866_2330_517204_1.jpg');
    expect(p).toEqual({
      version: 'v1',
      date: '2026-02-27',
      time: '06:14:44',
      offsetMinutes: 60,
      width: 3866,
      height: 2330,
      id: 517204,
      monitor: 1,
      thumbnail: false,
      ext: 'jpg',
      utcMs: Date.UTC(2026, 1, 27, 5, 14, 44),
      canonical: true,
    });
  });

  it('parses a thumbnail', () => {
    const p = parseScreenshotName('2026-02-27_06-14-44_01-00_3866_2330_517204_1.thumbnail.jpg');
    expect(p?.thumbnail).toBe(true);
    expect(p?.id).toBe(517204);
    expect(p?.canonical).toBe(true);
  });

  it('parses a negative offset', () => {
    const p = parseScreenshotName('2025-06-20_14-05-30_-05-00_2560_1440_1_2.jpg');
    expect(p?.offsetMinutes).toBe(-300);
    expect(p?.utcMs).toBe(Date.UTC(2025, 5, 20, 19, 5, 30));
    expect(p?.monitor).toBe(2);
  });

  it('accepts a + sign and half-hour offsets, marking + as non-canonical', () => {
    const p = parseScreenshotName('2025-01-15_08-30-00_+05-30_1920_1080_0_0.jpg');
    expect(p?.offsetMinutes).toBe(330);
    expect(p?.canonical).toBe(false);
    expect(parseScreenshotName('2025-07-01_12-00-00_00-00_1920_1080_0_0.jpg')?.offsetMinutes).toBe(0);
  });

  it('is case-insensitive on suffixes (Windows) but marks them non-canonical', () => {
    const p = parseScreenshotName('2025-01-15_08-30-00_01-00_1920_1080_7_0.Thumbnail.JPG');
    expect(p?.thumbnail).toBe(true);
    expect(p?.canonical).toBe(false);
  });

  it('marks leading zeros non-canonical', () => {
    expect(parseScreenshotName('2025-01-15_08-30-00_01-00_1920_1080_007_0.jpg')?.canonical).toBe(false);
  });

  it('handles a leap day and the last second of a year', () => {
    expect(parseScreenshotName('2024-02-29_23-59-59_00-00_800_600_1_0.jpg')?.date).toBe('2024-02-29');
    expect(parseScreenshotName('2025-12-31_23-59-59_-12-00_800_600_1_0.jpg')?.utcMs).toBe(Date.UTC(2026, 0, 1, 11, 59, 59));
  });
});

describe('parseScreenshotName v0', () => {
  it('parses old .png names without a monitor field', () => {
    const p = parseScreenshotName('2019-05-02_09-00-00_02-00_1280_1024_12345.png');
    expect(p).toMatchObject({ version: 'v0', monitor: undefined, ext: 'png', id: 12345, width: 1280, height: 1024, thumbnail: false });
    expect(parseScreenshotName('2019-05-02_09-00-00_02-00_640_512_12345.thumbnail.png')?.thumbnail).toBe(true);
  });

  it('does not mix the versions: 7 fields need .jpg, 6 fields need .png', () => {
    expect(parseScreenshotName('2019-05-02_09-00-00_02-00_1280_1024_12345.jpg')).toBeNull();
    expect(parseScreenshotName('2019-05-02_09-00-00_02-00_1280_1024_12345_0.png')).toBeNull();
  });
});

describe('parseScreenshotName rejects', () => {
  const bad = [
    '',
    'some_random_file.jpg',
    'desktop.ini',
    'Thumbs.db',
    '2025-01-15_08-30-00.jpg',
    '2025-01-15_08-30-00_01-00_1920_1080_0_0.gif',
    '2025-01-15_08-30-00_01-00_1920_1080_0_0.jpg.tmp',
    '2025-13-15_08-30-00_01-00_1920_1080_0_0.jpg', // month 13
    '2025-02-30_08-30-00_01-00_1920_1080_0_0.jpg', // 30 February
    '2023-02-29_08-30-00_01-00_1920_1080_0_0.jpg', // not a leap year
    '2025-01-15_25-30-00_01-00_1920_1080_0_0.jpg', // hour 25
    '2025-01-15_08-60-00_01-00_1920_1080_0_0.jpg',
    '2025-01-15_08-30-60_01-00_1920_1080_0_0.jpg',
    '2025-01-15_08-30-00_1920_1080_0_0.jpg', // no offset
    '2025-01-15_08-30-00_01-00_-1920_1080_0_0.jpg', // negative width
    '2025-01-15_08-30-00_01-00_0_1080_0_0.jpg', // zero width
    '2025-01-15_08-30-00_15-00_1920_1080_0_0.jpg', // offset beyond +14
    '2025-01-15_08-30-00_01-60_1920_1080_0_0.jpg',
    '2025-01-15_08-30-00_01-00_1920_1080_0_0_9.jpg', // 5 numeric fields
    '2025-01-15_08-30-00_01-00_1920_1080__0.jpg', // empty field
    '2025-01-15_08-30-00_01-00_1920_1080_0_0_.jpg',
    '2025-01-15_08-30-00_01-00_1920_1080_0_0.thumbnail.thumbnail.jpg',
    '2025-01-15_08-30-00_01-00_1920_1080_0x_0.jpg',
    '2025-01-15_08-30-00_01-00_1920_1080_1234567890123456_0.jpg', // id > 15 digits
    '1969-12-31_23-59-59_00-00_800_600_1_0.jpg',
    '２０２５-01-15_08-30-00_01-00_1920_1080_0_0.jpg', // full-width digits: culture-invariant means ASCII only
    '2025-01-15_08-30-00_01-00_١٩٢٠_1080_0_0.jpg', // Arabic-Indic digits
    '2025-01-15T08-30-00_01-00_1920_1080_0_0.jpg',
    '../2025-01-15_08-30-00_01-00_1920_1080_0_0.jpg',
  ];
  it.each(bad)('%s', (name) => {
    expect(parseScreenshotName(name)).toBeNull();
  });

  it('never throws on arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 140 }), (s) => {
        const p = parseScreenshotName(s);
        return p === null || (Number.isFinite(p.utcMs) && p.width > 0 && p.height > 0);
      }),
      { numRuns: 3000 },
    );
  });
});

describe('names round-trip', () => {
  it('formatScreenshotName inverts parse for canonical names (property)', () => {
    const arb = fc.record({
      t: fc.integer({ min: Date.UTC(1990, 0, 1) / 1000, max: Date.UTC(2090, 0, 1) / 1000 }),
      offsetMinutes: fc.integer({ min: -12 * 4, max: 14 * 4 }).map((q) => q * 15),
      width: fc.integer({ min: 1, max: 20000 }),
      height: fc.integer({ min: 1, max: 20000 }),
      id: fc.integer({ min: 0, max: 2 ** 40 }),
      monitor: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
      thumbnail: fc.boolean(),
    });
    fc.assert(
      fc.property(arb, (a) => {
        const wall = new Date(a.t * 1000 + a.offsetMinutes * 60_000).toISOString();
        const fields = {
          date: wall.slice(0, 10),
          time: wall.slice(11, 19),
          offsetMinutes: a.offsetMinutes,
          width: a.width,
          height: a.height,
          id: a.id,
          monitor: a.monitor,
          thumbnail: a.thumbnail,
          ext: a.monitor === undefined ? ('png' as const) : ('jpg' as const),
        };
        const name = formatScreenshotName(fields);
        const p = parseScreenshotName(name);
        return p !== null && p.canonical && p.utcMs === a.t * 1000 && formatScreenshotName(p) === name;
      }),
      { numRuns: 2000 },
    );
  });

  it('derives ISO capture times with the file’s own offset and its wall clock', () => {
    const p = parseScreenshotName('2024-03-31_03-00-00_02-00_320_200_5_0.jpg')!;
    expect(capturedAtIso(p)).toBe('2024-03-31T03:00:00+02:00');
    expect(displayLocalTime(p)).toBe('2024-03-31 03:00:00');
    expect(Date.parse(capturedAtIso(p))).toBe(p.utcMs);
    const n = parseScreenshotName('2024-04-02_08-00-00_-05-00_320_200_5_0.jpg')!;
    expect(capturedAtIso(n)).toBe('2024-04-02T08:00:00-05:00');
    expect(offsetField(-300)).toBe('-05-00');
    expect(offsetField(60)).toBe('01-00');
  });

  it('pairs a thumbnail with its full image regardless of the W_H in its name', () => {
    const full = parseScreenshotName('2024-03-30_10-00-00_01-00_320_200_1000_0.jpg')!;
    const thumbOwnSize = parseScreenshotName('2024-03-30_10-00-00_01-00_160_100_1000_0.thumbnail.jpg')!;
    const otherMonitor = parseScreenshotName('2024-03-30_10-00-00_01-00_320_200_1000_1.thumbnail.jpg')!;
    expect(pairKey(thumbOwnSize)).toBe(pairKey(full));
    expect(pairKey(otherMonitor)).not.toBe(pairKey(full));
  });
});

describe('isDayFolderName', () => {
  it.each([
    ['2024-03-31', true],
    ['2024-02-29', true],
    ['2023-02-29', false],
    ['2024-3-31', false],
    ['Temp', false],
    ['2024-03-31x', false],
  ])('%s → %s', (name, ok) => {
    expect(isDayFolderName(name)).toBe(ok);
  });
});
