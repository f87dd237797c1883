/**
 * A phone keeps its name after it is unplugged, as a closed tab keeps its title: the real
 * `sightline serve` with the Android source on the real adb server and a fake device, a real MCP
 * client, and the built dashboard in headless Chromium. The device is listed, captured and tapped,
 * then disconnected; the timeline, the activity log and `/api/target-names` still call it by the
 * name it was listed under, never by its serial.
 */
import { rmSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeAdbDevice } from '../support/fakeAdbDevice.ts';
import { httpClient, serve, type Served } from '../support/cli.ts';
import { tempDir } from '../support/mcpHarness.ts';
import { startAdb, type AdbHarness } from '../integration/android/harness.ts';
import { ALL_SOURCES_OFF, launchBrowser, openDashboard, screenshot, writeSettings } from './support.ts';

describe('devices keep their names (sightline serve + adb + a fake phone + Chromium)', () => {
  const dataDir = tempDir('sightline-e2e-devices-');
  let adb: AdbHarness;
  let device: FakeAdbDevice;
  let s: Served;
  let agent: Client;
  let browser: Browser;
  let page: Page;
  let id: string;
  let listedAs: string;

  beforeAll(async () => {
    adb = await startAdb();
    device = await adb.device({ model: 'Pixel 7' });
    writeSettings(dataDir, { ...ALL_SOURCES_OFF, sources: { ...ALL_SOURCES_OFF.sources, android: { enabled: true } }, ocr: { index: false } });
    s = await serve(dataDir, { ANDROID_ADB_SERVER_PORT: String(adb.port), HOME: adb.home });
    agent = await httpClient(s.mcpUrl, s.token, 'phone-agent');
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await agent?.close().catch(() => undefined);
    await browser?.close();
    await s?.stop();
    await adb?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('lists, captures and taps the phone, then names it after it is unplugged', async () => {
    const listed = (await agent.callTool({ name: 'list_targets', arguments: { source: 'android' } })) as CallToolResult;
    const target = (listed.structuredContent as { targets: { id: string; title: string }[] }).targets[0]!;
    id = target.id;
    listedAs = target.title;
    expect(listedAs).toContain('Pixel 7');
    const shot = (await agent.callTool({ name: 'capture', arguments: { target: id } })) as CallToolResult;
    expect(shot.isError).toBeFalsy();
    const tap = (await agent.callTool({ name: 'click', arguments: { target: id, x: 50, y: 50, after: 'none' } })) as CallToolResult;
    expect(tap.isError, JSON.stringify(tap.content)).toBeFalsy();

    // Unplugged: adb forgets it, and nothing live can name it any more.
    await adb.adb('disconnect', device.serial);
    await device.close();
    await adb.waitForState(device.serial, undefined);
    const names = (await (await fetch(`${s.base}/api/target-names`, { headers: { Authorization: `Bearer ${s.token}` } })).json()) as { names: Record<string, string> };
    expect(names.names[id]).toBe(listedAs);

    page = await openDashboard(browser, s.dashboardUrl, { width: 1440, height: 900 });
    await page.goto(`${s.base}/#/timeline`);
    const title = page.locator('[data-testid="frame-row"][data-index="0"]');
    await expect.poll(() => title.innerText()).toContain(listedAs);
    expect(await title.innerText()).not.toContain(`Device ${device.serial}`);
    await page.getByTestId('nav-activity').click();
    const row = page.locator('[data-testid="activity-row"][data-tool="click"]');
    await expect.poll(() => row.getByTestId('activity-target').innerText()).toBe(listedAs);
    // The target filters name it too.
    const option = page.locator(`[data-testid="activity-filter-target"] option[value="${id}"]`);
    expect(await option.innerText()).toBe(listedAs);
    await screenshot(page, 'activity-device-gone');
  });
});
