/** What the fake device's screen shows: `screencap -p` pixels and the dumpsys views of it (the UI XML is ui.ts). */
import sharp from 'sharp';

/**
 * A screen: a background tinted by rotation, a red square at the top-left and a blue one at the
 * bottom-right (so orientation shows), and a band of text-sized blocks with some pixel noise, so
 * both the PNG (~0.7 MB) and the scaled JPEG weigh about what a real phone screen does.
 */
export async function renderScreen(width: number, height: number, rotation: 0 | 1 | 2 | 3): Promise<Buffer> {
  const px = Buffer.alloc(width * height * 3);
  const bg = [[236, 240, 255], [255, 236, 236], [236, 255, 236], [255, 255, 220]][rotation]!;
  let seed = 0x9e3779b9;
  const rnd = (): number => {
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  const band0 = Math.floor(height * 0.35);
  const band1 = Math.floor(height * 0.8);
  const cell = 6;
  const cols = Math.ceil(width / cell);
  const blocks = Array.from({ length: Math.ceil(height / cell) * cols }, () => rnd() & 0xff);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      if (x < 100 && y < 100) px.set([220, 20, 20], i);
      else if (x >= width - 100 && y >= height - 100) px.set([20, 20, 220], i);
      else if (y >= band0 && y < band1) {
        const b = blocks[Math.floor(y / cell) * cols + Math.floor(x / cell)]!;
        const ink = b < 90 ? 40 : 230;
        const n = rnd() & 0x0f;
        px.set([ink + n, ink + (n >> 1), ink + 8 - n], i);
      } else px.set(bg, i);
    }
  }
  return sharp(px, { raw: { width, height, channels: 3 } }).png({ compressionLevel: 6 }).toBuffer();
}

export interface ScreenHost {
  rotation: 0 | 1 | 2 | 3;
  readonly size: { width: number; height: number };
  naturalWidth: number;
  naturalHeight: number;
  readonly sdk: number;
  readonly rotationIn: 'input' | 'display';
  foreground: string;
  foregroundActivity: string;
}

/** `dumpsys display|window|input`: the lines Sightline greps for rotation and the app in front. */
export function dumpsys(d: ScreenHost, service: string): string {
  if (service === 'display') return `DISPLAY MANAGER (dumpsys display)\n  mCurrentOrientation=${d.rotation}\n  mDefaultViewport=DisplayViewport{type=INTERNAL, valid=true}\n`;
  if (service === 'window') {
    const [pkg, cls] = [d.foreground, d.foregroundActivity];
    const full = cls.startsWith('.') ? pkg + cls : cls;
    const short = full.startsWith(`${pkg}.`) ? full.slice(pkg.length) : full;
    return `  mCurrentFocus=Window{f3e6c4 u0 ${pkg}/${full}}\n  mFocusedApp=ActivityRecord{2c7a3e5 u0 ${pkg}/${short} t42}\n`;
  }
  if (service !== 'input') return '';
  if (d.rotationIn === 'display') return 'INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Interactive: true\n';
  // Android 13+ dropped SurfaceOrientation on many devices; older releases print it.
  return d.sdk >= 33
    ? `INPUT MANAGER (dumpsys input)\n\nInput Manager State:\n  Interactive: true\n  Viewports:\n    Viewport INTERNAL: displayId=0, uniqueId=local:0, port=0, orientation=${d.rotation}, logicalFrame=[0, 0, ${d.size.width}, ${d.size.height}], physicalFrame=[0, 0, ${d.size.width}, ${d.size.height}], deviceSize=[${d.naturalWidth}, ${d.naturalHeight}], isActive=[1]\n`
    : `INPUT MANAGER (dumpsys input)\n\nInput Reader State:\n  Device 3: touch\n    Touch Input Mapper (mode - DIRECT):\n      Viewport: displayId=0, orientation=${d.rotation}, logicalFrame=[0, 0, ${d.size.width}, ${d.size.height}]\n      SurfaceWidth: ${d.size.width}px\n      SurfaceHeight: ${d.size.height}px\n      SurfaceOrientation: ${d.rotation}\n`;
}
