/**
 * Tabs as screens: list them (of every connection; a tab stopped by a dialog says so), capture
 * them (scaled and encoded inside the browser with `clip.scale`, the fastest path measured
 * here), capture a region again at device resolution for a native crop, and judge whether a
 * frame still describes its tab (same document, same viewport; a scroll is re-mapped).
 */
import { SightlineError } from '../../../../shared/errors.ts';
import type { ImageFormat, TargetInfo } from '../../../../shared/frame.ts';
import { fitSize } from '../../image/fit.ts';
import { probe } from '../../image/pipeline.ts';
import type { Rect } from '../../../../shared/frame.ts';
import type { CaptureOptions, CapturedImage, EncodedRegion, FrameCheck, MaskSpec, RegionOptions, ScreenPort, StoredFrame } from '../source.ts';
import { abortable } from './connection.ts';
import { isListedPage } from './detect.ts';
import type { BrowserFleet } from './fleet.ts';
import { browserFrameState, captureRegion, regionClip, staleReason, type BrowserFrameState } from './frameState.ts';
import { dialogOf } from './outcome.ts';
import { MASK_FN, MASKED_METRICS_FN, UNMASK_FN, type MaskedMetrics, type PageBox } from './pageMask.ts';
import { SCROLL_FN } from './pageScripts.ts';
import { guarded } from './tabWatch.ts';
import { LOST_HINT, withTimeout, type Tab, type TabSessions } from './tabs.ts';
import { frameStale } from '../aim.ts';

export class BrowserScreen implements ScreenPort<BrowserFrameState> {
  readonly state = browserFrameState;
  readonly #fleet: BrowserFleet;

  constructor(fleet: BrowserFleet) {
    this.#fleet = fleet;
  }

  listTargets(signal: AbortSignal): Promise<TargetInfo[]> {
    return this.#fleet.listEach((s) => this.#list(s, signal));
  }

