/** The core's public entry: the composition root and what callers need to run it. */
export { createCore, type Core, type CoreOptions } from './core.ts';
export { frameDescriptor, frameSummary } from './frames/descriptors.ts';
export { BUILTIN_SOURCES } from './sources/builtin.ts';
export { VERSION } from './version.ts';
