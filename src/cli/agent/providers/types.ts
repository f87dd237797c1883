/** What the loop needs from a model provider: one decision per turn, the raw exchange kept for the artifacts. */

export interface ModelImage {
  /** Base64, as the capture tool returned it (no re-encoding). */
  data: string;
  mimeType: string;
  width: number;
  height: number;
}

export interface ModelTurn {
  system: string;
  text: string;
  image: ModelImage;
  /** The one repair prompt: the unusable reply and what to say about it. */
  repair?: { reply: string; text: string };
}

export interface ModelReply {
  text: string;
  /** The provider's response body, as the SDK returned it. */
  raw: object;
  usage?: { inputTokens?: number; outputTokens?: number };
}

export interface ModelProvider {
  readonly name: 'anthropic' | 'openai';
  readonly model: string;
  decide(turn: ModelTurn, options: { signal: AbortSignal; timeoutMs: number }): Promise<ModelReply>;
  /** The request body as it will be sent, the image bytes left out (they are the step's screenshot file). */
  describeRequest(turn: ModelTurn): object;
}

export interface ProviderConfig {
  model: string;
  apiKey: string;
  authToken?: boolean;
  baseUrl?: string;
  maxTokens: number;
}

/** A provider failure in one shape: HTTP status when there was one; `aborted` when our signal ended it. */
export class ModelError extends Error {
  readonly status: number | undefined;
  readonly aborted: boolean;
  constructor(message: string, options: { status?: number; aborted?: boolean; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'ModelError';
    this.status = options.status;
    this.aborted = options.aborted ?? false;
  }
}

/** SDK errors (APIError, APIConnectionError, APIUserAbortError) → ModelError, without their request headers. */
export function toModelError(e: unknown, signal: AbortSignal): ModelError {
  if (e instanceof ModelError) return e;
  const err = e as { name?: string; message?: string; status?: number };
  if (signal.aborted || err.name === 'APIUserAbortError' || err.name === 'AbortError') return new ModelError('the model call was cancelled', { aborted: true });
  const status = typeof err.status === 'number' ? err.status : undefined;
  const message = (err.message ?? String(e)).split('\n')[0]!.slice(0, 500);
  return new ModelError(status ? `HTTP ${status}: ${message}` : message, { ...(status ? { status } : {}) });
}

export const imagePlaceholder = (img: ModelImage): string => `<${img.mimeType} base64, ${Math.round((img.data.length * 3) / 4)} bytes, ${img.width}×${img.height}: the step's screenshot file>`;

/** SDK log lines go to stderr at warn level whatever ANTHROPIC_LOG / OPENAI_LOG say: stdout is ours. */
export const sdkLogger = {
  error: (...a: unknown[]): void => void process.stderr.write(`[model] ${a.map(String).join(' ')}\n`),
  warn: (...a: unknown[]): void => void process.stderr.write(`[model] ${a.map(String).join(' ')}\n`),
  info: (): void => undefined,
  debug: (): void => undefined,
};
