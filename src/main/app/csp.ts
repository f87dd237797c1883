/**
 * The Content-Security-Policy the app enforces on the dashboard (as a response header,
 * on top of the `<meta>` policy in index.html): scripts, styles, images and
 * connections from the local server's origin only, no plugins, no framing.
 */
export function contentSecurityPolicy(): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Svelte sets element styles at runtime; no inline <script> is ever allowed.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
  ].join('; ');
}

/** Response headers to add to every dashboard response (header names lower-case). */
export function securityHeaders(): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cross-origin-opener-policy': 'same-origin',
  };
}

/**
 * Response headers with ours set, replacing any same-named header whatever its case
 * (the shape `webRequest.onHeadersReceived` hands over and takes back).
 */
export function withSecurityHeaders(headers: Record<string, string[]> | undefined): Record<string, string[]> {
  const ours = securityHeaders();
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    if (!(k.toLowerCase() in ours)) out[k] = v;
  }
  for (const [k, v] of Object.entries(ours)) out[k] = [v];
  return out;
}
