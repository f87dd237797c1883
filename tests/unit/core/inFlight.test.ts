import { describe, expect, it } from 'vitest';
import { InFlight } from '../../../src/main/core/util/inFlight.ts';

const later = <T>(v: T, ms = 20): Promise<T> => new Promise((r) => setTimeout(() => r(v), ms));

describe('InFlight', () => {
  it('runs the work once for callers with the same key, and again once it has finished', async () => {
    const f = new InFlight<number>();
    let runs = 0;
    const work = async (): Promise<number> => later(++runs);
    const answers = await Promise.all([f.run('a', undefined, work), f.run('a', undefined, work), f.run('a', undefined, work)]);
    expect(answers).toEqual([1, 1, 1]);
    expect(f.size).toBe(0);
    expect(await f.run('a', undefined, work)).toBe(2);
  });

  it('runs different keys side by side', async () => {
    const f = new InFlight<string>();
    let running = 0;
    let most = 0;
    const work = (k: string) => async (): Promise<string> => {
      most = Math.max(most, ++running);
      await later(null);
      running--;
      return k;
    };
    expect(await Promise.all(['a', 'b', 'c'].map((k) => f.run(k, undefined, work(k))))).toEqual(['a', 'b', 'c']);
    expect(most).toBe(3);
  });

  it('shares a failure with every caller, and forgets it', async () => {
    const f = new InFlight<number>();
    const boom = async (): Promise<number> => {
      await later(null);
      throw new Error('boom');
    };
    const all = await Promise.allSettled([f.run('a', undefined, boom), f.run('a', undefined, boom)]);
    expect(all.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await f.run('a', undefined, async () => 7)).toBe(7);
  });

  it('answers a caller who gives up CANCELLED, keeps the work for the others, and stops it when the last one leaves', async () => {
    const f = new InFlight<string>();
    let seen: AbortSignal | undefined;
    const work = (signal: AbortSignal): Promise<string> => {
      seen = signal;
      return new Promise((ok, fail) => {
        const t = setTimeout(() => ok('done'), 50);
        signal.addEventListener('abort', () => {
          clearTimeout(t);
          fail(new Error('aborted'));
        });
      });
    };
    const a = new AbortController();
    const b = new AbortController();
    const first = f.run('k', a.signal, work);
    const second = f.run('k', b.signal, work);
    a.abort();
    await expect(first).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(seen!.aborted).toBe(false);
    expect(await second).toBe('done');

    const c = new AbortController();
    const d = new AbortController();
    const third = f.run('k', c.signal, work);
    const fourth = f.run('k', d.signal, work);
    c.abort();
    d.abort();
    await expect(third).rejects.toMatchObject({ code: 'CANCELLED' });
    await expect(fourth).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(seen!.aborted).toBe(true);
  });

  it('refuses a caller whose signal is already aborted without starting anything', async () => {
    const f = new InFlight<number>();
    let runs = 0;
    await expect(f.run('a', AbortSignal.abort(), async () => ++runs)).rejects.toMatchObject({ code: 'CANCELLED' });
    expect(runs).toBe(0);
  });
});
