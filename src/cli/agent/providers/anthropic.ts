/** Anthropic Messages API through the official SDK (loaded only when an agent runs). */
import { imagePlaceholder, sdkLogger, toModelError, type ModelProvider, type ModelReply, type ModelTurn, type ProviderConfig } from './types.ts';

type MediaType = 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp';

/** The request body; `image` is the block to send (real bytes) or to log (a placeholder). */
export function anthropicBody(turn: ModelTurn, cfg: Pick<ProviderConfig, 'model' | 'maxTokens'>, forLog: boolean): Record<string, unknown> {
  const image = forLog
    ? { type: 'text', text: imagePlaceholder(turn.image) }
    : { type: 'image', source: { type: 'base64', media_type: turn.image.mimeType as MediaType, data: turn.image.data } };
  // The image before the text, as Anthropic advises for vision prompts.
  const messages: unknown[] = [{ role: 'user', content: [image, { type: 'text', text: turn.text }] }];
  if (turn.repair) {
    messages.push({ role: 'assistant', content: turn.repair.reply.trim() || '(empty)' });
    messages.push({ role: 'user', content: turn.repair.text });
  }
  return { model: cfg.model, max_tokens: cfg.maxTokens, system: turn.system, messages };
}

export async function createAnthropicProvider(cfg: ProviderConfig): Promise<ModelProvider> {
  const { default: Anthropic } = await import('@anthropic-ai/sdk');
  const client = new Anthropic({
    ...(cfg.authToken ? { authToken: cfg.apiKey } : { apiKey: cfg.apiKey }),
    ...(cfg.baseUrl ? { baseURL: cfg.baseUrl } : {}),
    maxRetries: 1,
    logLevel: 'warn',
    logger: sdkLogger,
    openTelemetry: false,
  });
  return {
    name: 'anthropic',
    model: cfg.model,
    describeRequest: (turn) => anthropicBody(turn, cfg, true),
    async decide(turn, { signal, timeoutMs }): Promise<ModelReply> {
      const body = anthropicBody(turn, cfg, false);
      let msg;
      try {
        msg = await client.messages.create(body as unknown as Parameters<typeof client.messages.create>[0] & { stream?: false }, { signal, timeout: timeoutMs });
      } catch (e) {
        throw toModelError(e, signal);
      }
      const m = msg as { content?: { type: string; text?: string }[]; usage?: { input_tokens?: number; output_tokens?: number } };
      const text = (m.content ?? []).filter((b) => b.type === 'text').map((b) => b.text ?? '').join('');
      return {
        text,
        raw: msg as object,
        usage: { inputTokens: m.usage?.input_tokens, outputTokens: m.usage?.output_tokens },
      };
    },
  };
}
