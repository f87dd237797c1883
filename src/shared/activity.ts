/**
 * What agents did, as the dashboard and the API show it: the activity log's entries and the
 * agent runs they belong to, with what each target was called at the time. Pure types.
 */
import type { ErrorCode } from './errors.ts';
import type { Point, SourceName } from './frame.ts';

/** What a target showed when a frame or an action was made, as its source named it then. */
export interface TargetLabel {
  /** Window or page title. */
  title?: string;
  /** Application (desktop app, Android package). */
  app?: string;
  /** Document: a file, a URL. */
  document?: string;
}

export interface ActivityEntry {
  id: number;
  at: string;
  tool: string;
  source?: SourceName;
  target?: string;
  /** 'ok' or an error code. */
  result: 'ok' | ErrorCode;
  message?: string;
  imagePoint?: Point;
  sourcePoint?: Point;
  frameRef?: string;
  /** The image size of `frameRef` (imagePoint is in its pixels), while that frame is kept. */
  frameImage?: { width: number; height: number };
  /**
   * The frame captured right after this action, by it (the picture its answer described, or whose
   * crop it returned). Absent: none was taken (the source told what changed without one, or the
   * agent asked for none); a later capture is never counted as this action's after.
   */
  afterRef?: string;
  durationMs: number;
  /** Tool arguments, with long text shortened. */
  params?: Record<string, unknown>;
  /** Who asked: an MCP client name, or "dashboard". */
  client?: string;
  /** The target's title and app when the action was made (the frame it aimed at, else the target's newest). */
  targetLabel?: TargetLabel;
  /** The agent run (`sightline agent`) this action belongs to, and where its artifacts are. */
  run?: { id: string; artifacts?: string };
  /** What the action aimed at and what came of it, as the source reported it (never a typed value). */
  outcome?: ActivityOutcome;
  /** The MCP session that asked: one client connection's actions, grouped in the log like a run's. */
  session?: string;
}

export interface ActivityQuery {
  tool?: string;
  target?: string;
  result?: 'ok' | 'error';
  /** Only the actions of this agent run (`ActivityEntry.run.id`). */
  run?: string;
  /** Only the actions of this MCP session (`ActivityEntry.session`). */
  session?: string;
  /** Only the actions this frame belongs to: acted in (before) or taken after. */
  frame?: string;
  /** An entry id: entries older than it (paging). */
  before?: number;
  limit?: number;
}

/** One step of an agent run, as its run.json and step folder tell it. */
export interface RunStepView {
  step: number;
  /** What the model decided, in a few words (`click (412, 230)`). */
  action?: string;
  why?: string;
  outcome?: string;
  /** The step's screenshot, a path relative to the run's folder (see `files`). */
  screenshot?: string;
}

/**
 * An agent run (`sightline agent`) as the dashboard shows it, read from its folder under
 * `<data dir>/runs/`: the summary its run.json gives (as far as it is written: a run still
 * going has no steps in it yet) and every artifact file, each served by `runFile`.
 */
export interface RunView {
  id: string;
  goal?: string;
  /** 'running' | 'done' | 'stopped' (run.json's own word). */
  status?: string;
  stop?: { reason: string; exitCode?: number; message?: string; code?: string };
  startedAt?: string;
  endedAt?: string;
  durationMs?: number;
  provider?: string;
  model?: string;
  dryRun?: boolean;
  target?: { id: string; title?: string; source?: string };
  steps: RunStepView[];
  /** Files of the run's folder, relative to it ('/'-separated), newest step last. */
  files: { path: string; bytes: number }[];
  /** Why run.json could not be read, when it could not (the files are still listed). */
  problem?: string;
}

/** An agent run's folder in the list of runs: enough to place and title it in the log. */
export interface RunSummary {
  id: string;
  /** run.json's startedAt, else when the folder was made (ISO-8601). */
  startedAt: string;
  goal?: string;
  status?: string;
  stop?: RunView['stop'];
  /** Actions of the run in the activity log (0: it stopped before acting). */
  actions: number;
}

/** An element as a page or app describes it: its role and accessible name. */
export interface ElementDescription {
  role?: string;
  name?: string;
}

export interface ActivityOutcome {
  /** What was under the point or node acted on. */
  hit?: ElementDescription;
  /** The field that received typed text; `password` when it was a secret field. */
  received?: ElementDescription & { password?: boolean };
  /** The page the action led to. */
  navigated?: { url: string };
  /** What a drag dropped on. */
  drop?: ElementDescription;
}
