/**
 * What the dashboard knows about a source, sent by the core (`GET /api/sources`) from the
 * registered source modules: nothing here names a source. Pure types.
 */
import type { SourceName } from './frame.ts';

export type FieldKind = 'toggle' | 'number' | 'select' | 'text' | 'list' | 'gigabytes';

/** One field of the settings screen. */
export interface FieldDef {
  /** The settings path, e.g. `capture.maxDimension`; also the field's id. */
  key: string;
  label: string;
  help?: string;
  kind: FieldKind;
  section: string;
  options?: readonly { value: string; label: string }[];
  min?: number;
  max?: number;
  step?: number | 'any';
  unit?: string;
  placeholder?: string;
  /** An environment variable that, when set, wins over this field (the dashboard says so). */
  env?: string;
}

/** An action a source offers the human in Setup (e.g. "Launch browser"). */
export interface SourceAction {
  id: string;
  label: string;
  /** One sentence under the button. */
  help?: string;
  /** Shown as the primary button while the source is unavailable. */
  primaryWhenUnavailable?: boolean;
}

export interface SourceInfo {
  name: SourceName;
  label: string;
  /** An icon name of the dashboard's sprite (unknown names fall back to a generic icon). */
  icon: string;
  /** `live`: targets to capture and operate; `archive`: read-only history. */
  kind: 'live' | 'archive';
  description: string;
  /** Settings fields of this source's own section (its toggle is implied). */
  fields: FieldDef[];
  actions: SourceAction[];
  /** The desktop app adds OS permission checks (macOS Screen Recording, Accessibility) to this source. */
  osPermissions?: boolean;
}
