/**
 * How a run ends, and the exit code that says which: a script running `sightline agent`
 * can tell "the goal was reached" from each safety stop without reading the output.
 */
export const EXIT = {
  done: 0,
  /** Sightline itself failed: the MCP server did not start, a capture failed, a bug. */
  error: 1,
  /** Bad flags, no API key, no target or an ambiguous one: nothing was done. */
  usage: 2,
  maxSteps: 3,
  wallTime: 4,
  /** The provider failed (HTTP, network) or answered malformed JSON twice. */
  modelError: 5,
  outOfFrame: 6,
  lowConfidence: 7,
  /** The user's pause switch (tray or dashboard): INPUT_PAUSED. */
  paused: 8,
  /** Sightline refused an action (READ_ONLY, NOT_ALLOWED, FRAME_STALE, …). */
  refused: 9,
  interrupted: 130,
} as const;

export type StopReason = keyof typeof EXIT;

export interface Stop {
  reason: StopReason;
  exitCode: number;
  message: string;
  /** A Sightline error code when Sightline said why (INPUT_PAUSED, NOT_ALLOWED, …). */
  code?: string;
}

export function stop(reason: StopReason, message: string, code?: string): Stop {
  return { reason, exitCode: EXIT[reason], message, ...(code ? { code } : {}) };
}

/** Thrown inside the loop to end the run with a stop; everything else is an `error` stop. */
export class StopSignal extends Error {
  readonly stop: Stop;
  constructor(s: Stop) {
    super(s.message);
    this.name = 'StopSignal';
    this.stop = s;
  }
}

export const stopWith = (reason: StopReason, message: string, code?: string): StopSignal => new StopSignal(stop(reason, message, code));

/** The exit-code table for the usage text and the README. */
export const EXIT_TABLE: readonly [number, string][] = [
  [EXIT.done, 'the model said the goal is reached'],
  [EXIT.error, 'Sightline failed (server did not start, capture failed)'],
  [EXIT.usage, 'bad flags, no API key, no or ambiguous target'],
  [EXIT.maxSteps, 'max steps reached'],
  [EXIT.wallTime, 'max wall time reached'],
  [EXIT.modelError, 'model error: provider failed, or malformed JSON after one repair prompt'],
  [EXIT.outOfFrame, 'the model chose a point outside the image'],
  [EXIT.lowConfidence, 'confidence below --min-confidence'],
  [EXIT.paused, 'input paused by the user (INPUT_PAUSED)'],
  [EXIT.refused, 'Sightline refused an action'],
  [EXIT.interrupted, 'interrupted (Ctrl-C)'],
];
