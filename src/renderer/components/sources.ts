/**
 * How the dashboard shows a source: its label and icon come from the core's source modules
 * (`GET /api/sources`, kept in `live.sources`); nothing here names a source.
 */
import type { SourceName } from '../../shared/frame.ts';
import type { SourceInfo } from '../../shared/sources.ts';
import { live } from '../lib/live.svelte.ts';
import { ICONS, type IconName } from './icons.ts';

export function sourceInfo(name: SourceName): SourceInfo | undefined {
  return live.sources.find((s) => s.name === name);
}

export function sourceLabel(name: SourceName): string {
  return sourceInfo(name)?.label ?? name.charAt(0).toUpperCase() + name.slice(1);
}

export function sourceIcon(name: SourceName): IconName {
  const icon = sourceInfo(name)?.icon;
  return icon && icon in ICONS ? (icon as IconName) : 'plug';
}

/** An icon for a target's kind (window, display, tab, device). */
export function kindIcon(kind: string, source: SourceName): IconName {
  if (kind.includes('window')) return 'appWindow';
  if (kind.includes('display') || kind.includes('screen')) return 'monitor';
  if (kind.includes('tab') || kind.includes('page')) return 'globe';
  if (kind.includes('device') || kind.includes('emulator')) return 'phone';
  return sourceIcon(source);
}

export const TOOL_ICONS: Record<string, IconName> = {
  click: 'pointer',
  type_text: 'keyboard',
  press_key: 'keyboard',
  scroll: 'scroll',
  swipe: 'swipe',
  focus_window: 'appWindow',
  scroll_into_view: 'scroll',
  capture: 'camera',
  crop_screenshot: 'crop',
  get_ui_tree: 'tree',
  list_targets: 'crosshair',
  list_screenshots: 'images',
  get_screenshot: 'images',
};
