/** The Android source's settings section (`android.*`). */
import { z } from 'zod';
import { parseServerAddress } from './servers.ts';

const serverAddress = z
  .string()
  .max(300)
  .refine((s) => !('error' in parseServerAddress(s)), { message: 'expected host:port of an adb server, e.g. 192.168.1.20:5037 or [::1]:5037' });

export const androidSettings = z
  .strictObject({
    /** The `adb` binary, or a platform-tools or SDK folder (default: found on PATH and in the usual SDK folders). */
    adbPath: z.string().min(1).optional(),
    /**
     * More adb servers besides the local one, as `host:port` (what `adb -H host -P port` takes):
     * a lab machine running `adb -a nodaemon server`, a DeviceFarmer/STF provider. Their devices
     * are listed as `android:<host>:<port>/<serial>`.
     */
    servers: z.array(serverAddress).max(64).default([]),
  })
  .prefault({});

/** Input form: tests and callers may leave out what has a default. */
export type AndroidSettings = NonNullable<z.input<typeof androidSettings>>;
