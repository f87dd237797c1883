/**
 * APKs for the fake device: a real ZIP (stored entries, CRCs, central directory) whose
 * `AndroidManifest.xml` is plain text, so the fake can read the package name and launcher
 * activity back the way the package installer reads the binary one.
 */
import { crc32 } from 'node:zlib';

export interface FakeApkOptions {
  /** Launcher activity (`.MainActivity` or a full class name); null for none. */
  launcher?: string | null;
  versionCode?: number;
}

/** An installable APK for `package`. */
export function fakeApk(pkg: string, options: FakeApkOptions = {}): Buffer {
  const launcher = options.launcher === undefined ? '.MainActivity' : options.launcher;
  const activity = launcher
    ? `<activity android:name="${launcher}" android:exported="true"><intent-filter><action android:name="android.intent.action.MAIN"/><category android:name="android.intent.category.LAUNCHER"/></intent-filter></activity>`
    : '';
  const manifest = `<?xml version="1.0" encoding="utf-8"?>\n<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="${pkg}" android:versionCode="${options.versionCode ?? 1}"><application>${activity}</application></manifest>\n`;
  return zip([
    ['AndroidManifest.xml', Buffer.from(manifest)],
    ['classes.dex', Buffer.from('dex\n035\0')],
  ]);
}

export interface ApkInfo {
  package: string;
  launcher?: string;
  versionCode: number;
}

/** 'not-zip': no ZIP signature (INSTALL_PARSE_FAILED_NOT_APK); 'no-manifest': a ZIP without a readable manifest. */
export function readApk(data: Buffer): ApkInfo | 'not-zip' | 'no-manifest' {
  if (data.length < 30 || data.readUInt32LE(0) !== 0x04034b50) return 'not-zip';
  const manifest = zipEntry(data, 'AndroidManifest.xml')?.toString('utf8');
  const pkg = manifest && /<manifest\b[^>]*\bpackage="([^"]+)"/.exec(manifest)?.[1];
  if (!manifest || !pkg) return 'no-manifest';
  const launcher = /<activity android:name="([^"]+)"[^>]*>(?:(?!<\/activity>).)*android\.intent\.category\.LAUNCHER/s.exec(manifest)?.[1];
  const versionCode = Number(/android:versionCode="(\d+)"/.exec(manifest)?.[1] ?? 1);
  return { package: pkg, versionCode, ...(launcher ? { launcher } : {}) };
}

function zip(entries: [string, Buffer][]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of entries) {
    const n = Buffer.from(name);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(10, 4); // version needed
    local.writeUInt16LE(0, 8); // method: stored
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(10, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, n, data);
    centrals.push(central, n);
    offset += 30 + n.length + data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

/** A stored (uncompressed) entry, walking the local headers. */
function zipEntry(data: Buffer, wanted: string): Buffer | undefined {
  let at = 0;
  while (at + 30 <= data.length && data.readUInt32LE(at) === 0x04034b50) {
    const method = data.readUInt16LE(at + 8);
    const size = data.readUInt32LE(at + 18);
    const nameLen = data.readUInt16LE(at + 26);
    const extraLen = data.readUInt16LE(at + 28);
    const name = data.toString('utf8', at + 30, at + 30 + nameLen);
    const start = at + 30 + nameLen + extraLen;
    if (name === wanted) return method === 0 ? data.subarray(start, start + size) : undefined;
    at = start + size;
  }
  return undefined;
}
