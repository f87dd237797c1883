/**
 * Time inputs for tools and the API. ISO-8601 date-times keep their offset (or are
 * local without one); a date alone is LOCAL midnight — unlike `new Date('2025-01-15')`,
 * which is UTC. date-fns' parseISO has exactly those semantics.
 */
import { format, isValid, parseISO } from 'date-fns';
import { SightlineError } from '../../../shared/errors.ts';

export function parseTimeInput(value: string, field: string): Date {
  const d = parseISO(value.trim());
  if (!isValid(d)) {
    throw new SightlineError(
      'INVALID_ARGUMENT',
      `"${field}" is not an ISO-8601 date or date-time: ${JSON.stringify(value)}.`,
      'Use e.g. 2025-01-15 (local midnight) or 2025-01-15T10:30:00+01:00.',
      { field },
    );
  }
  return d;
}

/** ISO-8601 with the local UTC offset, e.g. 2025-01-15T10:30:45.123+01:00. */
export function toLocalIso(d: Date): string {
  return format(d, "yyyy-MM-dd'T'HH:mm:ss.SSSxxx");
}

/** Wall-clock `YYYY-MM-DD HH:mm:ss` in the machine's zone. */
export function displayLocalTime(d: Date): string {
  return format(d, 'yyyy-MM-dd HH:mm:ss');
}
