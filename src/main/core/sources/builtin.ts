/**
 * The sources built into Sightline, in the order the dashboard shows them. A new source is a
 * folder beside these (its module.ts and what it needs) plus one line here.
 */
import type { AnySourceModule } from './module.ts';
import { androidModule } from './android/module.ts';
import { browserModule } from './browser/module.ts';
import { desktopModule } from './desktop/module.ts';
import { manictimeModule } from './manictime/module.ts';

export const BUILTIN_SOURCES: readonly AnySourceModule[] = [desktopModule, browserModule, androidModule, manictimeModule];
