import { describe, expect, it } from 'vitest';
import { intersect } from '../../../src/main/core/image/mapping.ts';
import { toDisplayPixels, visiblePart } from '../../../src/main/core/sources/desktop/geometry.ts';
import { X11Typist, keysymName, keysymOf, normaliseTypedText, parseKeymap, planTyping, xmodmapArgs, type Exec } from '../../../src/main/core/sources/desktop/x11Keymap.ts';

// Captured from `xmodmap -pk` on Xvfb (US layout), trimmed; 93 holds a binding left by an earlier run.
const PK = [
  'There are 7 KeySyms per KeyCode; KeyCodes range from 8 to 255.',
  '',
  '    KeyCode\tKeysym (Keysym)\t...',
  '    Value  \tValue   (Name) \t...',
  '',
  '      8    \t',
  '      9    \t0xff1b (Escape)\t0x0000 (NoSymbol)\t0xff1b (Escape)\t',
  '     10    \t0x0031 (1)\t0x0021 (exclam)\t0x0031 (1)\t0x0021 (exclam)\t',
  '     24    \t0x0071 (q)\t0x0051 (Q)\t0x0071 (q)\t0x0051 (Q)\t',
  '     26    \t0x0065 (e)\t0x0045 (E)\t0x0065 (e)\t0x0045 (E)\t0x20ac (EuroSign)\t',
  '     65    \t0x0020 (space)\t0x0000 (NoSymbol)\t0x0020 (space)\t',
  '     93    \t0x1004e16 (U4E16)\t0x1004e16 (U4E16)\t0x1004e16 (U4E16)\t0x1004e16 (U4E16)\t',
  '     97    \t',
  '    103    \t0x0000 (NoSymbol)\t0x0000 (NoSymbol)\t',
  '    120    \t',
  '',
].join('\n');

describe('X11 keymap planning', () => {
  it('reads plain keysyms and free keycodes from xmodmap -pk', () => {
    const km = parseKeymap(PK);
    expect(km.free).toEqual([97, 103, 120]);
    expect(km.plain.has(0x21)).toBe(true); // exclam at level 2
    expect(km.plain.has(0x1004e16)).toBe(true);
    // The euro sits at level 3 (AltGr): xdotool is not trusted to reach it, so it counts as missing.
    expect(km.plain.has(0x20ac)).toBe(false);
  });

  it('names keysyms as X11 does: Latin-1 as itself, the rest as 0x01000000 + code point', () => {
    expect(keysymOf('!'.codePointAt(0)!)).toBe(0x21);
    expect(keysymOf('é'.codePointAt(0)!)).toBe(0xe9);
    expect(keysymOf('世'.codePointAt(0)!)).toBe(0x1004e16);
    expect(keysymOf('😀'.codePointAt(0)!)).toBe(0x101f600);
    expect(keysymName(0xe9)).toBe('U00E9');
    expect(keysymName(0x1f600)).toBe('U1F600');
    expect(xmodmapArgs([{ keycode: 97, codePoint: 0xe9 }])).toEqual(['-e', 'keycode 97 = U00E9 U00E9 U00E9 U00E9']);
    expect(xmodmapArgs([{ keycode: 97, codePoint: 0xe9 }], true)).toEqual(['-e', 'keycode 97 =']);
  });

  it('binds each missing character once, keeping one spare keycode for xdotool', () => {
    const plan = planTyping('!Q e\n世é 😀é€', parseKeymap(PK));
    expect(plan.map((c) => c.text).join('')).toBe('!Q e\n世é 😀é€');
    // Two usable keycodes (97, 103; 120 left spare): é and 😀 in the first chunk, € in the next.
    expect(plan.map((c) => c.bind.map((b) => [b.keycode, b.codePoint]))).toEqual([
      [
        [97, 0xe9],
        [103, 0x1f600],
      ],
      [[97, 0x20ac]],
    ]);
    expect(plan.map((c) => c.text)).toEqual(['!Q e\n世é 😀é', '€']);
  });

  it('plans no bindings when there is no spare keycode, and nothing for keymap text', () => {
    const full = parseKeymap(PK.split('\n').filter((l) => !/^\s+(97|103|120)\s/.test(l)).join('\n'));
    expect(full.free).toEqual([]);
    expect(planTyping('é世', full)).toEqual([{ text: 'é世', bind: [] }]);
    expect(planTyping('!1 q', parseKeymap(PK))).toEqual([{ text: '!1 q', bind: [] }]);
  });

  it('types exactly what it is given: line ends normalised, other control characters refused', () => {
    expect(normaliseTypedText('a\r\nb\rc\td')).toBe('a\nb\nc\td');
    expect(() => normaliseTypedText('a\u0007')).toThrow(/U\+0007/);
  });

  it('binds before typing and unbinds once the app had time to read the keys', async () => {
    const calls: string[] = [];
    const keymap = PK;
    const exec: Exec = async (cmd, args) => {
      calls.push(`${cmd} ${args.join(' ')}`);
      if (cmd === 'xmodmap' && args[0] === '-pk') return keymap;
      return '';
    };
    const typist = new X11Typist(exec);
    expect(await typist.type('é!')).toEqual({ chunks: 1, bound: 1 });
    expect(calls).toEqual(['xmodmap -pk', 'xmodmap -e keycode 97 = U00E9 U00E9 U00E9 U00E9', 'xdotool type --clearmodifiers --delay 2 -- é!']);
    calls.length = 0;
    const t = Date.now();
    await typist.dispose();
    expect(Date.now() - t).toBeGreaterThanOrEqual(150);
    expect(calls).toEqual(['xmodmap -e keycode 97 =']);
    // A failing xdotool still leaves no binding behind.
    const failing = new X11Typist(async (cmd, args) => {
      calls.push(`${cmd} ${args.join(' ')}`);
      if (cmd === 'xdotool') throw new Error('boom');
      return args[0] === '-pk' ? keymap : '';
    });
    calls.length = 0;
    await expect(failing.type('€')).rejects.toThrow('boom');
    await failing.dispose();
    expect(calls.at(-1)).toBe('xmodmap -e keycode 97 =');
  });
});

