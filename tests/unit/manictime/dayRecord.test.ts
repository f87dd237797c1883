import { describe, expect, it } from 'vitest';
import { DayBuilder, decodeShots, fileNamesOf } from '../../../src/main/core/sources/manictime/dayRecord.ts';
import { newNameFields, parseNameInto } from '../../../src/main/core/sources/manictime/filename.ts';

function build(names: Array<[string, string?]>) {
  const b = new DayBuilder();
  const f = newNameFields();
  for (const [name, sub] of names) {
    if (parseNameInto(name, f)) b.add(name, f, sub ?? '');
    else b.addUnknown(name, sub ?? '');
  }
  return { builder: b, record: b.build('2024-03-30', 'fp', [], false) };
}

describe('DayBuilder', () => {
  it('pairs thumbnails with full images by identity, not by W_H, and keeps collisions apart', () => {
    const { record } = build([
      ['2024-03-30_10-00-00_01-00_320_200_1000_0.jpg'],
      ['2024-03-30_10-00-00_01-00_160_100_1000_0.thumbnail.jpg'], // own size in the name
      ['2024-03-30_10-00-00_01-00_200_320_1001_1.jpg'],
      ['2024-03-30_10-00-00_01-00_200_320_1001_1.thumbnail.jpg'], // full size in the name
      ['2024-03-30_10-00-00_01-00_320_200_1002_0.jpg'], // same second, same monitor, next id
      ['2024-03-30_10-05-00_01-00_160_100_1003_0.thumbnail.jpg'], // thumbnail without its full image
      ['desktop.ini'],
    ]);
    const shots = decodeShots(record.data);
    expect(record).toMatchObject({ count: 4, files: 7, unknown: 1 });
    expect(shots.map((s) => [s.id, s.monitor, s.width, s.height, s.hasFull, s.hasThumb, s.thumbWidth])).toEqual([
      [1000, 0, 320, 200, true, true, 160],
      [1002, 0, 320, 200, true, false, 0],
      [1001, 1, 200, 320, true, true, 200],
      [1003, 0, 160, 100, false, true, 160],
    ]);
    expect(record.firstMs).toBe(Date.UTC(2024, 2, 30, 9));
    expect(record.unknownSamples).toEqual(['desktop.ini']);
  });

  it('separates captures that share an id but not the rest of the identity', () => {
    const { record } = build([
      ['2024-03-30_10-00-00_01-00_320_200_7_0.jpg'],
      ['2024-03-30_10-00-00_01-00_320_200_7_1.jpg'],
      ['2024-03-30_10-00-00_01-00_160_100_7_1.thumbnail.jpg'],
    ]);
    const shots = decodeShots(record.data);
    expect(shots.map((s) => [s.monitor, s.hasThumb])).toEqual([
      [0, false],
      [1, true],
    ]);
  });

  it('round-trips file names, keeping exact names that are not canonical', () => {
    const names = [
      '2024-03-30_10-00-00_01-00_320_200_1000_0.jpg',
      '2024-03-30_10-00-00_01-00_160_100_1000_0.thumbnail.jpg',
      '2024-03-30_11-00-00_+01-00_320_200_1005_0.JPG',
      '2024-03-29_09-00-00_01-00_320_200_100.png',
      '2024-04-02_08-00-00_-05-00_320_200_3000_0.jpg',
    ];
    const { record } = build(names.map((n) => [n, n.includes('_1005_') ? 'sub/deeper' : undefined]));
    const got = decodeShots(record.data).flatMap((s) => {
      const n = fileNamesOf(s);
      return [n.full, n.thumb].filter(Boolean).map((x) => (s.subdir ? `${s.subdir}/${x}` : x));
    });
    expect(got.sort()).toEqual([...names.slice(0, 2), 'sub/deeper/2024-03-30_11-00-00_+01-00_320_200_1005_0.JPG', ...names.slice(3)].sort());
  });

  it('encodes an empty day', () => {
    const { record } = build([]);
    expect(record.count).toBe(0);
    expect(decodeShots(record.data)).toEqual([]);
  });
});
