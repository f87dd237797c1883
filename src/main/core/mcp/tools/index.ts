/** The core's own tools (every source's): a source's own tools come from its module. */
import type { AnyTool } from '../tool.ts';
import input from './input.ts';
import routines from './routines.ts';
import screenshots from './screenshots.ts';
import search from './search.ts';
import targets from './targets.ts';
import text from './text.ts';
import wait from './wait.ts';

export const coreTools: readonly AnyTool[] = [...targets, ...input, ...screenshots, ...search, ...text, ...wait, ...routines] as AnyTool[];
