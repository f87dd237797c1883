import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, securityHeaders } from '../../../src/main/app/csp.ts';
import { isTrustedSender, validateIpcArgs } from '../../../src/main/app/ipcGuard.ts';
import { decideNavigation, decideWindowOpen, isAppUrl, isExternalLink } from '../../../src/main/app/navigation.ts';
import { dashboardWindowOptions, secureWebPreferences } from '../../../src/main/app/windowDefaults.ts';
import { IPC_CHANNELS, isIpcChannel } from '../../../src/shared/ipc.ts';

const APP = 'http://127.0.0.1:43117';

describe('window defaults', () => {
  it('isolates and sandboxes every window, with no node and no webview', () => {
    const p = secureWebPreferences('/app/out/preload/index.cjs');
    expect(p).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, nodeIntegrationInSubFrames: false, nodeIntegrationInWorker: false, webviewTag: false, webSecurity: true, allowRunningInsecureContent: false });
    expect(p.preload).toBe('/app/out/preload/index.cjs');
  });

  it('builds the dashboard window from the same preferences', () => {
    const w = dashboardWindowOptions('/p.cjs', 'linux', true);
    expect(w.webPreferences).toEqual(secureWebPreferences('/p.cjs'));
    expect(w.show).toBe(false);
    expect(w.backgroundColor).toBe('#111114');
    expect(dashboardWindowOptions('/p.cjs', 'darwin', false).backgroundColor).toBe('#f6f6f7');
  });
});

describe('content security policy', () => {
  it('allows only our origin, no inline scripts, no plugins, no framing', () => {
    const csp = contentSecurityPolicy();
    const directives = Object.fromEntries(csp.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    expect(directives['default-src']).toBe("'self'");
    expect(directives['script-src']).toBe("'self'");
    expect(directives['script-src']).not.toMatch(/unsafe/);
    expect(directives['object-src']).toBe("'none'");
    expect(directives['frame-ancestors']).toBe("'none'");
    expect(directives['connect-src']).toBe("'self'");
    expect(securityHeaders()['content-security-policy']).toBe(csp);
  });
});

describe('navigation guard', () => {
  it('keeps the window on the local server origin', () => {
    expect(isAppUrl(`${APP}/#/timeline`, APP)).toBe(true);
    expect(isAppUrl(`${APP}/auth?token=abc`, APP)).toBe(true);
    expect(isAppUrl('http://127.0.0.1:9999/', APP)).toBe(false);
    expect(isAppUrl('http://localhost:43117/', APP)).toBe(false);
    expect(isAppUrl('file:///etc/passwd', APP)).toBe(false);
    expect(isAppUrl('not a url', APP)).toBe(false);
  });

  it('sends web links to the system browser and refuses other schemes', () => {
    expect(decideNavigation(`${APP}/x`, APP)).toEqual({ action: 'allow' });
    expect(decideNavigation('https://github.com/x', APP)).toEqual({ action: 'external', url: 'https://github.com/x' });
    expect(decideNavigation('file:///tmp/x.html', APP)).toEqual({ action: 'deny' });
    expect(decideNavigation('javascript:alert(1)', APP)).toEqual({ action: 'deny' });
    expect(isExternalLink('https://user:pw@example.com/')).toBe(false);
    expect(isExternalLink('smb://host/share')).toBe(false);
  });

  it('never opens a new app window', () => {
    expect(decideWindowOpen(`${APP}/`)).toEqual({ action: 'external', url: `${APP}/` });
    expect(decideWindowOpen('about:blank')).toEqual({ action: 'deny' });
    expect(decideWindowOpen('data:text/html,hi')).toEqual({ action: 'deny' });
  });
});

describe('IPC sender and argument validation', () => {
  it('trusts only the main frame on the app origin', () => {
    expect(isTrustedSender({ url: `${APP}/#/setup`, isMainFrame: true }, APP)).toBe(true);
    expect(isTrustedSender({ url: `${APP}/`, isMainFrame: false }, APP)).toBe(false);
    expect(isTrustedSender({ url: 'https://evil.example/', isMainFrame: true }, APP)).toBe(false);
    expect(isTrustedSender({ url: undefined, isMainFrame: true }, APP)).toBe(false);
    expect(isTrustedSender(null, APP)).toBe(false);
  });

  it('checks each channel’s arguments', () => {
    expect(validateIpcArgs('sightline:permissions', [])).toEqual([]);
    expect(() => validateIpcArgs('sightline:permissions', ['x'])).toThrow(/no arguments/);
    expect(validateIpcArgs('sightline:open-permission-pane', ['screen'])).toEqual(['screen']);
    expect(() => validateIpcArgs('sightline:open-permission-pane', ['file:///'])).toThrow(/screen, accessibility/);
    expect(() => validateIpcArgs('sightline:open-permission-pane', [])).toThrow();
    expect(() => validateIpcArgs('sightline:nope' as 'sightline:permissions', [])).toThrow(/Unknown IPC channel/);
  });

  it('lists every channel once', () => {
    expect(new Set(IPC_CHANNELS).size).toBe(IPC_CHANNELS.length);
    expect(isIpcChannel('sightline:app-info')).toBe(true);
    expect(isIpcChannel('ipcRenderer')).toBe(false);
  });
});