describe('desktop geometry', () => {
  const displays = [
    { x: 0, y: 0, width: 1920, height: 1080 },
    { x: 1920, y: 0, width: 1280, height: 800 },
  ];
  it('clips a window to the display that shows most of it', () => {
    expect(intersect({ x: 0, y: 0, width: 10, height: 10 }, { x: 20, y: 0, width: 5, height: 5 })).toBeUndefined();
    expect(visiblePart({ x: -100, y: -50, width: 400, height: 300 }, displays)).toEqual({ display: 0, rect: { x: 0, y: 0, width: 300, height: 250 } });
    expect(visiblePart({ x: 1800, y: 100, width: 400, height: 300 }, displays)).toEqual({ display: 1, rect: { x: 1920, y: 100, width: 280, height: 300 } });
    expect(visiblePart({ x: 5000, y: 0, width: 400, height: 300 }, displays)).toBeUndefined();
  });
  it('maps a clipped region into a HiDPI display image', () => {
    expect(toDisplayPixels({ x: 1920, y: 100, width: 280, height: 300 }, displays[1]!, 2, { width: 2560, height: 1600 })).toEqual({ x: 0, y: 200, width: 560, height: 600 });
  });
});

describe('desktop environment fallbacks', () => {
  it('finds the GDM X authority a bare environment does not name', async () => {
    const { xauthorityFallback } = await import('../../../src/main/core/sources/desktop/environment.ts');
    const files = new Set(['/run/user/1000/gdm/Xauthority']);
    const exists = (p: string): boolean => files.has(p);
    expect(xauthorityFallback({ HOME: '/home/u' }, 1000, exists)).toBe('/run/user/1000/gdm/Xauthority');
    expect(xauthorityFallback({ HOME: '/home/u', XAUTHORITY: '/x' }, 1000, exists)).toBeUndefined();
    files.add('/home/u/.Xauthority');
    expect(xauthorityFallback({ HOME: '/home/u' }, 1000, exists)).toBeUndefined();
    expect(xauthorityFallback({ HOME: '/home/v' }, 1001, exists)).toBeUndefined();
  });
  it('reads macOS permission answers conservatively', async () => {
    const { permissionState } = await import('../../../src/main/core/sources/desktop/macPermissions.ts');
    expect(permissionState('authorized')).toBe('granted');
    expect(permissionState('denied')).toBe('denied');
    expect(permissionState('restricted')).toBe('denied');
    expect(permissionState('not determined')).toBe('unknown');
    expect(permissionState(undefined)).toBe('unknown');
  });
  it('reports xmodmap in the X11 checklist', async () => {
    const { desktopHealth } = await import('../../../src/main/core/sources/desktop/environment.ts');
    const missing = desktopHealth({ platform: 'linux', display: ':0', xdotool: true, xmodmap: false });
    expect(missing).toMatchObject({ available: true, degraded: false });
    expect(missing.checks?.find((c) => c.id === 'xmodmap')).toMatchObject({ status: 'warning', fix: expect.stringMatching(/x11-xserver-utils/) });
    expect(desktopHealth({ platform: 'linux', display: ':0', xdotool: true, xmodmap: true }).checks?.find((c) => c.id === 'xmodmap')?.status).toBe('ok');
  });
});
