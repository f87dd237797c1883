/** The one registry of tools, sorted by name. */
import type { AnyTool } from '../tool.ts';
import input from './input.ts';
import screenshots from './screenshots.ts';
import targets from './targets.ts';

export const allTools: readonly AnyTool[] = ([...targets, ...input, ...screenshots] as AnyTool[]).sort((a, b) => a.name.localeCompare(b.name));
