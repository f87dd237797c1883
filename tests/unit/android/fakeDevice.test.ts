/** The fake device's answers that the integration tests do not reach: they must stay realistic. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeAdbDevice } from '../../support/fakeAdbDevice.ts';

let d: FakeAdbDevice;
beforeAll(async () => {
  d = await FakeAdbDevice.start({ prerender: false });
});
afterAll(() => d.close());
const sh = async (line: string): Promise<{ out: string; err: string; rc: number }> => {
  const r = await d.run(line);
  return { out: r.out.toString(), err: r.err, rc: r.rc };
};

describe('fake device', () => {
  it('records swipes, drag and drop and raw motion events', async () => {
    d.inputs.length = 0;
    await sh('input swipe 10 20 30 40 500 && input touchscreen draganddrop 100 200 300 400 1500 && input draganddrop 1 2 3 4');
    await sh('input motionevent DOWN 5 6; input motionevent MOVE 7 8; input motionevent UP 7 8');
    expect(d.inputs).toEqual([
      { kind: 'swipe', x1: 10, y1: 20, x2: 30, y2: 40, ms: 500 },
      { kind: 'drag', x1: 100, y1: 200, x2: 300, y2: 400, ms: 1500 },
      { kind: 'drag', x1: 1, y1: 2, x2: 3, y2: 4, ms: 300 },
      { kind: 'motion', action: 'DOWN', x: 5, y: 6 },
      { kind: 'motion', action: 'MOVE', x: 7, y: 8 },
      { kind: 'motion', action: 'UP', x: 7, y: 8 },
    ]);
    expect(await sh('input draganddrop 1 2')).toMatchObject({ rc: 1, err: expect.stringMatching(/^Error: input draganddrop: needs x1 y1 x2 y2/) });
  });

  it('lists packages with -f, -U, -i, a filter, and nothing for -s -3 together', async () => {
    expect((await sh('pm list packages -f -3 notes')).out).toBe('package:/data/app/~~bm90ZXM==/com.example.notes-bm90ZQ==/base.apk=com.example.notes\n');
    expect((await sh('cmd package list packages -U -i chrome')).out).toBe('package:com.android.chrome  installer=null uid:1000\n');
    expect((await sh('pm list packages -s -3')).out).toBe('');
    expect(await sh('pm list packages -z')).toMatchObject({ rc: 255, err: 'Error: Unknown option: -z\n' });
    expect((await sh('pm path com.example.fake')).out).toMatch(/^package:\/data\/app\/.*\/base\.apk\n$/);
    expect((await sh('pm path com.example.nope')).rc).toBe(1);
  });

  it('prints resolve-activity and query-activities as AOSP does', async () => {
    expect((await sh('cmd package resolve-activity --brief -c android.intent.category.LAUNCHER com.example.fake')).out).toBe('priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=true\ncom.example.fake/.MainActivity\n');
    expect((await sh('cmd package resolve-activity --components -c android.intent.category.LAUNCHER com.android.chrome')).out).toBe('com.android.chrome/com.google.android.apps.chrome.Main\n');
    expect((await sh('cmd package resolve-activity --brief -a android.intent.action.VIEW -d fake://x')).out).toMatch(/match=0x208000 .*\ncom.example.fake\/.MainActivity\n$/);
    expect((await sh('cmd package query-activities --brief -c android.intent.category.LAUNCHER com.example.notes')).out).toBe('1 activities found:\n  Activity #0:\n    priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false\n    com.example.notes/.NotesActivity\n');
  });

  it('am start: -S restarts cold, errors go to stderr without -W, a private activity is refused', async () => {
    await sh('am start -W -n com.example.notes/.NotesActivity');
    expect((await sh('am start -W -S -n com.example.notes/.NotesActivity')).out).toMatch(/LaunchState: COLD/);
    expect(await sh('am start -n com.example.notes/.Nope')).toMatchObject({ out: 'Starting: Intent { cmp=com.example.notes/.Nope }\n', err: 'Error type 3\nError: Activity class {com.example.notes/com.example.notes.Nope} does not exist.\n', rc: 1 });
    const secret = await sh('am start -n com.example.notes/.SecretActivity');
    expect(secret.err).toMatch(/^Exception occurred while executing 'start':\njava.lang.SecurityException: Permission Denial: starting Intent \{ flg=0x10000000 cmp=com.example.notes\/.SecretActivity \} from null .* not exported from uid \d+\n\tat /);
    expect(d.apps.started.at(-1)?.result).toBe('not-exported');
    expect((await sh('am start -a android.intent.action.VIEW -d tel:+33123456789')).err).toBe('Error: Activity not started, unable to resolve Intent { act=android.intent.action.VIEW dat=tel:xxxxxxxxxxxx flg=0x10000000 }\n');
    expect(await sh('am force-stop com.example.not.installed')).toEqual({ out: '', err: '', rc: 0 });
    // monkey, as mobile-mcp launches apps.
    expect((await sh('monkey -p com.android.settings -c android.intent.category.LAUNCHER 1')).out).toMatch(/Events injected: 1\n/);
    expect([d.foreground, d.foregroundActivity]).toEqual(['com.android.settings', '.Settings']);
    expect((await sh('monkey -p com.example.widget -c android.intent.category.LAUNCHER 1')).err).toBe('** No activities found to run, monkey aborted.\n');
  });

  it('settings: unknown keys are null, put stores them, an invalid user_rotation turns nothing', async () => {
    expect((await sh('settings get global nope')).out).toBe('null\n');
    await sh('settings put global nope 5');
    expect((await sh('settings --user 0 get global nope')).out).toBe('5\n');
    d.rotate(0);
    await sh('settings put system user_rotation 7');
    expect([d.rotation, (await sh('settings get system user_rotation')).out]).toEqual([0, '7\n']);
    await sh('settings put system user_rotation 2');
    expect([d.rotation, d.size, (await sh('settings get system user_rotation')).out]).toEqual([2, { width: 1080, height: 2400 }, '2\n']);
    d.rotate(0);
    expect((await sh('settings get system user_rotation')).out).toBe('0\n');
  });

  it('its screen reacts: a tap focuses the field and shows the keyboard, text fills it, Ctrl+A DEL clears it, swipes scroll the list', async () => {
    d.ui.screen = 'form';
    expect((await sh("dumpsys input_method | grep -E 'mInputShown|mServedView'")).out).toBe('  mShowRequested=false mShowExplicitlyRequested=false mShowForced=false mInputShown=false\n  mServedView=null\n');
    await sh('input text lost'); // nothing focused: typed into nothing
    await sh('input tap 540 552 && input text hi%sthere');
    expect(d.ui.values.get('com.example.fake:id/query')).toBe('hi there');
    expect(d.uiXml()).toMatch(/text="hi there" resource-id="com.example.fake:id\/query" class="android.widget.EditText" .* focusable="true" focused="true"/);
    expect((await sh("dumpsys input_method | grep -E 'mInputShown|mServedView'")).out).toMatch(/mInputShown=true\n {2}mServedView=android.widget.EditText\{.* app:id\/query aid=\d+\}\n$/);
    await sh('input keycombination 113 29 && input keyevent 67 && input text x && input keyevent 66 && input keyevent 4');
    expect([d.ui.values.get('com.example.fake:id/query'), d.ui.submitted, d.ui.imeShown]).toEqual(['x', ['x'], false]);
    await sh('input tap 540 1200');
    expect(d.ui.pressed.at(-1)).toBe('OK');

    d.ui.screen = 'list';
    await sh('input swipe 540 1500 540 900 300');
    expect(d.ui.scroll).toBe(600);
    await sh('input motionevent DOWN 540 900; input motionevent MOVE 540 1000; input motionevent UP 540 1100');
    expect(d.ui.scroll).toBe(400);
    await sh('input swipe 540 100 540 1500 300'); // starts outside the list: nothing scrolls
    expect(d.ui.scroll).toBe(400);
    expect(d.uiXml()).toContain('text="Item 3" resource-id="com.example.fake:id/label"');
    expect(d.uiXml()).not.toContain('text="Item 2"');
    expect((await sh('cat /proc/sys/kernel/random/boot_id')).out).toBe(`${d.bootId}\n`);
  });
});
