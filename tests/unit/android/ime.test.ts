import { describe, expect, it } from 'vitest';
import { editorFocused, fieldValue, focusedEditable, isEditableClass, parseImeState, valueMatches } from '../../../src/main/core/sources/android/ime.ts';
import { dragMethod, motionCommand, coord, tapCommand } from '../../../src/main/core/sources/android/gestures.ts';
import type { SourceUiNode } from '../../../src/main/core/sources/source.ts';
import { runShell } from '../../support/fakeAdb/shell.ts';

describe('dumpsys input_method', () => {
  it('reads whether the keyboard is shown and which view it serves (Material, AppCompat, Compose, none)', () => {
    const material = `  mShowRequested=true mShowExplicitlyRequested=false mShowForced=false mInputShown=true\n    mServedView=com.google.android.material.textfield.TextInputEditText{f0b2a8 VFED..CL. .F...... 0,0-936,147 #7f0a01b3 app:id/email aid=1073741825}\n`;
    expect(parseImeState(material)).toEqual({ shown: true, served: { className: 'com.google.android.material.textfield.TextInputEditText', idName: 'email' } });
    expect(editorFocused(parseImeState(material))).toBe(true);

    // A hardware keyboard: no soft keyboard, but the served view is a text field.
    const hw = `mInputShown=false\n  mServedView=androidx.appcompat.widget.AppCompatEditText{2a5f6f0 VFED..CL. .F...... 42,228-1038,375 #7f0a0120 app:id/query}\n`;
    expect(editorFocused(parseImeState(hw))).toBe(true);

    // Compose serves its whole view: the dump has to tell.
    const compose = `mInputShown=false\n mServedView=androidx.compose.ui.platform.AndroidComposeView{5a7b8c VFED..... .F...... 0,0-1080,2274 aid=1073741824}\n`;
    expect(parseImeState(compose)).toEqual({ shown: false, served: { className: 'androidx.compose.ui.platform.AndroidComposeView' } });
    expect(editorFocused(parseImeState(compose))).toBe(false);

    expect(parseImeState('mInputShown=false\n  mServedView=null\n')).toEqual({ shown: false, served: null });
    expect(parseImeState('')).toEqual({});
    expect(editorFocused({})).toBe(false);
  });

  it('knows editable classes and reads a field as the dump shows it', () => {
    expect(['android.widget.EditText', 'android.widget.AutoCompleteTextView', 'android.widget.MultiAutoCompleteTextView'].every(isEditableClass)).toBe(true);
    expect(['android.widget.TextView', 'android.widget.Button', 'android.view.View'].some(isEditableClass)).toBe(false);
    const n = (a: Record<string, string>, role = 'android.widget.EditText'): SourceUiNode => ({ id: 'x', role, name: '', bounds: { x: 0, y: 0, width: 1, height: 1 }, attributes: a });
    expect(fieldValue(n({ text: 'Search', hint: 'Search' }))).toBe('');
    expect(fieldValue(n({ text: 'abc' }))).toBe('abc');
    expect(fieldValue(n({ text: '•••', password: 'true' }))).toBeUndefined();
    expect(focusedEditable([n({ focused: 'true' }, 'android.widget.Button'), n({ focused: 'true', text: 'v' })])?.attributes?.text).toBe('v');
    expect(focusedEditable([n({ text: 'v' })])).toBeUndefined();
  });

  it('a value matches what was typed: all of it after clearing, anywhere in it otherwise; Enter and Tab are keys', () => {
    expect(valueMatches('hello world', 'world', false)).toBe(true);
    expect(valueMatches('hello world', 'world', true)).toBe(false);
    expect(valueMatches('line 1line 2', 'line 1\nline 2', true)).toBe(true);
    expect(valueMatches('line 1\nline 2', 'line 1\r\nline 2', true)).toBe(true);
    expect(valueMatches('helo', 'hello', false)).toBe(false);
  });
});

describe('gestures', () => {
  it('keeps two decimals: a centre at x.5 is pressed there', () => {
    expect([coord(540), coord(228.5), coord(255.7726), coord(-0.004)]).toEqual(['540', '228.5', '255.77', '0']);
    expect(tapCommand({ x: 228.5, y: 315.5 }, 2)).toBe('input tap 228.5 315.5 && input tap 228.5 315.5');
  });

  it('picks the drag by SDK: motion events from Android 11, draganddrop for a hold on 7–10, a swipe otherwise', () => {
    expect(dragMethod(34, 800)).toBe('motionevent');
    expect(dragMethod(30, 0)).toBe('motionevent');
    expect(dragMethod(34, 800, false)).toBe('draganddrop');
    expect(dragMethod(28, 800)).toBe('draganddrop');
    expect(dragMethod(28, undefined)).toBe('swipe');
    expect(dragMethod(23, 0)).toBe('swipe');
    expect(dragMethod(23, 500)).toEqual({ unsupported: expect.stringMatching(/Android 7/) });
  });

  it('a motion-event drag holds, moves in steps, rests, and lifts even when a step failed', async () => {
    const cmd = motionCommand({ x: 100, y: 200 }, { x: 100, y: 500 }, 400, 600);
    expect(cmd).toMatch(/^input motionevent DOWN 100 200 && sleep 0.6 && input motionevent MOVE 100 260 && /);
    expect(cmd).toMatch(/input motionevent MOVE 100 500( && sleep [\d.]+)? && sleep 0.15; input motionevent UP 100 500$/);
    // It parses as the device's sh does; a failing step still lifts the finger.
    const ran: string[] = [];
    const r = await runShell(cmd.replace('MOVE 100 320', 'MOVE 100 oops'), async (argv) => {
      ran.push(argv.join(' '));
      const bad = argv.includes('oops');
      return { out: Buffer.alloc(0), err: bad ? 'Error: not a number\n' : '', rc: bad ? 1 : 0 };
    }, new Map());
    expect(ran.at(-1)).toBe('input motionevent UP 100 500');
    expect(r.err).toMatch(/not a number/);
  });
});
