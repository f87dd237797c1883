/** The browser source's settings section (`browser.*`). */
import { z } from 'zod';

export const browserSettings = z
  .strictObject({
    /** A running browser's debugging endpoint, e.g. http://127.0.0.1:9222 (env SIGHTLINE_BROWSER_URL). */
    endpoint: z.url({ protocol: /^(https?|wss?)$/ }).optional(),
    /** A browser to launch when no endpoint answers. */
    executablePath: z.string().min(1).optional(),
    /** Launch headless when Sightline launches the browser. */
    headless: z.boolean().default(false),
  })
  .prefault({});

export type BrowserSettings = z.output<typeof browserSettings>;
