/** The provider for --provider, its SDK imported only now (sightline mcp never pays for it). */
import type { ProviderName } from '../args.ts';
import type { ModelProvider, ProviderConfig } from './types.ts';

export async function createProvider(name: ProviderName, cfg: ProviderConfig): Promise<ModelProvider> {
  if (name === 'anthropic') return (await import('./anthropic.ts')).createAnthropicProvider(cfg);
  return (await import('./openai.ts')).createOpenAiProvider(cfg);
}
