/**
 * The economy pages for the routines benchmark, served as they are and changed: with `?changed=1`
 * each page's ids are renamed (its own script follows them), a banner is inserted above the
 * content, the page is restyled and its controls are moved (forms and lists laid out in reverse,
 * sibling buttons swapped); with `?relabelled=1` every button the page is served with says
 * something else (where a replay must stop). The query is the only difference in the URL, so a
 * routine's expected pages (origin and path) hold on all.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

const ECONOMY = join(import.meta.dirname, '..', 'tests', 'fixtures', 'browser', 'economy');

export type Variant = 'fresh' | 'changed' | 'relabelled';

export interface PageServer {
  url(page: string, o?: { variant?: Variant; by?: string }): string;
  /** The variant served to a URL that names none (as a routine that opens its page itself asks for it). */
  serve(variant: Variant): void;
  close(): Promise<void>;
}

const BANNER = '<div class="banner" role="note"><strong>Scheduled maintenance</strong> tonight from 22:00 to 23:00: saving may be slow.</div>';
const RESTYLE = `<style>
  body { padding: 40px 56px; font: 17px/1.6 serif; background: #fbfaf7; }
  .banner { padding: 14px 18px; margin: 0 0 28px; background: #fff3c4; border: 1px solid #e0c860; }
  form { display: flex !important; flex-direction: column-reverse; align-items: flex-start; gap: 14px; }
  ul { display: flex; flex-direction: column-reverse; }
</style>`;

/** The page changed as a redesign would change it, its behaviour kept. */
export function changePage(html: string): string {
  const ids = [...html.matchAll(/\bid="([\w-]+)"/g)].map((m) => m[1]!);
  let out = html;
  for (const id of ids) {
    const renamed = `v2-${id}-x`;
    out = out
      .replaceAll(`id="${id}"`, `id="${renamed}"`)
      .replaceAll(`for="${id}"`, `for="${renamed}"`)
      .replaceAll(`getElementById('${id}')`, `getElementById('${renamed}')`);
  }
  // Sibling buttons swap places (the first two of a run of buttons).
  out = out.replace(/(<button[^>]*>[^<]*<\/button>)(\s*)(<button[^>]*>[^<]*<\/button>)/, '$3$2$1');
  return out.replace('</head>', `${RESTYLE}\n</head>`).replace(/<body>/, `<body>\n${BANNER}`);
}

/** Each button of the page as served says something else ("Sign in" → "Sign in now"). */
export function relabelPage(html: string): string {
  return html.replace(/(<button[^>]*>)([^<]+)(<\/button>)/g, '$1$2 now$3');
}

/** The names of the buttons a page is served with: the ones `relabelPage` renames. */
export function buttonsOf(html: string): string[] {
  return [...html.matchAll(/<button[^>]*>([^<]+)<\/button>/g)].map((m) => m[1]!.trim());
}

export function pageHtml(page: string): string {
  return readFileSync(join(ECONOMY, page), 'utf8');
}

export async function servePages(): Promise<PageServer> {
  let current: Variant = 'fresh';
  const server: Server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://x');
    // The search page's results come from the server a moment after the submit.
    if (u.pathname === '/slow') {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end('slow'), Math.min(5000, Number(u.searchParams.get('ms')) || 300));
      return;
    }
    const m = /^\/economy\/([a-z]+\.html)$/.exec(u.pathname);
    const file = m ? join(ECONOMY, m[1]!) : undefined;
    if (!file || !existsSync(file)) {
      res.writeHead(404).end('not found');
      return;
    }
    const html = readFileSync(file, 'utf8');
    const variant = u.searchParams.get('changed') === '1' ? 'changed' : u.searchParams.get('relabelled') === '1' ? 'relabelled' : current;
    const served = variant === 'changed' ? changePage(html) : variant === 'relabelled' ? relabelPage(html) : html;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(served);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      resolve({
        url: (page, o = {}) => `http://127.0.0.1:${port}/economy/${page}?by=${o.by ?? 'routine'}${o.variant && o.variant !== 'fresh' ? `&${o.variant}=1` : ''}`,
        serve: (variant) => {
          current = variant;
        },
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    }),
  );
}
