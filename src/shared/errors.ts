/** Stable error codes returned to agents (`isError` results) and to the dashboard. */
export const ERROR_CODES = [
  'INVALID_ARGUMENT',
  'TARGET_NOT_FOUND',
  'TAB_NOT_FOUND',
  'FRAME_NOT_FOUND',
  'RUN_NOT_FOUND',
  'ROUTINE_NOT_FOUND',
  'ROUTINE_DIVERGED',
  'INPUT_REQUIRED',
  'FRAME_STALE',
  'POINT_OUTSIDE_FRAME',
  'NODE_NOT_FOUND',
  'NO_FOCUSED_INPUT',
  'AMBIGUOUS_TEXT',
  'DIALOG_OPEN',
  'SOURCE_UNAVAILABLE',
  'SOURCE_DISABLED',
  'UNSUPPORTED',
  'PERMISSION_DENIED',
  'CDP_CONNECTION_LOST',
  'SCREENSHOT_FAILED',
  'DEVICE_OFFLINE',
  'DEVICE_UNAUTHORIZED',
  'ADB_NOT_FOUND',
  'FOCUS_FAILED',
  'WINDOW_COVERED',
  'INPUT_PAUSED',
  'READ_ONLY',
  'NOT_ALLOWED',
  'IMAGE_INVALID',
  'PATH_REFUSED',
  'STORAGE_FULL',
  'STORAGE_READ_ONLY',
  'FILE_UNAVAILABLE',
  'SETTINGS_INVALID',
  'TIMEOUT',
  'CANCELLED',
  'INTERNAL',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * The one error type the core throws on purpose. The MCP layer turns it into an
 * `isError` result whose text starts with the code; anything else becomes INTERNAL.
 */
export class SightlineError extends Error {
  readonly code: ErrorCode;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, hint?: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SightlineError';
    this.code = code;
    this.hint = hint;
    this.details = details;
  }
}

export function isSightlineError(e: unknown): e is SightlineError {
  return e instanceof SightlineError;
}

/** `FRAME_STALE: the window was resized since frame … Hint: capture again.` */
export function formatError(code: ErrorCode, message: string, hint?: string): string {
  return `${code}: ${message}${hint ? ` Hint: ${hint}` : ''}`;
}
