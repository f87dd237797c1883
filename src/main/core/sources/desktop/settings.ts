/** The desktop source's settings section (`desktop.*`). */
import { z } from 'zod';

export const desktopSettings = z
  .strictObject({
    /** X11 display to use when DISPLAY is not in the environment (MCP clients spawn with a bare env). */
    display: z.string().min(1).optional(),
  })
  .prefault({});

export type DesktopSettings = z.output<typeof desktopSettings>;
