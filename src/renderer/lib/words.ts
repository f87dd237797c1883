/**
 * Codes said in a person's words: the error codes an action can end with, and the reasons an
 * agent run stops. The code stays beside the words (a person may search for it); the words say
 * what happened. Pure, unit-tested under Node.
 */
import type { ErrorCode } from '../../shared/errors.ts';

const CODES: Record<ErrorCode, string> = {
  INVALID_ARGUMENT: 'The request was not valid',
  TARGET_NOT_FOUND: 'The window, tab or device is gone',
  TAB_NOT_FOUND: 'The tab is gone',
  FRAME_NOT_FOUND: 'No screenshot to aim in',
  RUN_NOT_FOUND: 'No such agent run',
  ROUTINE_NOT_FOUND: 'No such routine',
  ROUTINE_DIVERGED: 'The routine met a screen it did not expect and stopped',
  INPUT_REQUIRED: 'A value the routine needs was not given',
  FRAME_STALE: 'The screen changed since the screenshot',
  POINT_OUTSIDE_FRAME: 'The point is outside the screenshot',
  NODE_NOT_FOUND: 'The control is no longer on screen',
  NO_FOCUSED_INPUT: 'No text field had the focus',
  AMBIGUOUS_TEXT: 'The text is on screen more than once',
  DIALOG_OPEN: 'A dialog is open on the page',
  SOURCE_UNAVAILABLE: 'The source is not working',
  SOURCE_DISABLED: 'The source is turned off',
  UNSUPPORTED: 'Not possible on this target',
  PERMISSION_DENIED: 'Not permitted',
  CDP_CONNECTION_LOST: 'The browser connection was lost',
  SCREENSHOT_FAILED: 'The screenshot failed',
  DEVICE_OFFLINE: 'The device is offline',
  DEVICE_UNAUTHORIZED: 'The device has not allowed USB debugging',
  ADB_NOT_FOUND: 'adb is not installed',
  FOCUS_FAILED: 'The window could not be brought to the front',
  WINDOW_COVERED: 'Another window covers the target',
  INPUT_PAUSED: 'Refused: input was paused',
  READ_ONLY: 'Refused: read-only mode',
  NOT_ALLOWED: 'Refused: not on the allowlist',
  IMAGE_INVALID: 'The image could not be read',
  PATH_REFUSED: 'Refused: a file outside the allowed folders',
  STORAGE_FULL: 'The disk is full',
  STORAGE_READ_ONLY: 'The data folder cannot be written',
  FILE_UNAVAILABLE: 'A file could not be read',
  SETTINGS_INVALID: 'Settings not valid',
  TIMEOUT: 'Took too long',
  CANCELLED: 'Cancelled',
  INTERNAL: 'Sightline failed (a bug)',
};

/** An action's error code in words: `NODE_NOT_FOUND` → "The control is no longer on screen". */
export function codeWords(code: string): string {
  return (CODES as Record<string, string>)[code] ?? code.charAt(0) + code.slice(1).toLowerCase().replace(/_/g, ' ');
}

const STOPS: Record<string, string> = {
  done: 'Done',
  error: 'Stopped: Sightline failed',
  usage: 'Stopped: could not start (flags, key or target)',
  maxSteps: 'Stopped: step limit reached',
  wallTime: 'Stopped: time limit reached',
  modelError: 'Stopped: the model failed',
  outOfFrame: 'Stopped: the model pointed outside the screenshot',
  lowConfidence: 'Stopped: the model was unsure',
  paused: 'Stopped: input was paused',
  refused: 'Stopped: Sightline refused an action',
  interrupted: 'Stopped: interrupted',
};

/** Why an agent run ended, in words: `outOfFrame` → "Stopped: the model pointed outside the screenshot". */
export function stopWords(reason: string): string {
  return STOPS[reason] ?? `Stopped: ${reason.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}`;
}
