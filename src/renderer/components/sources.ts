import type { SourceName } from '../../shared/frame.ts';
import type { IconName } from './icons.ts';

export const SOURCE_LABELS: Record<SourceName, string> = {
  desktop: 'Desktop',
  browser: 'Browser',
  android: 'Android',
  manictime: 'ManicTime',
};

export const SOURCE_ICONS: Record<SourceName, IconName> = {
  desktop: 'monitor',
  browser: 'globe',
  android: 'phone',
  manictime: 'history',
};

/** An icon for a target's kind (window, display, tab, device). */
export function kindIcon(kind: string, source: SourceName): IconName {
  if (kind.includes('window')) return 'appWindow';
  if (kind.includes('display') || kind.includes('screen')) return 'monitor';
  if (kind.includes('tab') || kind.includes('page')) return 'globe';
  if (kind.includes('device') || kind.includes('emulator')) return 'phone';
  return SOURCE_ICONS[source];
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
