/**
 * macOS privacy permissions when no app tells us (the Electron app passes
 * systemPreferences' answers; `sightline mcp` running alone asks the same native module
 * nut-js' macOS build depends on). Anything unreadable is 'unknown', never a guess.
 */
import { createRequire } from 'node:module';
import type { PermissionState } from './environment.ts';

interface MacPermissions {
  getAuthStatus(kind: 'screen' | 'accessibility'): string;
}

export function permissionState(status: string | undefined): PermissionState {
  if (status === 'authorized') return 'granted';
  if (status === 'denied' || status === 'restricted') return 'denied';
  return 'unknown';
}

let cached: { at: number; value: { screenRecording: PermissionState; accessibility: PermissionState } } | undefined;

export function probeMacPermissions(): { screenRecording?: PermissionState; accessibility?: PermissionState } {
  // Asked at most every 2 s: every action reads the facts.
  if (cached && Date.now() - cached.at < 2000) return cached.value;
  try {
    const p = createRequire(import.meta.url)('@nut-tree-fork/node-mac-permissions') as MacPermissions;
    const value = { screenRecording: permissionState(p.getAuthStatus('screen')), accessibility: permissionState(p.getAuthStatus('accessibility')) };
    cached = { at: Date.now(), value };
    return value;
  } catch {
    return {};
  }
}
