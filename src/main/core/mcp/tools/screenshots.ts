/** Catalog tools, source-agnostic: list, get, crop. */
import { z } from 'zod';
import { SAMPLINGS } from '../../../../shared/frame.ts';
import { SightlineError } from '../../../../shared/errors.ts';
import { frameDescriptor } from '../../frames/descriptors.ts';
import { estimateVisionTokens } from '../../image/fit.ts';
import { probe } from '../../image/pipeline.ts';
import { parseTimeInput } from '../../util/time.ts';
import { frameOutput, screenshotsOutput, sourceField } from '../schemas.ts';
import { defineTool } from '../tool.ts';
import { respondWithFrame, screenshotUri } from './frameResponse.ts';

const listScreenshotsTool = defineTool({
  name: 'list_screenshots',
  title: 'List screenshots',
  description:
    'List stored frames (captures, crops, pins, the archive) in a time window: refs, no images.',
  input: (c) => ({
    source: sourceField(c.sources).optional(),
    target: z.string().min(1).max(512).optional(),
    from: z.string().max(40).optional().describe('ISO-8601 date-time or date.'),
    to: z.string().max(40).optional().describe('Exclusive; ISO-8601 date-time or date.'),
    sampling: z.enum(SAMPLINGS).optional().describe('activity: one per app change (archive default); interval: one per intervalSeconds.'),
    intervalSeconds: z.int().min(1).max(86_400).default(300),
    max: z.int().min(1).max(200).default(20),
    pinned: z.boolean().optional().describe('Only frames the user pinned for you.'),
  }),
  output: screenshotsOutput,
  annotations: { readOnlyHint: true },
  async handle(ctx, args, res) {
    const from = args.from ? parseTimeInput(args.from, 'from') : undefined;
    const to = args.to ? parseTimeInput(args.to, 'to') : undefined;
    if (from && to && from.getTime() >= to.getTime()) throw new SightlineError('INVALID_ARGUMENT', '"from" must be before "to".', 'Swap them, or widen the window.');
    const archive = args.source !== undefined && ctx.sources.names('archive').includes(args.source);
    const sampling = args.sampling ?? (archive ? 'activity' : 'all');
    const list = await ctx.history.listScreenshots(args.source, { from, to, target: args.target, sampling, intervalSeconds: args.intervalSeconds, max: args.max, pinned: args.pinned }, ctx.signal, ctx.progress);
    const lines = list.screenshots.map(
      (s) =>
        `${s.ref}  ${s.displayLocalTime}  ${s.target ?? s.source}  ${s.width}×${s.height}${s.title ? `  "${s.title}"` : ''}${s.activity ? `  ${s.activity.app}${s.activity.document ? ` — ${s.activity.document}` : ''}` : ''}` +
        `${s.region ? `  region ${s.region.x},${s.region.y} ${s.region.width}×${s.region.height} of ${s.region.of}` : ''}${s.pinned ? '  (pinned)' : ''}${s.note ? `  note: "${s.note}"` : ''}`,
    );
    const head = list.screenshots.length ? `${list.screenshots.length} of ${list.matched ?? list.screenshots.length} matching frames:` : `No screenshots (${list.reason ?? 'UNKNOWN'}). ${list.remediation ?? ''}`;
    res.text([head, ...lines, ...(list.warnings ?? []).map((w) => `Warning: ${w}`)].join('\n'));
    res.structured({ ...list });
  },
});

const getScreenshot = defineTool({
  name: 'get_screenshot',
  title: 'Get a screenshot',
  description: 'The image of a frame.',
  input: { ref: z.string().min(1).max(128) },
  output: frameOutput,
  annotations: { readOnlyHint: true },
  async handle(ctx, args, res) {
    const frame = ctx.frames.get(args.ref);
    // Archive frames show the model the archive's own thumbnail; live frames their stored model image.
    const small = await ctx.frames.read(frame.ref, frame.external ? 'thumbnail' : 'image');
    const shown = frame.external ? await probe({ kind: 'encoded', data: small.data }) : frame.image;
    const tokens = estimateVisionTokens(shown);
    res.text(
      `Frame ${frame.ref} (${frame.target}, ${frame.capturedAt}): ${frame.image.width}×${frame.image.height}` +
        (frame.external ? `, shown as a ${shown.width}×${shown.height} thumbnail; crop_screenshot in percent cuts from the full image.` : '. Crop with crop_screenshot for detail.'),
    );
    res.image(small.data, small.format, ['user', 'assistant'], 1);
    res.resourceLink(screenshotUri(frame.ref), `Screenshot ${frame.ref} (full resolution)`, 'Full-resolution image for the human.');
    res.structured({ frame: frameDescriptor(frame), estimatedTokens: tokens });
  },
});

const cropScreenshot = defineTool({
  name: 'crop_screenshot',
  title: 'Crop a screenshot',
  description:
    'Cut a region of a frame at native resolution: a new frame; pass its ref to act in its pixels.',
  input: {
    ref: z.string().min(1).max(128),
    x: z.number().finite().min(0).describe('Left, in coordinateUnits.'),
    y: z.number().finite().min(0).describe('Top, in coordinateUnits.'),
    width: z.number().finite().positive(),
    height: z.number().finite().positive(),
    coordinateUnits: z.enum(['percent', 'normalized', 'pixels']).default('percent').describe('percent 0–100, normalized 0–1, or image pixels.'),
    maxDimension: z.int().min(64).max(8192).optional().describe('Long edge, px (default 1000).'),
  },
  output: frameOutput,
  annotations: { readOnlyHint: true },
  async handle(ctx, args, res) {
    const outcome = await ctx.frames.crop(args);
    respondWithFrame(res, outcome, 'Cropped');
  },
});

export default [listScreenshotsTool, getScreenshot, cropScreenshot];
