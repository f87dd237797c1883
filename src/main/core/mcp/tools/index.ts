/** The core's own tools (every source's): a source's own tools come from its module. */
import type { AnyTool } from '../tool.ts';
import input from './input.ts';
import screenshots from './screenshots.ts';
import targets from './targets.ts';
import wait from './wait.ts';

export const coreTools: readonly AnyTool[] = [...targets, ...input, ...screenshots, ...wait] as AnyTool[];
