/** search_screenshots: stored frames (live captures and the archive) by the text they showed. */
import { z } from 'zod';
import { SEARCH_EMPTY_REASONS, type ScreenshotHit } from '../../../../shared/api.ts';
import { parseTimeInput } from '../../util/time.ts';
import { sourceField } from '../schemas.ts';
import { defineTool } from '../tool.ts';

const box = z.object({ text: z.string(), x: z.number(), y: z.number(), width: z.number(), height: z.number() });

const indexStatus = z.object({
  state: z.enum(['off', 'idle', 'indexing', 'paused']),
  reason: z.string().optional().describe('Why it is off or paused.'),
  done: z.number().describe('Screenshots whose text is indexed.'),
  total: z.number().describe('Screenshots known in all (live captures, not crops, and every archive screenshot).'),
  excluded: z.number().describe('Screenshots of excluded apps (ocr.excludeApps) skipped since the indexer started: never indexed.'),
  unlabeled: z.number().optional().describe('Screenshots skipped since the indexer started because their app cannot be known (a whole display, an archive screenshot without its activity) while ocr.excludeApps is set.'),
  queued: z.number().describe('Live screenshots waiting to be read.'),
  searchableSince: z.string().optional().describe('Every archive screenshot captured since this moment (ISO-8601) is searchable.'),
  newestDaySearchable: z.boolean().optional().describe("The archive's newest day is searchable whole."),
});

const searchOutput = z.object({
  results: z.array(
    z.object({
      ref: z.string().describe('A frame ref for get_screenshot and crop_screenshot.'),
      source: z.string(),
      target: z.string(),
      capturedAt: z.string().describe('ISO-8601 with its UTC offset.'),
      displayLocalTime: z.string(),
      image: z.object({ width: z.number(), height: z.number() }).describe("The frame's image size: the boxes are in its pixels."),
      title: z.string().optional().describe('Window or page title.'),
      app: z.string().optional().describe('The app in front (desktop windows, Android packages, ManicTime activity); browser frames have none.'),
      document: z.string().optional().describe('File or URL.'),
      snippet: z.string().describe('The best matching passage, matches between « and ».'),
      boxes: z.array(box).describe('The matching words on the frame, in image pixels of ref (crop_screenshot with coordinateUnits "pixels").'),
    }),
  ),
  total: z.number().describe('Matching frames in all (at least this many when more is true).'),
  more: z.boolean().describe('More than `total` frames match (counting stopped there). Whenever fewer results came than `total`, page on: search again with `to` set to the capturedAt of the last (oldest) result.'),
  reason: z.enum(SEARCH_EMPTY_REASONS).optional().describe('Why nothing was found.'),
  remediation: z.string().optional(),
  index: indexStatus.optional().describe('The indexer is not done (counts in screenshots): screenshots it has not read yet cannot be found.'),
});

const searchTool = defineTool({
  name: 'search_screenshots',
  title: 'Search screenshots by text',
  description:
    "Find stored screenshots (captures, the archive) by the text they showed, title, app or document, newest first: refs with a snippet and word boxes. Page on with to = the last result's capturedAt.",
  input: (c) => ({
    query: z.string().min(1).max(500).describe('All words; "a phrase", budg*, OR.'),
    source: sourceField(c.sources).optional(),
    app: z.string().min(1).max(200).optional().describe('e.g. Outlook (browser frames have none).'),
    from: z.string().max(40).optional().describe('ISO-8601 date-time or date.'),
    to: z.string().max(40).optional().describe('Exclusive; ISO-8601 date-time or date.'),
    max: z.int().min(1).max(100).default(20),
  }),
  output: searchOutput,
  annotations: { readOnlyHint: true },
  async handle(ctx, args, res) {
    const from = args.from ? parseTimeInput(args.from, 'from') : undefined;
    const to = args.to ? parseTimeInput(args.to, 'to') : undefined;
    const index = ctx.search.status();
    if (index && (index.state === 'indexing' || index.state === 'paused')) ctx.progress({ label: `Text index: ${index.done} of ${index.total} frames indexed`, done: index.done, total: index.total });
    const r = await ctx.search.search({ query: args.query, from, to, source: args.source, app: args.app, max: args.max, signal: ctx.signal });
    const lines = r.results.map(line);
    const head = r.results.length
      ? `${r.results.length} of ${r.total}${r.more ? '+' : ''} matching frames, newest first (boxes in image px of each ref):`
      : `No screenshots (${r.reason ?? 'NO_MATCH'}). ${r.remediation ?? ''}`;
    const last = r.results[r.results.length - 1];
    const page = last && (r.more || r.results.length < r.total) ? [`Older matches: search again with to=${last.capturedAt}.`] : [];
    const note = r.index && r.results.length ? [`Note: the text index is not complete (${r.index.done} of ${r.index.total} screenshots${r.index.searchableSince ? `; complete since ${r.index.searchableSince}` : ''}).`] : [];
    res.text([head, ...lines, ...page, ...note].join('\n'));
    res.structured({ ...r });
  },
});

function line(h: ScreenshotHit): string {
  const what = [h.app, h.title].filter(Boolean).join(' — ');
  const boxes = h.boxes
    .slice(0, 3)
    .map((b) => `${b.x},${b.y} ${b.width}×${b.height}`)
    .join('; ');
  return `${h.ref}  ${h.displayLocalTime}  ${h.target}${what ? `  ${what}` : ''}\n  ${h.snippet.replace(/\s+/g, ' ')}${boxes ? `\n  at ${boxes}${h.boxes.length > 3 ? ` (+${h.boxes.length - 3})` : ''}` : ''}`;
}

export default [searchTool];
