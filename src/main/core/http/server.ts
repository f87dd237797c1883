/**
 * The 127.0.0.1 server behind `sightline serve` and the tray app: Streamable HTTP
 * MCP at /mcp, the dashboard's API at /api, the dashboard itself at /. Every request
 * needs the token and a loopback Host and Origin.
 */
import { randomUUID } from 'node:crypto';
import { createReadStream, existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { pipeline } from 'node:stream';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { API_PREFIX, TIMELINE_PAGE_SIZE, type ConnectInfo } from '../../../shared/api.ts';
import { warmUpImages } from '../image/pipeline.ts';
import { ToolCaller, createMcpServer, type McpServices } from '../mcp/server.ts';
import { addOwnPort } from '../util/self.ts';
import { createApi, type ApiServices } from './api.ts';
import { BrowserSessions, SESSION_COOKIE, ensureToken, isAllowedHost, isAllowedOrigin, isAuthorised, tokensEqual } from './security.ts';

export interface ServerOptions {
  /**
   * Listen here (0: any free port). Omitted: the port remembered in the data directory (else
   * DEFAULT_PORT), so a dashboard left open finds the server again after a restart; when that port
   * is taken another is used, remembered, and said in `portNote`.
   */
  port?: number;
  /** Built dashboard (out/renderer); omitted = API and MCP only. */
  staticDir?: string;
  /**
   * How an MCP client that starts its server over stdio runs this Sightline's relay, for the
   * configs the dashboard offers to copy (default: `sightline mcp`, with the command on PATH).
   */
  stdio?: ConnectInfo['stdio'];
  log?: (line: string) => void;
}

export interface RunningServer {
  port: number;
  url: string;
  mcpUrl: string;
  /** Opens the dashboard already authorised (sets the session cookie, then redirects to /). */
  dashboardUrl: string;
  token: string;
  /** Set when the remembered port was taken and another was used: what a person should know. */
  portNote?: string;
  close(): Promise<void>;
}

/** The first port tried when none is remembered (not a registered service's). */
export const DEFAULT_PORT = 47_816;
/** Where the port is remembered between runs. */
export const PORT_FILE = 'port';

function rememberedPort(dataDir: string): number | undefined {
  try {
    const n = Number(readFileSync(join(dataDir, PORT_FILE), 'utf8').trim());
    return Number.isInteger(n) && n > 0 && n < 65536 ? n : undefined;
  } catch {
    return undefined;
  }
}

function rememberPort(dataDir: string, port: number): void {
  const path = join(dataDir, PORT_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${port}\n`, { mode: 0o600 });
  renameSync(tmp, path);
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** An MCP session with no request for this long was abandoned by its client. */
const SESSION_IDLE_MS = 12 * 3600_000;
/**
 * A client that keeps no stream open (it only posts) counts as connected this long after its last
 * request. One that held a stream counts while the stream is open: its closing is the disconnect.
 */
const PRESENCE_LINGER_MS = 60_000;
const MAX_BODY = 4 * 1024 * 1024;

async function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    return undefined;
  }
}

function isInitialize(body: unknown): boolean {
  const msgs = Array.isArray(body) ? body : [body];
  return msgs.some((m) => typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'initialize');
}

const CSP = "default-src 'self'; img-src 'self' blob: data:; style-src 'self' 'unsafe-inline'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** What the server needs: the ports of MCP sessions and of the dashboard API, and where the token lives. */
export type ServerServices = McpServices & Omit<ApiServices, 'connect' | 'tools'> & { dataDir: string };

/**
 * Rows of the timeline a window shows at first (72 px each under the header: 12 fill a 900 px
 * window). Each inline thumbnail not made yet costs ~6 ms of CPU before the first page can leave;
 * rows further down load theirs by URL.
 */
const FIRST_SCREEN_ROWS = 12;

/**
 * The dashboard's page with its timeline's first page named in a preload link, anchored now: the
 * browser asks for it (a screenful of thumbnails inline) while the script loads, and the script
 * takes that answer (`main.ts`). Without it the request would wait for the script to load and run,
 * a few hundred milliseconds of the first screen.
 */
export function withFirstPage(html: string, now = new Date()): string {
  const href = `${API_PREFIX}/frames?before=${encodeURIComponent(now.toISOString())}&limit=${TIMELINE_PAGE_SIZE}&thumbs=${FIRST_SCREEN_ROWS}`;
  return html.replace('</head>', `  <link rel="preload" as="fetch" crossorigin href="${href.replaceAll('&', '&amp;')}" data-first-page />\n  </head>`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(JSON.stringify(body));
}

interface McpSession {
  transport: StreamableHTTPServerTransport;
  seen: number;
  presence: Presence;
}

/**
 * Whether one MCP session's client is there now: while a stream of it is open, or for a while after
 * its last request when it never held one. Reports each arrival and departure once.
 */
class Presence {
  readonly #report: (delta: 1 | -1) => void;
  #open = 0;
  #streams = 0;
  #heldStream = false;
  #present = false;
  #ended = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(report: (delta: 1 | -1) => void) {
    this.#report = report;
  }

  /** A request of this session; `stream` for the standing GET stream. Ends when `res` closes. */
  exchange(res: ServerResponse, stream: boolean): void {
    if (this.#ended) return;
    this.#open++;
    if (stream) {
      this.#streams++;
      this.#heldStream = true;
    }
    this.#set(true);
    res.once('close', () => {
      this.#open--;
      if (stream) this.#streams--;
      this.#judge();
    });
  }

  /** The session ended (the client said goodbye, or it expired). */
  end(): void {
    this.#ended = true;
    clearTimeout(this.#timer);
    this.#set(false);
  }

  #judge(): void {
    if (this.#ended || this.#open > 0) return;
    clearTimeout(this.#timer);
    // A client whose stream closed has gone; one that only posts is given time for its next request.
    if (this.#heldStream && this.#streams === 0) return this.#set(false);
    this.#timer = setTimeout(() => this.#open === 0 && this.#set(false), PRESENCE_LINGER_MS);
    this.#timer.unref();
  }

  #set(present: boolean): void {
    if (present === this.#present) return;
    this.#present = present;
    if (present) clearTimeout(this.#timer);
    this.#report(present ? 1 : -1);
  }
}

export async function startServer(core: ServerServices, options: ServerOptions = {}): Promise<RunningServer> {
  const token = ensureToken(core.dataDir);
  const log = options.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const sessions = new Map<string, McpSession>();
  const browsers = new BrowserSessions(token);
  let port = 0;
  const connect = (): ConnectInfo => ({ mcpUrl: `http://127.0.0.1:${port}/mcp`, tokenFile: join(core.dataDir, 'token'), stdio: options.stdio ?? { command: 'sightline', args: ['mcp'] } });
  // A routine replayed from the dashboard calls tools as an agent's call does.
  const apiListener = getRequestListener(createApi({ ...core, connect, tools: new ToolCaller(core) }).fetch);

  const http = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      log(`[sightline] http ${req.method} ${req.url}: ${(e as Error)?.stack ?? String(e)}`);
      if (!res.headersSent) sendJson(res, 500, { error: { code: 'INTERNAL', message: 'internal error', hint: 'This is a Sightline bug; the log has details.' } });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!isAllowedHost(req.headers.host, port)) return sendJson(res, 403, { error: { code: 'PERMISSION_DENIED', message: 'Host not allowed.', hint: `Connect to http://127.0.0.1:${port} (Sightline answers its own loopback names only).` } });
    if (!isAllowedOrigin(req.headers.origin, port)) return sendJson(res, 403, { error: { code: 'PERMISSION_DENIED', message: 'Origin not allowed.', hint: 'Only the dashboard served by this Sightline may call it from a browser.' } });
    const url = new URL(req.url ?? '/', `http://127.0.0.1:${port}`);

    if (url.pathname === '/auth' && req.method === 'GET') {
      const given = url.searchParams.get('token') ?? '';
      if (!tokensEqual(given, token)) return sendJson(res, 401, { error: { code: 'PERMISSION_DENIED', message: 'Bad token.', hint: 'Open the Dashboard URL that sightline serve printed.' } });
      res.writeHead(302, {
        'Set-Cookie': `${SESSION_COOKIE}=${browsers.create()}; HttpOnly; SameSite=Strict; Path=/`,
        Location: '/',
        'Cache-Control': 'no-store',
      });
      return void res.end();
    }

    if (!isAuthorised(req.headers, token, browsers)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="sightline"');
      if (req.method === 'GET' && !url.pathname.startsWith('/api') && url.pathname !== '/mcp') {
        res.writeHead(401, { 'Content-Type': 'text/html; charset=utf-8' });
        return void res.end('<!doctype html><title>Sightline</title><p>Open the <b>Dashboard:</b> URL that <code>sightline serve</code> printed (it carries the access token).</p>');
      }
      return sendJson(res, 401, { error: { code: 'PERMISSION_DENIED', message: 'Missing or bad token.', hint: `Send "Authorization: Bearer <token>" (the token is in ${join(core.dataDir, 'token')}).` } });
    }

    if (url.pathname === '/mcp') return handleMcp(req, res);
    if (url.pathname.startsWith(`${API_PREFIX}/`)) return void apiListener(req, res);
    return serveStatic(req, res, url.pathname);
  }

  async function handleMcp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const sid = req.headers['mcp-session-id'];
    const existing = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (existing) {
      existing.seen = Date.now();
      existing.presence.exchange(res, req.method === 'GET');
      return existing.transport.handleRequest(req, res);
    }
    if (typeof sid === 'string') return sendJson(res, 404, { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null });
    if (req.method !== 'POST') return sendJson(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'No session: initialize first' }, id: null });
    // Only an initialize request opens a session (and builds a server for it).
    const body = await readBody(req);
    if (!isInitialize(body)) return sendJson(res, 400, { jsonrpc: '2.0', error: { code: -32000, message: 'No session: initialize first' }, id: null });
    const presence = new Presence((delta) => core.clientConnected(delta));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, seen: Date.now(), presence });
        presence.exchange(res, false);
      },
    });
    transport.onclose = () => {
      presence.end();
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    // This session is counted by what its connections do (below), not by its MCP handshake alone:
    // a client that dies without ending its session would otherwise be counted for hours.
    const server = createMcpServer({ ...core, clientConnected: () => undefined }, { log });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  }

  // Sessions a client abandoned (no request for 12 hours) are closed.
  const expiry = setInterval(() => {
    const cutoff = Date.now() - SESSION_IDLE_MS;
    for (const s of sessions.values()) if (s.seen < cutoff) void s.transport.close();
  }, 60_000);
  expiry.unref();

  function serveStatic(req: IncomingMessage, res: ServerResponse, pathname: string): void {
    const root = options.staticDir;
    if (!root || !existsSync(root)) return sendJson(res, 404, { error: { code: 'FILE_UNAVAILABLE', message: 'The dashboard is not built.', hint: 'Run npm run build.' } });
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return sendJson(res, 400, { error: { code: 'INVALID_ARGUMENT', message: 'Bad path.', hint: 'Open the dashboard from its root URL.' } });
    }
    const base = resolve(root);
    let file = resolve(base, `.${rel}`);
    if (file !== base && !file.startsWith(base + sep)) return sendJson(res, 403, { error: { code: 'PATH_REFUSED', message: 'Path outside the dashboard.', hint: 'Open the dashboard from its root URL.' } });
    // A single-page app: unknown paths get index.html.
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(base, 'index.html');
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': CSP,
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': file.endsWith('index.html') ? 'no-store' : 'max-age=3600',
    });
    if (req.method === 'HEAD') return void res.end();
    if (file.endsWith('index.html')) return void res.end(withFirstPage(readFileSync(file, 'utf8')));
    pipeline(createReadStream(file), res, () => undefined);
  }

  const listen = (at: number): Promise<void> =>
    new Promise<void>((ok, fail) => {
      const failed = (e: Error): void => fail(e);
      http.once('error', failed);
      http.listen(at, '127.0.0.1', () => {
        http.off('error', failed);
        ok();
      });
    });
  let portNote: string | undefined;
  if (options.port !== undefined) await listen(options.port);
  else {
    const wanted = rememberedPort(core.dataDir) ?? DEFAULT_PORT;
    try {
      await listen(wanted);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
      await listen(0);
      portNote = `Port ${wanted} is in use by another program, so Sightline listens on port ${(http.address() as AddressInfo).port} instead (kept for next time). A dashboard open on port ${wanted} must be opened again from the new Dashboard URL.`;
      log(`[sightline] ${portNote}`);
    }
  }
  port = (http.address() as AddressInfo).port;
  if (options.port === undefined && rememberedPort(core.dataDir) !== port) {
    try {
      rememberPort(core.dataDir, port);
    } catch (e) {
      log(`[sightline] the port could not be remembered in ${core.dataDir}: ${(e as Error).message}`);
    }
  }
  // The image library loads on first use (~150 ms): here it loads while nobody waits, not
  // inside the first page's thumbnails.
  setImmediate(warmUpImages);
  // No agent may drive this dashboard in a browser Sightline operates.
  const forgetPort = addOwnPort(port);
  const base = `http://127.0.0.1:${port}`;

  return {
    port,
    url: base,
    mcpUrl: `${base}/mcp`,
    dashboardUrl: `${base}/auth?token=${encodeURIComponent(token)}`,
    token,
    ...(portNote ? { portNote } : {}),
    async close() {
      clearInterval(expiry);
      forgetPort();
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      http.closeAllConnections();
      await new Promise<void>((ok) => http.close(() => ok()));
    },
  };
}
