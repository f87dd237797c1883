/**
 * A frame's image (or a region of it) for the clipboard and a download, cut in the page at native
 * size from the server's full-resolution image.
 */
import type { FrameSummary } from '../../shared/api.ts';
import { frameUrls } from './api.ts';
import { toPixels, type PercentRect } from './roi.ts';

function loadImage(src: string): Promise<HTMLImageElement> {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error('The image could not be loaded.'));
    img.src = src;
  });
}

/** The selected region (or the whole frame) as PNG. */
export async function regionPng(ref: string, selection: PercentRect | null): Promise<Blob> {
  const img = await loadImage(frameUrls.full(ref));
  const r = selection ? toPixels(selection, img.naturalWidth, img.naturalHeight) : { x: 0, y: 0, width: img.naturalWidth, height: img.naturalHeight };
  const canvas = document.createElement('canvas');
  canvas.width = r.width;
  canvas.height = r.height;
  canvas.getContext('2d')!.drawImage(img, r.x, r.y, r.width, r.height, 0, 0, r.width, r.height);
  return new Promise((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('Encoding failed.'))), 'image/png'));
}

/** Put the region (or the whole image) on the clipboard. */
export async function copyImage(ref: string, selection: PercentRect | null): Promise<void> {
  if (!navigator.clipboard || typeof ClipboardItem === 'undefined') throw new Error('This browser does not allow copying images. Use Export instead.');
  // Passing the promise keeps the user gesture alive while the image is cut (Safari).
  await navigator.clipboard.write([new ClipboardItem({ 'image/png': regionPng(ref, selection) })]);
}

/** Download the region as PNG, or the whole frame at full resolution as it is stored. */
export async function downloadImage(ref: string, frame: FrameSummary | null, selection: PercentRect | null): Promise<void> {
  let blob: Blob;
  if (selection) blob = await regionPng(ref, selection);
  else {
    const res = await fetch(frameUrls.full(ref), { credentials: 'same-origin' });
    if (!res.ok) throw new Error(`Export failed (${res.status}).`);
    blob = await res.blob();
  }
  const ext = blob.type.split('/')[1]?.replace('jpeg', 'jpg') ?? 'png';
  const stamp = (frame?.capturedAt ?? new Date().toISOString()).replace(/[:]/g, '-').replace(/\..*$/, '');
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = `sightline-${frame?.source ?? 'frame'}-${stamp}${selection ? '-region' : ''}.${ext}`;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