  async #list(tabs: TabSessions, signal: AbortSignal): Promise<TargetInfo[]> {
    const browser = await tabs.browser(signal);
    const infos = await abortable(
      Promise.all(
        tabs.pages(browser).map(async (t): Promise<TargetInfo | undefined> => {
          try {
            const tab = await withTimeout(tabs.tab(t), 5_000);
            const { targetInfo: info } = await tab.session.send('Target.getTargetInfo');
            if (info.subtype === 'prerender' || !isListedPage(info.url)) return undefined;
            const dialog = dialogOf(tab.watch);
            // A busy page must not hold up the list (nor a stopped one): its viewport is left out instead.
            const metrics = dialog ? undefined : await withTimeout(tabs.metrics(tab), 1_000).catch(() => undefined);
            const details: Record<string, unknown> = { url: info.url };
            if (tabs.endpoint) details.endpoint = tabs.endpoint;
            if (metrics) {
              details.viewport = { width: metrics.m.w, height: metrics.m.h };
              details.devicePixelRatio = metrics.m.dpr;
            }
            const out: TargetInfo = { id: tab.targetId, source: 'browser', kind: 'tab', title: info.title || info.url, details };
            if (dialog) {
              details.dialog = dialog;
              out.state = 'dialog';
              out.hint = `A ${dialog.type} dialog stops this page: call handle_dialog.`;
            } else if (metrics) out.state = metrics.m.vis;
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
    const tabs = this.#fleet.forTarget(target);
    return tabs.withTab(target, o.signal, 'capture', async (tab) => {
      const warnings: string[] = [];
      if (o.scrollOffset && (o.scrollOffset.x || o.scrollOffset.y)) {
        const { x, y } = o.scrollOffset;
        if (!Number.isFinite(x) || !Number.isFinite(y)) throw new SightlineError('INVALID_ARGUMENT', 'scrollOffset x and y must be numbers (CSS px).', 'Give e.g. scrollOffset: { x: 0, y: 600 }.');
        await tabs.call(tab, SCROLL_FN, ['by', x, y]);
      }
      // With masking, the metrics call also covers the page's secrets (removed after the shot).
      let boxes: PageBox[] = [];
      let { m, loaderId } = o.mask ? await maskedMetrics(tabs, tab, o.mask, o.fullPage === true) : await tabs.metrics(tab);
      if ('boxes' in m) boxes = (m as MaskedMetrics).boxes;
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
      let shot: { data: string };
      try {
        shot = (await guarded(tab.watch, tab.targetId, tab.session.send('Page.captureScreenshot', params))) as { data: string };
      } finally {
        // Not awaited: calls on this session run in order, so whatever reads the page next finds the boxes gone.
        if (boxes.length) tabs.call(tab, UNMASK_FN, []).catch(() => undefined);
      }
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
        label: { ...(m.title ? { title: m.title } : {}), document: m.url },
      };
      // Already filled in the image; named in source space (viewport CSS px, or the page's for fullPage).
      if (boxes.length) result.masks = boxes.map((b) => ({ x: b.x - region.x, y: b.y - region.y, width: b.w, height: b.h }));
      if (warnings.length) result.warnings = warnings;
      return result;
    });
  }

  async checkFrame(frame: StoredFrame<BrowserFrameState>, signal: AbortSignal): Promise<FrameCheck> {
    const tabs = this.#fleet.forTarget(frame.target);
    return tabs.withTab(frame.target, signal, 'dialog', (tab) => judgeFrame(tabs, tab, frame));
  }

  /**
   * `rect` of a fresh frame (same document and viewport; a scroll is fine) captured again at the
   * device's resolution; undefined for a stale frame (its crop is cut from the stored image).
   */
  async captureRegion(frame: StoredFrame<BrowserFrameState>, rect: Rect, o: RegionOptions): Promise<EncodedRegion | undefined> {
    const st = frame.state;
    const tabs = this.#fleet.forTarget(frame.target);
    return tabs.withTab(frame.target, o.signal, 'capture', async (tab) => {
      const { m, loaderId } = await tabs.metrics(tab);
      if (staleReason(st, { loaderId, url: m.url, viewport: { width: m.w, height: m.h } }) || Math.abs(m.dpr - st.dpr) > 1e-3) return undefined;
      // A background tab produces no frames, so its screenshot would never come.
      if (m.vis === 'hidden') await tab.session.send('Page.bringToFront');
      const plan = regionClip(rect, frame, m.dpr, o.maxDimension);
      if (!plan) return undefined;
      const { clip } = plan;
      const inView = clip.x >= m.sx && clip.y >= m.sy && clip.x + clip.width <= m.sx + m.w && clip.y + clip.height <= m.sy + m.h;
      const params: Record<string, unknown> = { format: o.format, clip, captureBeyondViewport: !inView };
      if (o.format === 'png') params.optimizeForSpeed = true;
      else params.quality = Math.round(o.quality);
      const masked = await maskedShot(tabs, tab, o.mask, clip, () => guarded(tab.watch, tab.targetId, tab.session.send('Page.captureScreenshot', params)) as Promise<{ data: string }>);
      const data = Buffer.from(masked.shot.data, 'base64');
      if (data.length === 0) return undefined;
      const size = await probe({ kind: 'encoded', data });
      const out: EncodedRegion = { data, format: o.format, width: size.width, height: size.height, rect: plan.rect };
      if (masked.boxes.length) out.masks = masked.boxes.map((b) => ({ x: b.x - clip.x + plan.rect.x, y: b.y - clip.y + plan.rect.y, width: b.w, height: b.h }));
      return out;
    });
  }
}

/**
 * The screenshot with the page's secrets inside `region` (document CSS px) covered while it is
 * taken (pageMask.ts); the cover is removed whatever happens. Without a mask spec, just the shot.
 */
async function maskedShot<T>(tabs: TabSessions, tab: Tab, mask: MaskSpec | undefined, region: Rect, shoot: () => Promise<T>): Promise<{ shot: T; boxes: PageBox[] }> {
  if (!mask) return { shot: await shoot(), boxes: [] };
  const boxes = await tabs.call<PageBox[]>(tab, MASK_FN, [mask.patterns, { x: region.x, y: region.y, width: region.width, height: region.height }, true]);
  if (boxes.length === 0) return { shot: await shoot(), boxes };
  try {
    return { shot: await shoot(), boxes };
  } finally {
    await tabs.call(tab, UNMASK_FN, []).catch(() => undefined);
  }
}

/** The tab's metrics with its secrets covered for the shot that follows (one page call). */
async function maskedMetrics(tabs: TabSessions, tab: Tab, mask: MaskSpec, fullPage: boolean): Promise<{ m: MaskedMetrics; loaderId: string }> {
  const { value, loaderId } = await tabs.callWithLoader<MaskedMetrics>(tab, MASKED_METRICS_FN, [mask.patterns, fullPage]);
  return { m: value, loaderId };
}

/**
 * Whether a frame still shows its tab, judged with the tab's lock held: a new document or
 * viewport is FRAME_STALE; a scroll is not (points are re-mapped through page coordinates).
 */
export async function judgeFrame(tabs: TabSessions, tab: Tab, frame: StoredFrame<BrowserFrameState>): Promise<FrameCheck> {
  // A dialog stops the page, so nothing can be read: answering it (handle_dialog) goes on, and
  // any other action is refused by the dialog when it reaches the page.
  if (tab.watch.dialog) return {};
  const { m, loaderId } = await tabs.metrics(tab);
  const why = staleReason(frame.state, { loaderId, url: m.url, viewport: { width: m.w, height: m.h } });
  if (why) throw frameStale(frame, why);
  return {};
}
