/**
 * Validation of what the dashboard sends the local API (queries and bodies). The server parses
 * every request with these; their output types are checked against the contract in api.ts,
 * which is all the dashboard imports (so zod stays out of its bundle).
 */
import { z } from 'zod';
import { MAX_INLINE_THUMBS, RUN_ID, type CropRequest, type FramesQuery, type SearchQuery, type StatusQuery, type TimelinePositionsQuery } from './api.ts';
import type { ActivityQuery } from './activity.ts';
import type { RunRoutineRequest, SaveRoutineRequest } from './routines.ts';

const sourceName = z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'a source name such as "browser"');
const bool = z.enum(['true', 'false']).transform((v) => v === 'true');
const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);
const isoTime = z.string().min(1).max(40);

export const framesQuery = z.strictObject({
  source: sourceName.optional(),
  target: z.string().min(1).max(512).optional(),
  pinned: bool.optional(),
  /** ISO-8601; frames captured strictly before this (paging newest-first). */
  before: isoTime.optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  limit: int(1, 500).default(100),
  offset: int(0, 10_000_000).default(0),
  thumbs: int(0, MAX_INLINE_THUMBS).optional(),
});

/** Most moments one positions request takes: a year of days and a day of hours. */
export const MAX_POSITIONS = 400;

export const timelinePositionsQuery = z.strictObject({
  source: sourceName.optional(),
  target: z.string().min(1).max(512).optional(),
  pinned: bool.optional(),
  before: isoTime.optional(),
  at: z
    .string()
    .regex(/^\d{1,15}(,\d{1,15})*$/, 'epoch milliseconds, comma-separated, such as "1764201600000,1764288000000"')
    .refine((s) => s.split(',').length <= MAX_POSITIONS, `at most ${MAX_POSITIONS} moments`)
    .optional(),
});

export const statusQuery = z.strictObject({
  /** Check every source again before answering (Setup's "Check again"). */
  fresh: bool.optional(),
});

export const activityQuery = z.strictObject({
  tool: z.string().min(1).max(64).optional(),
  target: z.string().min(1).max(512).optional(),
  result: z.enum(['ok', 'error']).optional(),
  run: z.string().regex(RUN_ID, 'a run id such as "20261122-013005-fill-the-form-3f2a"').optional(),
  session: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'an MCP session id').optional(),
  frame: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'a frame ref').optional(),
  /** An entry id: entries older than it (paging). */
  before: int(0, Number.MAX_SAFE_INTEGER).optional(),
  limit: int(1, 500).default(100),
});

export const searchQuery = z.strictObject({
  q: z.string().min(1).max(500),
  source: sourceName.optional(),
  app: z.string().min(1).max(200).optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
  limit: int(1, 100).default(50),
  /** Matches to skip, newest first (paging). */
  offset: int(0, 10_000).default(0),
});

export const targetsQuery = z.strictObject({ source: sourceName.optional() });

export const cropBody = z.strictObject({
  x: z.number().finite(),
  y: z.number().finite(),
  width: z.number().finite(),
  height: z.number().finite(),
  coordinateUnits: z.enum(['percent', 'normalized', 'pixels']).optional(),
  maxDimension: z.int().min(64).max(8192).optional(),
});

export const pinBody = z.strictObject({
  pinned: z.boolean(),
  /** A note for the agent; null clears it. */
  annotation: z.string().max(500).nullable().optional(),
});

export const captureBody = z.strictObject({ target: z.string().min(1).max(512) });
export const pauseBody = z.strictObject({ paused: z.boolean() });
/** A partial settings object; the settings schema itself validates it (errors name the key). */
export const settingsBody = z.record(z.string(), z.unknown());
export const emptyBody = z.strictObject({});

export const frameParams = z.strictObject({ ref: z.string().regex(/^[A-Za-z0-9_-]{1,128}$/, 'a frame ref') });
export const imageParams = frameParams.extend({ variant: z.enum(['image', 'full', 'thumbnail']) });
export const runParams = z.strictObject({ id: z.string().regex(RUN_ID, 'a run id such as "20261122-013005-fill-the-form-3f2a"') });
/** A file of a run: '/'-separated names, none empty or starting with a dot (no "..", no hidden files). */
export const runFileParams = runParams.extend({
  path: z
    .string()
    .max(400)
    .regex(/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}(\/[A-Za-z0-9_][A-Za-z0-9_.-]{0,99}){0,3}$/, 'a path inside the run folder such as "step-01/screenshot.jpg"'),
});
export const sourceActionParams = z.strictObject({ name: sourceName, action: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/) });

/** A routine's name (its file name: the store says what a name may hold). */
const routineName = z.string().min(1).max(64);
export const routineParams = z.strictObject({ name: routineName });
export const saveRoutineBody = z.strictObject({
  name: routineName,
  description: z.string().max(2000).optional(),
  runId: z.string().regex(RUN_ID, 'a run id such as "20261122-013005-fill-the-form-3f2a"').optional(),
  actions: z.array(z.int().min(1)).min(1).max(500).optional(),
  inputs: z.record(z.string().min(1).max(64), z.int().min(1).max(500)).optional(),
  replace: z.boolean().optional(),
});
export const runRoutineBody = z.strictObject({
  inputs: z.record(z.string().min(1).max(64), z.string().max(10_000)).optional(),
  stepTimeoutMs: z.int().min(100).max(600_000).optional(),
});

// What the schemas produce is what the contract's types promise (a compile-time check).
type Parses<S extends z.ZodType, T> = z.output<S> extends T ? true : never;
export const schemasMatchContract: [
  Parses<typeof framesQuery, FramesQuery>,
  Parses<typeof activityQuery, ActivityQuery>,
  Parses<typeof cropBody, CropRequest>,
  Parses<typeof searchQuery, SearchQuery>,
  Parses<typeof timelinePositionsQuery, TimelinePositionsQuery>,
  Parses<typeof statusQuery, StatusQuery>,
  Parses<typeof saveRoutineBody, SaveRoutineRequest>,
  Parses<typeof runRoutineBody, RunRoutineRequest>,
] = [
  true,
  true,
  true,
  true,
  true,
  true,
  true,
  true,
];
