/** The Android source's settings section (`android.*`). */
import { z } from 'zod';

export const androidSettings = z
  .strictObject({
    /** The `adb` binary, or a platform-tools or SDK folder (default: found on PATH and in the usual SDK folders). */
    adbPath: z.string().min(1).optional(),
  })
  .prefault({});

export type AndroidSettings = z.output<typeof androidSettings>;
