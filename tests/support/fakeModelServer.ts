/**
 * A scripted model server on 127.0.0.1 that speaks both providers' HTTP APIs — Anthropic
 * `POST /v1/messages` and OpenAI `POST /v1/chat/completions` — so the real SDKs, pointed at it
 * with a base URL, talk to it as to the real thing. Every request is checked as it arrives: the
 * key is in the auth header and nowhere in the body, the image is there and decodes, and its size
 * is stated in the text and matches the image. The test's script answers, looking at what came in.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import sharp from 'sharp';

export interface ReceivedImage {
  mimeType: string;
  bytes: number;
  width: number;
  height: number;
}

export interface Received {
  /** 1-based order of arrival. */
  n: number;
  provider: 'anthropic' | 'openai';
  headers: IncomingHttpHeaders;
  body: Record<string, unknown>;
  rawBody: string;
  model: string;
  system: string;
  /** The text of the first user message (the step's prompt). */
  text: string;
  image?: ReceivedImage;
  /** "The screenshot is W×H pixels", as stated in the text. */
  stated?: { width: number; height: number };
  /** The follow-up of a repair prompt (an assistant turn and a second user turn). */
  repair?: { reply: string; text: string };
  problems: string[];
}

export type Reply = string | { status: number; message?: string } | { delayMs: number; then: Reply };
export type Script = (req: Received) => Reply | Promise<Reply>;

export interface FakeModelServer {
  /** http://127.0.0.1:PORT — the Anthropic SDK's base URL. */
  url: string;
  /** http://127.0.0.1:PORT/v1 — the OpenAI SDK's base URL. */
  openaiUrl: string;
  requests: Received[];
  /** Every check that failed, across requests ("#2: no image"). */
  problems(): string[];
  script(s: Script): void;
  close(): Promise<void>;
}

/** The JSON an action reply carries, as a model would write it. */
export const act = (a: Record<string, unknown>): string => JSON.stringify({ why: 'scripted', confidence: 0.9, ...a });

type Part = { type?: string; text?: string; source?: { type?: string; media_type?: string; data?: string }; image_url?: { url?: string } };
type Message = { role?: string; content?: string | Part[] };

const textOf = (content: Message['content']): string => (typeof content === 'string' ? content : (content ?? []).filter((p) => p.type === 'text').map((p) => p.text ?? '').join('\n'));

function imageOf(content: Message['content']): { mimeType: string; data: string } | undefined {
  if (typeof content === 'string' || !content) return undefined;
  for (const p of content) {
    if (p.type === 'image' && p.source?.type === 'base64' && p.source.data) return { mimeType: p.source.media_type ?? '', data: p.source.data };
    const m = p.type === 'image_url' ? /^data:([^;]+);base64,(.*)$/s.exec(p.image_url?.url ?? '') : null;
    if (m) return { mimeType: m[1]!, data: m[2]! };
  }
  return undefined;
}

async function inspect(n: number, provider: Received['provider'], headers: IncomingHttpHeaders, rawBody: string, key: string): Promise<Received> {
  const problems: string[] = [];
  const body = JSON.parse(rawBody) as Record<string, unknown>;
  const messages = (body.messages as Message[] | undefined) ?? [];
  const system = provider === 'anthropic' ? String(body.system ?? '') : textOf(messages.find((m) => m.role === 'system')?.content);
  const users = messages.filter((m) => m.role === 'user');
  const first = users[0];
  const text = textOf(first?.content);
  const auth = headers.authorization ?? '';
  if (auth !== `Bearer ${key}` && headers['x-api-key'] !== key) problems.push(`the key is not in the auth header (${auth ? 'another value' : 'none'})`);
  if (rawBody.includes(key)) problems.push('the key appears in the request body');
  if (!system.includes('pixels')) problems.push('the system prompt does not talk about image pixels');
  const stated = /(\d+)×(\d+) pixels/.exec(text);
  const received: Received = { n, provider, headers, body, rawBody, model: String(body.model ?? ''), system, text, problems };
  if (stated) received.stated = { width: Number(stated[1]), height: Number(stated[2]) };
  else problems.push('the image size is not stated');
  const img = imageOf(first?.content);
  if (!img) problems.push('no image');
  else {
    const data = Buffer.from(img.data, 'base64');
    try {
      const meta = await sharp(data).metadata();
      received.image = { mimeType: img.mimeType, bytes: data.length, width: meta.width ?? 0, height: meta.height ?? 0 };
      if (`image/${meta.format}` !== img.mimeType) problems.push(`image says ${img.mimeType}, is ${meta.format}`);
      if (received.stated && (received.stated.width !== meta.width || received.stated.height !== meta.height)) problems.push(`stated ${received.stated.width}×${received.stated.height}, image is ${meta.width}×${meta.height}`);
    } catch (e) {
      problems.push(`the image does not decode: ${(e as Error).message}`);
    }
  }
  if (users.length > 1) {
    const assistant = messages.find((m) => m.role === 'assistant');
    received.repair = { reply: textOf(assistant?.content), text: textOf(users.at(-1)?.content) };
  }
  return received;
}

function answer(provider: Received['provider'], model: string, n: number, text: string): unknown {
  if (provider === 'anthropic') {
    return { id: `msg_fake_${n}`, type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1000, output_tokens: 30 } };
  }
  return {
    id: `chatcmpl-fake-${n}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, finish_reason: 'stop', logprobs: null }],
    usage: { prompt_tokens: 1000, completion_tokens: 30, total_tokens: 1030 },
  };
}

function errorBody(provider: Received['provider'], status: number, message: string): unknown {
  return provider === 'anthropic' ? { type: 'error', error: { type: status === 401 ? 'authentication_error' : 'api_error', message } } : { error: { message, type: 'invalid_request_error', code: null } };
}

export async function startFakeModelServer(options: { key: string; script?: Script }): Promise<FakeModelServer> {
  let script: Script = options.script ?? (() => act({ action: 'noop' }));
  const requests: Received[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const path = (req.url ?? '').split('?')[0];
        const provider = path === '/v1/messages' ? 'anthropic' : path === '/v1/chat/completions' ? 'openai' : undefined;
        if (req.method !== 'POST' || !provider) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        const received = await inspect(requests.length + 1, provider, req.headers, Buffer.concat(chunks).toString('utf8'), options.key);
        requests.push(received);
        let reply = await script(received);
        while (typeof reply === 'object' && 'delayMs' in reply) {
          await new Promise((r) => setTimeout(r, (reply as { delayMs: number }).delayMs));
          if (res.destroyed || req.socket.destroyed) return;
          reply = reply.then;
        }
        if (typeof reply === 'object') {
          res.writeHead(reply.status, { 'content-type': 'application/json' }).end(JSON.stringify(errorBody(provider, reply.status, reply.message ?? 'scripted failure')));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer(provider, received.model, received.n, reply)));
      })().catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: String(e) }));
      });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    openaiUrl: `${url}/v1`,
    requests,
    problems: () => requests.flatMap((r) => r.problems.map((p) => `#${r.n}: ${p}`)),
    script: (s) => void (script = s),
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
