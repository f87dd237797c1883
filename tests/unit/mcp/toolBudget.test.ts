/**
 * What tools/list costs an agent with every built-in source up: name, description and input
 * schema of all tools at most 5,000 tokens, the whole list at most 8,000 (characters ÷ 4, the
 * estimate agents' hosts use). An agent pays this on every session before its first call.
 */
import { describe, expect, it } from 'vitest';
import { describeTools } from '../../../src/main/core/mcp/server.ts';
import { BUILTIN_SOURCES } from '../../../src/main/core/sources/builtin.ts';

const sources = { names: (kind?: 'live' | 'archive') => BUILTIN_SOURCES.filter((m) => !kind || m.kind === kind).map((m) => m.name), modules: () => BUILTIN_SOURCES };
const tokens = (v: unknown): number => Math.round(JSON.stringify(v).length / 4);

describe('the tool list an agent pays for', () => {
  const tools = describeTools({ sources }).map((o) => o.described);

  it('costs at most 5,000 tokens in names, descriptions and input schemas, and 8,000 in all', () => {
    expect(tools.length).toBeGreaterThanOrEqual(30);
    expect(tokens(tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })))).toBeLessThanOrEqual(5_000);
    expect(tokens({ tools })).toBeLessThanOrEqual(8_000);
  });

  it('keeps what a model needs: units on coordinates, the enum of every choice, and no abuse limits', () => {
    const click = tools.find((t) => t.name === 'click')!;
    const props = click.inputSchema.properties as Record<string, { description?: string; enum?: string[]; maxLength?: number }>;
    expect(props.x!.description).toMatch(/image px/i);
    expect(props.after!.enum).toEqual(['none', 'summary', 'image']);
    expect(JSON.stringify(tools)).not.toMatch(/"maxLength"|"minLength"|9007199254740991/);
  });
});
