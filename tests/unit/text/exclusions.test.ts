/**
 * ocr.excludeApps by what a frame's app is on each platform: an app name, an X11 window class,
 * an Android package, a macOS bundle id; the defaults cover the common password managers.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_EXCLUDED_APPS, coreSettingsShape } from '../../../src/shared/settings.ts';
import { applyExclusions, excludedApp, skipReason } from '../../../src/main/core/text/exclusions.ts';
import { frame, openCatalog } from '../catalog/helpers.ts';

const defaults = coreSettingsShape.ocr.parse({}).excludeApps;

describe('ocr.excludeApps', () => {
  it('the default list is the password managers of every platform', () => {
    expect(defaults).toEqual([...DEFAULT_EXCLUDED_APPS]);
    for (const app of [
      'com.onepassword.android', // Android
      'com.agilebits.onepassword7', // macOS bundle id (1Password 7)
      'com.1password.1password', // macOS bundle id (1Password 8)
      '1Password', // macOS / Windows app name
      'com.x8bit.bitwarden',
      'Bitwarden',
      'KeePassXC', // X11 window class
      'org.keepassxc.KeePassXC',
      'com.kunzisoft.keepass.free', // KeePassDX
      'com.lastpass.lpandroid',
      'com.dashlane',
      'Proton Pass',
      'proton.android.pass',
      'com.apple.keychainaccess',
      'Keychain Access',
    ]) {
      expect(skipReason({ app }, defaults), app).toBe('excluded');
    }
    for (const app of ['Notes', 'com.example.notes', 'Housekeeper', 'org.mozilla.firefox', 'passwordless-demo']) expect(skipReason({ app, title: 'x' }, defaults), app).toBeUndefined();
  });

  it('an entry ending in * names every id that begins so; words match whole words', () => {
    expect(excludedApp({ app: 'com.agilebits.onepassword-osx-helper' }, ['com.agilebits.onepassword*'])).toBe('com.agilebits.onepassword*');
    expect(excludedApp({ app: 'com.agilebits.other' }, ['com.agilebits.onepassword*'])).toBeUndefined();
    expect(excludedApp({ app: 'com.x8bit.bitwarden.beta' }, ['com.x8bit.bitwarden'])).toBe('com.x8bit.bitwarden');
  });

  it('adding a package prefix deletes the text already indexed for its apps', () => {
    const catalog = openCatalog();
    const put = async (app: string): Promise<string> => {
      const ref = (await catalog.frames.insert(frame({ label: { app } }))).ref;
      catalog.text.put({ ref, text: 'secret vault', boxes: [], label: { app }, status: 'read' });
      return ref;
    };
    return (async () => {
      const vault = await put('com.agilebits.onepassword7');
      const notes = await put('com.example.notes');
      applyExclusions(catalog.text, []);
      expect(applyExclusions(catalog.text, ['com.agilebits.onepassword*'])).toBe(1);
      expect(catalog.text.has(vault)).toBe(false);
      expect(catalog.text.has(notes)).toBe(true);
    })();
  });
});
