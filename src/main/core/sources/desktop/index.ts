export { createDesktopSource, parseDesktopTarget, type DesktopSourceOptions } from './desktopSource.ts';
export { desktopHealth, displayServer, type DesktopFacts, type PermissionState } from './environment.ts';
