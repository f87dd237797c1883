/**
 * The input fields every action kind reads its target, frame and aim from (zod, described for the
 * agent). Their descriptions are short: the conventions behind them (image pixels of the latest
 * capture, node handles, text aims, what `after` reports) are the server's instructions, said once
 * per session rather than once per tool in every tools/list.
 */
import { z } from 'zod';

export const targetField = z.string().min(1).max(512).describe('Target id; optional with ref.');
export const refField = z.string().min(1).max(128).describe('Frame ref x, y are in (default: latest capture).');
export const xField = z.number().finite().describe('Image px from the left.');
export const yField = z.number().finite().describe('Image px from the top.');
export const nodeField = z.string().min(1).max(128).describe('Node id from get_ui_tree.');
export const textAimField = z.string().min(1).max(500).describe('Visible text to act on, e.g. "Submit".');
export const indexField = z.int().min(1).max(1000).describe('Which match, 1 = first listed.');
export const afterField = z.enum(['none', 'summary', 'image']);
