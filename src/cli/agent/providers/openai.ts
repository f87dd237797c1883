/**
 * OpenAI Chat Completions through the official SDK (loaded only when an agent runs). With
 * --base-url it talks to any OpenAI-compatible server: Ollama, vLLM, LM Studio, a gateway.
 */
import { imagePlaceholder, sdkLogger, toModelError, type ModelProvider, type ModelReply, type ModelTurn, type ProviderConfig } from './types.ts';

export function openaiBody(turn: ModelTurn, cfg: Pick<ProviderConfig, 'model' | 'maxTokens' | 'baseUrl'>, forLog: boolean): Record<string, unknown> {
  const image = forLog ? { type: 'text', text: imagePlaceholder(turn.image) } : { type: 'image_url', image_url: { url: `data:${turn.image.mimeType};base64,${turn.image.data}` } };
  const messages: unknown[] = [
    { role: 'system', content: turn.system },
    { role: 'user', content: [{ type: 'text', text: turn.text }, image] },
  ];
  if (turn.repair) {
    messages.push({ role: 'assistant', content: turn.repair.reply });
    messages.push({ role: 'user', content: turn.repair.text });
  }
  // OpenAI's newer models take only max_completion_tokens; compatible servers know max_tokens.
  const limit = cfg.baseUrl ? { max_tokens: cfg.maxTokens } : { max_completion_tokens: cfg.maxTokens };
  return { model: cfg.model, messages, ...limit };
}

export async function createOpenAiProvider(cfg: ProviderConfig): Promise<ModelProvider> {
  const { default: OpenAI } = await import('openai');
  const client = new OpenAI({ apiKey: cfg.apiKey, ...(cfg.baseUrl ? { baseURL: cfg.baseUrl } : {}), maxRetries: 1, logLevel: 'warn', logger: sdkLogger });
  return {
    name: 'openai',
    model: cfg.model,
    describeRequest: (turn) => openaiBody(turn, cfg, true),
    async decide(turn, { signal, timeoutMs }): Promise<ModelReply> {
      const body = openaiBody(turn, cfg, false);
      let res;
      try {
        res = await client.chat.completions.create(body as unknown as Parameters<typeof client.chat.completions.create>[0] & { stream?: false }, { signal, timeout: timeoutMs });
      } catch (e) {
        throw toModelError(e, signal);
      }
      const r = res as { choices?: { message?: { content?: string | null; refusal?: string | null } }[]; usage?: { prompt_tokens?: number; completion_tokens?: number } };
      const message = r.choices?.[0]?.message;
      return {
        text: message?.content ?? message?.refusal ?? '',
        raw: res as object,
        usage: { inputTokens: r.usage?.prompt_tokens, outputTokens: r.usage?.completion_tokens },
      };
    },
  };
}
