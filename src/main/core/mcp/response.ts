/**
 * Tools write to a response builder; the server turns it into a CallToolResult.
 * Errors become `isError` results here and only here: text `CODE: message Hint: …`,
 * no structuredContent (clients validate that against the outputSchema).
 */
import type { CallToolResult, ContentBlock } from '@modelcontextprotocol/sdk/types.js';
import { formatError, isSightlineError, type ErrorCode } from '../../../shared/errors.ts';
import type { ImageFormat } from '../../../shared/frame.ts';

type Role = 'user' | 'assistant';

export const MIME: Record<ImageFormat, string> = { jpeg: 'image/jpeg', webp: 'image/webp', png: 'image/png' };

export class ToolResponse {
  readonly #content: ContentBlock[] = [];
  #structured: Record<string, unknown> | undefined;

  text(text: string): this {
    this.#content.push({ type: 'text', text });
    return this;
  }

  /** An image for the given audience: [user, assistant] enters the model's context; [user] is for the human only. */
  image(data: Buffer, format: ImageFormat, audience: Role[], priority?: number): this {
    this.#content.push({
      type: 'image',
      data: data.toString('base64'),
      mimeType: MIME[format],
      annotations: { audience, ...(priority !== undefined ? { priority } : {}) },
    });
    return this;
  }

  /** A lazy link the client can resolve with resources/read (zero image bytes now). */
  resourceLink(uri: string, name: string, description?: string, audience: Role[] = ['user']): this {
    // No mimeType: the full image's format is known only when it is read (resources/read says it).
    this.#content.push({ type: 'resource_link', uri, name, ...(description ? { description } : {}), annotations: { audience } });
    return this;
  }

  structured(value: Record<string, unknown>): this {
    this.#structured = value;
    return this;
  }

  toResult(): CallToolResult {
    const result: CallToolResult = { content: this.#content };
    if (this.#structured) result.structuredContent = this.#structured;
    return result;
  }
}

/** The one place a thrown error becomes a tool result. */
export function errorResult(e: unknown): CallToolResult {
  let code: ErrorCode = 'INTERNAL';
  let message = e instanceof Error ? e.message : String(e);
  let hint: string | undefined = 'This is a Sightline bug; the log has details.';
  if (isSightlineError(e)) {
    code = e.code;
    message = e.message;
    hint = e.hint;
  } else if (e instanceof Error && e.name === 'AbortError') {
    code = 'CANCELLED';
    hint = 'Call again if you still need it.';
  }
  return { isError: true, content: [{ type: 'text', text: formatError(code, message, hint) }] };
}
