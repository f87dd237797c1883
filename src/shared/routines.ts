/**
 * Routines as the dashboard's API shows them: the saved ones with their inputs and their last
 * replay, one routine's steps for a person to read, what saving one takes, and how a replay from
 * the dashboard ended. Pure types.
 */
import type { ErrorCode } from './errors.ts';

/** What a routine acts on, as the allowlist judges it. */
export type RoutineTargetView = { source: 'browser'; origin: string } | { source: 'desktop'; app: string } | { source: 'android'; package: string };

export interface RoutineInputView {
  name: string;
  /** A password or payment value: never stored, asked for at every replay. */
  secret: boolean;
  /** No default: the replay is refused without it. */
  required: boolean;
  description?: string;
}

/** How the routine's newest replay ended (its run in the activity log). */
export interface RoutineLastRun {
  runId: string;
  /** run.json's word: 'done', 'stopped', or 'running' while it goes on. */
  status: string;
  /** When it started (ISO-8601). */
  at: string;
  durationMs?: number;
  /** A replay that stopped: the error's code and message, and the step it stopped at. */
  stop?: { code?: string; message?: string; step?: number };
}

export interface RoutineView {
  name: string;
  description?: string;
  target: RoutineTargetView;
  steps: number;
  inputs: RoutineInputView[];
  last?: RoutineLastRun;
}

export interface RoutineStepView {
  step: number;
  kind: string;
  /** The step in a few words (`click button "Place order"`). */
  action: string;
  /** What it checks after: the page reached, the value read back. */
  expects?: string;
  /** The input its value comes from, when one does. */
  inputs?: string[];
}

export interface RoutineDetail extends RoutineView {
  createdAt: string;
  /** Where it was saved from: a run, or a range of activity-log entries. */
  from?: { run?: string; actions?: [number, number] };
  stepList: RoutineStepView[];
}

export interface SaveRoutineRequest {
  name: string;
  description?: string;
  /** The actions of this run… */
  runId?: string;
  /** …or only these activity-log entries (their ids), of the run when `runId` is given. */
  actions?: number[];
  /** Input name → step number (1 = the first step saved): that step's typed text becomes the input. */
  inputs?: Record<string, number>;
  /** Overwrite a routine of that name. */
  replace?: boolean;
}

export interface RunRoutineRequest {
  /** Each input's value; a secret one is used for this replay only. */
  inputs?: Record<string, string>;
  /** How long each step waits for its element, ms. */
  stepTimeoutMs?: number;
}

/**
 * How a replay from the dashboard ended. A replay that started and then stopped is an answer
 * like one that finished (its run is in the activity log either way); one refused before it
 * started (an input missing, no such routine) is an API error.
 */
export interface RoutineRunResult {
  routine: string;
  runId: string;
  status: 'done' | 'stopped';
  /** From the start to the end or the stop. */
  ms: number;
  /** Steps done, and in all. */
  done: number;
  total: number;
  target?: string;
  /** What its reads saw (a text found, a tree query), step by step. */
  outputs?: { step: number; what: string; lines: string[] }[];
  stop?: {
    code: ErrorCode;
    message: string;
    hint?: string;
    /** ROUTINE_DIVERGED: the step it stopped at, what it expected there and what it saw, a frame of the screen then. */
    step?: number;
    expected?: string;
    saw?: string;
    frame?: string;
  };
}
