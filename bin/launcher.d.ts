/** Types for bin/launcher.js (plain JS so it runs on the old Nodes it replaces). */
export declare const MIN_NODE: readonly [number, number];
export declare const LAUNCHED_ENV: 'SIGHTLINE_LAUNCHED_BY';
export declare const NODE_ENV: 'SIGHTLINE_NODE';
export declare function isSupported(version: string): boolean;
export declare function nodeCandidates(root: string, env: Record<string, string | undefined>, platform: string): string[];
export type LaunchPlan = { kind: 'run' } | { kind: 'reexec'; node: string } | { kind: 'fail'; message: string };
export declare function planLaunch(o: { version: string; execPath: string; root: string; env: Record<string, string | undefined>; platform: string; exists: (path: string) => boolean }): LaunchPlan;
export declare function defaultExists(path: string): boolean;
export declare function reexec(node: string, script: string, argv: string[], onSpawnError: (e: Error) => void): void;
export declare function refuseMcpClient(message: string, waitMs: number): void;
