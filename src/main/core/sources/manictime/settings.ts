/** The ManicTime archive's settings section (`manictime.*`). */
import { z } from 'zod';

export const manictimeSettings = z
  .strictObject({
    /** ManicTime's data folder (env MANICTIME_DATA_DIR; default: the platform's usual folders). */
    dataDir: z.string().min(1).optional(),
    /** Where ManicTime keeps screenshots, if moved (default `<dataDir>/Screenshots`). */
    screenshotsDir: z.string().min(1).optional(),
  })
  .prefault({});

export type ManicTimeSettings = z.output<typeof manictimeSettings>;
