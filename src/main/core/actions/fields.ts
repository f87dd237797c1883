/** The input fields every action kind reads its target, frame and aim from (zod, described for the agent). */
import { z } from 'zod';

export const targetField = z.string().min(1).max(512).describe('Target id from list_targets (e.g. "browser:…", "desktop:window:…", "android:<serial>"). Optional when "ref" is given.');
export const refField = z
  .string()
  .min(1)
  .max(128)
  .describe("A frame ref (a crop included) whose image pixels x, y are in. Default: the target's latest capture (never a crop unless named).");
export const xField = z.number().finite().describe('X in image pixels of the frame (0 = left edge).');
export const yField = z.number().finite().describe('Y in image pixels of the frame (0 = top edge).');
export const nodeField = z.string().min(1).max(128).describe('A node id from get_ui_tree, instead of x, y: the element is found again where it is now (scrolled into view if needed).');
export const textAimField = z.string().min(1).max(500).describe('Visible text to aim at instead of x, y (case- and accent-insensitive), e.g. "Submit".');
export const indexField = z.int().min(1).max(1000).describe('Which match of the text, 1 = the first in reading order (when several match).');
export const afterField = z
  .enum(['none', 'summary', 'image'])
  .describe('What to report after acting: summary (default: what was hit, navigation, dialogs, the changed region), image (also a small picture of the change), none (fastest).');

