/** What is Sightline's own: its ports, /auth URLs, its data directory, on every loopback name. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { addOwnPort, isLoopbackHost, ownFacts, ownUrl } from '../../../src/main/core/util/self.ts';

describe("Sightline's own", () => {
  it('a port it serves, on any loopback name, and any loopback /auth URL', () => {
    const forget = addOwnPort(48123);
    try {
      const own = ownFacts(undefined);
      for (const u of ['http://127.0.0.1:48123/', 'http://localhost:48123/#/settings', 'http://[::1]:48123/api/settings', 'http://127.0.0.2:48123/', 'http://app.localhost:48123/']) expect(ownUrl(u, own), u).toMatch(/Sightline's own dashboard/);
      expect(ownUrl('http://127.0.0.1:9/auth?token=x', own)).toMatch(/sign-in URL/);
      expect(ownUrl('https://example.com/auth', own)).toBeUndefined();
      expect(ownUrl('http://127.0.0.1:48124/', own)).toBeUndefined();
    } finally {
      forget();
    }
    expect(ownUrl('http://127.0.0.1:48123/', ownFacts(undefined))).toBeUndefined();
    expect(['localhost', 'a.localhost', '127.9.9.9', '[::1]', '0.0.0.0'].every(isLoopbackHost)).toBe(true);
    expect(['example.com', '128.0.0.1', 'localhost.example.com'].some(isLoopbackHost)).toBe(false);
  });

  it("the discovery file's port and pid, and files inside the data directory", () => {
    const dir = mkdtempSync(join(tmpdir(), 'sightline-self-'));
    try {
      writeFileSync(join(dir, 'discovery.json'), JSON.stringify({ pid: 4242, url: 'http://127.0.0.1:39999', mcpUrl: 'http://127.0.0.1:39999/mcp', token: 't' }));
      const own = ownFacts(dir);
      expect(own.ports.has(39999)).toBe(true);
      expect(own.pids.has(4242)).toBe(true);
      expect(own.pids.has(process.pid)).toBe(true);
      expect(ownUrl(pathToFileURL(join(dir, 'token')).href, own)).toMatch(/inside Sightline's data directory/);
      expect(ownUrl(pathToFileURL(join(tmpdir(), 'elsewhere.html')).href, own)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
