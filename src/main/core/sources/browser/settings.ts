/** The browser source's settings section (`browser.*`). */
import { z } from 'zod';
import { ENDPOINT_NAME } from './detect.ts';

const debugUrl = z.url({ protocol: /^(https?|wss?)$/ });

/** A remote browser (a Selenium Grid 4 node's se/cdp, browserless, a Chrome on another host). */
export const browserEndpoint = z.strictObject({
  /** Prefixes its tabs' ids: `browser:<name>/<CDP target id>`. */
  name: z.string().regex(ENDPOINT_NAME, 'letters, digits, ".", "_" and "-", at most 32, starting with a letter or digit'),
  /** Its DevTools endpoint: http(s)://host:port (asked /json/version) or a ws(s):// URL. */
  url: debugUrl,
  /** Sent with the /json/version request and the WebSocket upgrade (e.g. an access token). */
  headers: z.record(z.string().min(1), z.string()).optional(),
});
export type BrowserEndpoint = z.output<typeof browserEndpoint>;

export const browserSettings = z
  .strictObject({
    /** A running browser's debugging endpoint, e.g. http://127.0.0.1:9222 (env SIGHTLINE_BROWSER_URL). */
    endpoint: debugUrl.optional(),
    /** More browsers, each a source of tabs like the default one. */
    endpoints: z
      .array(browserEndpoint)
      .max(1000)
      .default([])
      .refine((list) => new Set(list.map((e) => e.name.toLowerCase())).size === list.length, 'endpoint names must be unique'),
    /** A browser to launch when no endpoint answers. */
    executablePath: z.string().min(1).optional(),
    /** Launch headless when Sightline launches the browser. */
    headless: z.boolean().default(false),
    /** Let agents open file: URLs (never inside Sightline's data directory). Off: web pages only. */
    allowFileUrls: z.boolean().default(false),
  })
  .prefault({});

export type BrowserSettings = z.output<typeof browserSettings>;
