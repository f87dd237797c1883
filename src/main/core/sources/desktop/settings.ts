/** The desktop source's settings section (`desktop.*`). */
import { z } from 'zod';

export const desktopSettings = z
  .strictObject({
    /** X11 display to use when DISPLAY is not in the environment (MCP clients spawn with a bare env). */
    display: z.string().min(1).optional(),
    /**
     * Raise a window that others cover before capturing it (X11 without a compositor hands out
     * the covering windows' pixels as its own). Off: the capture names what covers which part,
     * and a wholly covered window is refused (WINDOW_COVERED). Never while input is paused or
     * read-only.
     */
    raiseBeforeCapture: z.boolean().default(true),
    /**
     * Linux: start Chromium, Chrome and Electron apps with their accessibility tree on (launchers
     * of their own) and turn on the session's accessibility status (Qt 6 reads it), so their
     * controls reach the desktop tree. Off: Sightline's launchers are removed.
     */
    appAccessibility: z.boolean().default(false),
  })
  .prefault({});

export type DesktopSettings = z.output<typeof desktopSettings>;
/** What a caller may give (defaults filled in where left out). */
export type DesktopSettingsInput = z.input<typeof desktopSettings>;
