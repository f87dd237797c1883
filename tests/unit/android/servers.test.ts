import { describe, expect, it } from 'vitest';
import type { TargetInfo } from '../../../src/shared/frame.ts';
import { dedupeTargets, extraServers, mapLimit, parseServerAddress, parseTargetId, sameServer, serverKey, targetId } from '../../../src/main/core/sources/android/servers.ts';
import { androidSettings } from '../../../src/main/core/sources/android/settings.ts';

describe('server addresses', () => {
  it('parses host:port as adb -H -P take them, IPv6 in brackets', () => {
    expect(parseServerAddress('192.168.1.20:5037')).toEqual({ host: '192.168.1.20', port: 5037 });
    expect(parseServerAddress(' Lab-Box.local:5555 ')).toEqual({ host: 'lab-box.local', port: 5555 });
    expect(parseServerAddress('[::1]:5038')).toEqual({ host: '::1', port: 5038 });
    for (const bad of ['5037', 'host', 'host:0', 'host:70000', 'ho st:5037', 'http://host:5037', '::1:5037', '-host:5037', 'host:-1']) {
      expect(parseServerAddress(bad), bad).toHaveProperty('error');
    }
  });

  it('keys addresses as ids write them; loopback names one machine', () => {
    expect(serverKey({ host: '10.0.0.5', port: 5037 })).toBe('10.0.0.5:5037');
    expect(serverKey({ host: '::1', port: 5037 })).toBe('[::1]:5037');
    expect(sameServer({ host: 'localhost', port: 5037 }, { host: '127.0.0.1', port: 5037 })).toBe(true);
    expect(sameServer({ host: '127.0.0.1', port: 5037 }, { host: '127.0.0.1', port: 5038 })).toBe(false);
  });

  it('the extra servers leave out the default one and repeats, keeping their order', () => {
    const local = { host: '127.0.0.1', port: 5037 };
    expect(extraServers(['10.0.0.5:5037', 'localhost:5037', '10.0.0.5:5037', 'lab:6000', 'bad'], local).map(serverKey)).toEqual(['10.0.0.5:5037', 'lab:6000']);
  });

  it('the settings schema refuses a bad address and names it', () => {
    expect(androidSettings.parse({ servers: ['10.0.0.5:5037'] })).toEqual({ servers: ['10.0.0.5:5037'] });
    expect(androidSettings.parse(undefined)).toEqual({ servers: [] });
    const r = androidSettings.safeParse({ servers: ['10.0.0.5'] });
    expect(r.success).toBe(false);
    expect(JSON.stringify(r.error?.issues)).toMatch(/"servers",0.*host:port/);
  });
});

describe('target ids', () => {
  const servers = ['10.0.0.5:5037', '[::1]:5038'];
  it('a device on the default server is android:<serial>; behind another, android:<host>:<port>/<serial>', () => {
    expect(targetId(undefined, '127.0.0.1:5555')).toBe('android:127.0.0.1:5555');
    expect(targetId('10.0.0.5:5037', 'emulator-5554')).toBe('android:10.0.0.5:5037/emulator-5554');
    for (const [server, serial] of [[undefined, 'R58M123ABC'], [undefined, '127.0.0.1:5555'], ['10.0.0.5:5037', '127.0.0.1:5555'], ['[::1]:5038', 'adb-XYZ._adb-tls-connect._tcp']] as const) {
      const id = targetId(server, serial);
      expect(parseTargetId(id, servers)).toEqual({ id, ...(server ? { server } : {}), serial });
    }
  });

  it('a prefix that is not a configured server is part of the serial; other ids are not Android ones', () => {
    expect(parseTargetId('android:10.0.0.9:5037/x', servers)).toEqual({ id: 'android:10.0.0.9:5037/x', serial: '10.0.0.9:5037/x' });
    expect(parseTargetId('browser:tab:1', servers)).toBeUndefined();
    expect(parseTargetId('android:', servers)).toBeUndefined();
  });
});

describe('one entry per phone', () => {
  const t = (id: string, state = 'device'): TargetInfo => ({ id, source: 'android', kind: 'device', title: id, state });
  it('the same boot id on two servers is listed once, under the first server where it is ready, naming the other id', () => {
    const out = dedupeTargets([
      { info: t('android:A', 'offline'), bootId: 'b1' },
      { info: t('android:B'), bootId: 'b2' },
      { info: t('android:10.0.0.5:5037/A'), bootId: 'b1' },
      { info: t('android:10.0.0.5:5037/C') },
      { info: t('android:10.0.0.6:5037/B'), bootId: 'b2' },
    ]);
    expect(out.map((x) => [x.id, x.details?.alsoAs])).toEqual([
      ['android:B', ['android:10.0.0.6:5037/B']],
      ['android:10.0.0.5:5037/A', ['android:A']],
      ['android:10.0.0.5:5037/C', undefined],
    ]);
  });

  it('mapLimit keeps the order and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3, 0], 2, async (n) => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, n * 3));
      running--;
      return n * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30, 0]);
    expect(most).toBe(2);
  });
});
