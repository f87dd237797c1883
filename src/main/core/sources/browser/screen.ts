/**
 * Tabs as screens: list them, capture them (scaled and encoded inside the browser with
 * `clip.scale`, the fastest path measured here), and judge whether a frame still describes its
 * tab (same document, same viewport).
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { ImageFormat, TargetInfo } from '../../../../shared/frame.ts';
import { fitSize } from '../../image/fit.ts';
import { probe } from '../../image/pipeline.ts';
import type { CaptureOptions, CapturedImage, FrameCheck, ScreenPort, StoredFrame } from '../source.ts';
import { abortable } from './connection.ts';
import { isListedPage } from './detect.ts';
import { browserFrameState, captureRegion, staleReason, type BrowserFrameState } from './frameState.ts';
import { SCROLL_FN } from './pageScripts.ts';
import { LOST_HINT, withTimeout, type TabSessions } from './tabs.ts';

export class BrowserScreen implements ScreenPort<BrowserFrameState> {
  readonly state = browserFrameState;
  readonly #tabs: TabSessions;

  constructor(tabs: TabSessions) {
    this.#tabs = tabs;
  }

  async listTargets(signal: AbortSignal): Promise<TargetInfo[]> {
    const tabs = this.#tabs;
    const browser = await tabs.browser(signal);
    const infos = await abortable(
      Promise.all(
        tabs.pages(browser).map(async (t): Promise<TargetInfo | undefined> => {
          try {
            const tab = await withTimeout(tabs.tab(t), 5_000);
            const { targetInfo: info } = await tab.session.send('Target.getTargetInfo');
            if (info.subtype === 'prerender' || !isListedPage(info.url)) return undefined;
            // A busy page must not hold up the list: its viewport is left out instead.
            const metrics = await withTimeout(tabs.metrics(tab), 1_000).catch(() => undefined);
            const details: Record<string, unknown> = { url: info.url };
            if (metrics) {
              details.viewport = { width: metrics.m.w, height: metrics.m.h };
              details.devicePixelRatio = metrics.m.dpr;
            }
            const out: TargetInfo = { id: `browser:${tab.id}`, source: 'browser', kind: 'tab', title: info.title || info.url, details };
            if (metrics) out.state = metrics.m.vis;
            return out;
          } catch {
            return undefined; // closed while listing
          }
        }),
      ),
      signal,
    );
    if (!browser.connected) {
      throw new SightlineError('CDP_CONNECTION_LOST', `The connection to the browser (${tabs.conn.via}) was lost while listing its tabs.`, LOST_HINT);
    }
    tabs.prune(infos);
    return infos.filter((t): t is TargetInfo => t !== undefined);
  }

  async capture(target: string, o: CaptureOptions): Promise<CapturedImage<BrowserFrameState>> {
    const tabs = this.#tabs;
    return tabs.withTab(target, o.signal, 'capture', async (tab) => {
      const warnings: string[] = [];
      if (o.scrollOffset && (o.scrollOffset.x || o.scrollOffset.y)) {
        const { x, y } = o.scrollOffset;
        if (!Number.isFinite(x) || !Number.isFinite(y)) throw new SightlineError('INVALID_ARGUMENT', 'scrollOffset x and y must be numbers (CSS px).', 'Give e.g. scrollOffset: { x: 0, y: 600 }.');
        await tabs.call(tab, SCROLL_FN, ['by', x, y]);
      }
      let { m, loaderId } = await tabs.metrics(tab);
      if (m.vis === 'hidden') {
        // A background tab produces no frames, so its screenshot would never come.
        await tab.session.send('Page.bringToFront');
        warnings.push('The tab was in the background: it was brought to the front to capture it.');
        ({ m, loaderId } = await tabs.metrics(tab));
      }
      const fullPage = o.fullPage === true;
      const { region, clipped } = captureRegion(m, fullPage);
      if (clipped) warnings.push(`The page is larger than a browser can render at once; the top-left ${Math.round(region.width)}×${Math.round(region.height)} CSS px were captured.`);
      const native = { width: Math.max(1, Math.round(region.width * m.dpr)), height: Math.max(1, Math.round(region.height * m.dpr)) };
      const out = o.raw ? native : fitSize(native, { maxDimension: o.maxDimension, maxPixels: o.maxPixels });
      // Output px = clip CSS px × scale × devicePixelRatio, rounded to nearest. Planned along the
      // long edge, which then comes out exact; the short edge is within half a pixel.
      const landscape = native.width >= native.height;
      const scale = landscape ? out.width / (region.width * m.dpr) : out.height / (region.height * m.dpr);
      const params: Record<string, unknown> = {
        format: o.format,
        clip: { ...region, scale },
        captureBeyondViewport: fullPage,
      };
      // Faster zlib settings for PNG; JPEG and WebP encode the same either way.
      if (o.format === 'png') params.optimizeForSpeed = true;
      if (o.format !== 'png') params.quality = Math.round(o.quality);
      const shot = (await tab.session.send('Page.captureScreenshot', params)) as { data: string };
      const data = Buffer.from(shot.data, 'base64');
      if (data.length === 0) throw new SightlineError('SCREENSHOT_FAILED', 'The browser returned an empty screenshot.', 'Capture again.');
      const size = await probe({ kind: 'encoded', data });
      // Image px per CSS px. The image shows exactly the clip region; when it came back at another
      // size than planned (a device emulation by another DevTools client, which Chrome drops for
      // the capture), its own size gives the density.
      let density = scale * m.dpr;
      const long = landscape ? size.width : size.height;
      const regionLong = landscape ? region.width : region.height;
      if (Math.abs(long - regionLong * density) > 2) {
        density = long / regionLong;
        warnings.push(
          `The image came back at ${size.width}×${size.height} instead of ${out.width}×${out.height}: another DevTools client is emulating a device on this tab (Chrome drops that emulation while capturing). Coordinates are still mapped correctly.`,
        );
      }
      const result: CapturedImage<BrowserFrameState> = {
        target,
        encoded: { data, format: o.format as ImageFormat, width: size.width, height: size.height },
        // The CSS px the image covers (the region, give or take the rounding of the last pixel).
        sourceSize: { width: size.width / density, height: size.height / density },
        origin: { x: 0, y: 0 },
        state: { loaderId, url: m.url, viewport: { width: m.w, height: m.h }, dpr: m.dpr, scroll: { x: m.sx, y: m.sy }, fullPage },
      };
      if (warnings.length) result.warnings = warnings;
      return result;
    });
  }

  async checkFrame(frame: StoredFrame<BrowserFrameState>, signal: AbortSignal): Promise<FrameCheck> {
    const st = frame.state;
    return this.#tabs.withTab(frame.target, signal, 'action', async (tab) => {
      const { m, loaderId } = await this.#tabs.metrics(tab);
      const why = staleReason(st, { loaderId, url: m.url, viewport: { width: m.w, height: m.h } });
      if (why) throw new SightlineError('FRAME_STALE', `Frame ${frame.ref} is stale: ${why}.`, `Capture ${frame.target} again and use the new frame's coordinates.`, { ref: frame.ref });
      return {};
    });
  }
}
