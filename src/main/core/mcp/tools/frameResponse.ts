/** How every image-returning tool answers: dual-audience image, resource link, frame descriptor. */
import { estimateVisionTokens } from '../../image/fit.ts';
import { frameDescriptor } from '../../frames/descriptors.ts';
import type { CaptureOutcome } from '../../ports.ts';
import type { ToolResponse } from '../response.ts';

export function screenshotUri(ref: string, variant?: 'thumbnail'): string {
  return `sightline://screenshot/${ref}${variant ? `/${variant}` : ''}`;
}

export function respondWithFrame(res: ToolResponse, outcome: CaptureOutcome, verb: string): void {
  const f = outcome.frame;
  const tokens = estimateVisionTokens(f.image);
  const scale = Math.round(f.scale * 1000) / 1000;
  res.text(
    `${verb} frame ${f.ref}: ${f.image.width}×${f.image.height} ${outcome.image.format}, ~${tokens} tokens; 1 image px = ${scale} source px. ` +
      `Act in these image coordinates${f.parentRef ? ` with ref "${f.ref}"` : ''}.` +
      (outcome.warnings.length ? `\nWarning: ${outcome.warnings.join('\nWarning: ')}` : ''),
  );
  res.image(outcome.image.data, outcome.image.format, ['user', 'assistant'], 1);
  res.resourceLink(screenshotUri(f.ref), `Screenshot ${f.ref} (full resolution)`, 'Full-resolution image for the human; not sent to the model.');
  res.structured({ frame: frameDescriptor(f), estimatedTokens: tokens, ...(outcome.warnings.length ? { warnings: outcome.warnings } : {}) });
}
