/** The ManicTime archive source: `createManicTimeSource` is what the core registers. */
export { createManicTimeSource, refOf, targetOf, INDEX_FILE, type ManicTimeSource, type ManicTimeSourceOptions } from './manictimeSource.ts';
export { createReportsDbProvider, noActivities, type ActivityProvider, type ActivityStatus } from './activities.ts';
export { locateManicTime, type ManicTimeLocation } from './dataDir.ts';
export { parseScreenshotName, type ParsedScreenshotName } from './filename.ts';
