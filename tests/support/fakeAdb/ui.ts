/**
 * The fake device's screen as views that react to input, so actions can be checked by their
 * effect: a tap on a field focuses it and shows the keyboard, text goes into the focused field
 * (Ctrl+A selects all, DEL deletes, BACK hides the keyboard), a tap on a button or row is
 * recorded, a swipe or a motion-event gesture inside the list scrolls it (by exactly the finger's
 * travel, no fling). It renders what `uiautomator dump` and `dumpsys input_method` print.
 *
 * Screens: `form` (a title, a query field, OK, a disabled Settings icon: the XML earlier tests
 * know) and `list` (a title, a scrollable list of anonymous clickable rows labelled "Item N" whose
 * label TextViews share one id, 200 px each, and a Done button), and `signin` (an Email field and a
 * password field known by their hints, and a Sign in button) whose layout `signin` options change
 * as an app's next version might: a banner above the form, the controls moved, a button relabelled,
 * a field gone.
 */
import type { RecordedInput } from './input.ts';

export interface UiHost {
  readonly size: { width: number; height: number };
  rotation: 0 | 1 | 2 | 3;
  foreground: string;
}

interface View {
  cls: string;
  box: [number, number, number, number];
  id?: string;
  text?: string;
  desc?: string;
  clickable?: boolean;
  enabled?: boolean;
  focused?: boolean;
  scrollable?: boolean;
  password?: boolean;
  hint?: string;
  children?: View[];
}

/** How the sign-in screen differs from its first layout. */
export interface SignInLayout {
  /** A banner of this text across the top, pushing the form down. */
  banner?: string;
  /** The button above the fields, at the left, narrower. */
  moved?: boolean;
  /** The button's label (default "Sign in"). */
  button?: string;
  /** No Email field. */
  noEmail?: boolean;
}

export const ROW_HEIGHT = 200;
const ID = 'com.example.fake:id/';

export class FakeUi {
  screen: 'form' | 'list' | 'signin' = 'form';
  signin: SignInLayout = {};
  /** Field values by resource-id. */
  readonly values = new Map<string, string>();
  /** The focused field's resource-id. */
  focused: string | undefined;
  /** The soft keyboard is up. */
  imeShown = false;
  /** A hardware keyboard: focusing a field does not bring up the soft keyboard. */
  hardwareKeyboard = false;
  /** Whether `dumpsys input_method` names the served view (some builds do not). */
  servedView = true;
  /** The list's scroll offset, px. */
  scroll = 0;
  rows = 30;
  /** What taps pressed (the label or id of the clickable hit), and Enter presses (the field's value). */
  readonly pressed: string[] = [];
  readonly submitted: string[] = [];
  #selectAll = false;
  #down: { x: number; y: number } | undefined;
  readonly #host: UiHost;

  constructor(host: UiHost) {
    this.#host = host;
  }

  /** The screen's views in device px, the list scrolled and clipped as uiautomator reports it. */
  layout(): View {
    const { width: w, height: h } = this.#host.size;
    const b = (x1: number, y1: number, x2: number, y2: number): [number, number, number, number] => [Math.round(x1 * w), Math.round(y1 * h), Math.round(x2 * w), Math.round(y2 * h)];
    if (this.screen === 'form') {
      const field = `${ID}query`;
      return {
        cls: 'android.widget.FrameLayout',
        box: [0, 0, w, h],
        children: [
          { cls: 'android.widget.TextView', box: b(0.05, 0.05, 0.95, 0.1), text: 'Wi-Fi &amp; “network” é' },
          { cls: 'android.widget.EditText', box: b(0.05, 0.2, 0.95, 0.26), id: field, text: esc(this.values.get(field) ?? ''), clickable: true, focused: this.focused === field },
          { cls: 'android.widget.Button', box: b(0.3, 0.45, 0.7, 0.55), text: 'OK', id: `${ID}ok`, clickable: true },
          { cls: 'android.widget.ImageButton', box: b(0.8, 0.85, 0.95, 0.92), desc: 'Settings', clickable: true, enabled: false },
        ],
      };
    }
    if (this.screen === 'signin') return this.#signIn(w, b);
    const list = this.listBox();
    const rows: View[] = [];
    for (let i = 0; i < this.rows; i++) {
      const top = list[1] + i * ROW_HEIGHT - this.scroll;
      const y1 = Math.max(top, list[1]);
      const y2 = Math.min(top + ROW_HEIGHT, list[3]);
      if (y2 <= y1) continue; // uiautomator leaves out what is not visible
      const label: View = { cls: 'android.widget.TextView', box: [40, Math.max(top + 50, y1), w - 40, Math.min(top + 150, y2)], id: `${ID}label`, text: `Item ${i + 1}` };
      rows.push({ cls: 'android.widget.LinearLayout', box: [0, y1, w, y2], clickable: true, children: label.box[3] > label.box[1] ? [label] : [] });
    }
    return {
      cls: 'android.widget.FrameLayout',
      box: [0, 0, w, h],
      children: [
        { cls: 'android.widget.TextView', box: b(0.05, 0.02, 0.95, 0.08), text: 'Items' },
        { cls: 'androidx.recyclerview.widget.RecyclerView', box: list, id: `${ID}list`, scrollable: true, children: rows },
        { cls: 'android.widget.Button', box: b(0.3, 0.92, 0.7, 0.98), text: 'Done', id: `${ID}done`, clickable: true },
      ],
    };
  }

  #signIn(w: number, b: (x1: number, y1: number, x2: number, y2: number) => [number, number, number, number]): View {
    const o = this.signin;
    const down = o.banner ? 0.12 : 0;
    const field = (name: string, y: number, password = false): View => {
      const id = `${ID}${name.toLowerCase()}`;
      const value = this.values.get(id) ?? '';
      // A password field shows dots, as Android's PasswordTransformationMethod does.
      return { cls: 'android.widget.EditText', box: b(0.08, y + down, 0.92, y + down + 0.06), id, text: esc(password ? '•'.repeat(value.length) : value), hint: name, password, clickable: true, focused: this.focused === id };
    };
    const button: View = { cls: 'android.widget.Button', box: o.moved ? b(0.08, 0.2 + down, 0.4, 0.26 + down) : b(0.3, 0.5 + down, 0.7, 0.58 + down), text: o.button ?? 'Sign in', id: `${ID}signin`, clickable: true };
    return {
      cls: 'android.widget.FrameLayout',
      box: [0, 0, w, this.#host.size.height],
      children: [
        ...(o.banner ? [{ cls: 'android.widget.TextView', box: b(0, 0, 1, 0.1), text: esc(o.banner), id: `${ID}banner` }] : []),
        { cls: 'android.widget.TextView', box: b(0.05, 0.05 + down, 0.95, 0.1 + down), text: 'Welcome back' },
        ...(o.noEmail ? [] : [field('Email', o.moved ? 0.32 : 0.2)]),
        field('Password', o.moved ? 0.42 : 0.3, true),
        button,
      ],
    };
  }

  listBox(): [number, number, number, number] {
    const { width: w, height: h } = this.#host.size;
    return [0, Math.round(0.1 * h), w, Math.round(0.9 * h)];
  }

  /** `uiautomator dump` XML. */
  xml(): string {
    const pkg = this.#host.foreground;
    const node = (v: View, i: number): string => {
      const inner = (v.children ?? []).map(node).join('');
      const [x1, y1, x2, y2] = v.box;
      const attrs = `index="${i}" text="${v.text ?? ''}" resource-id="${v.id ?? ''}" class="${v.cls}" package="${pkg}" content-desc="${v.desc ?? ''}" checkable="false" checked="false" clickable="${v.clickable ?? false}" enabled="${v.enabled ?? true}" focusable="${v.cls.includes('EditText')}" focused="${v.focused ?? false}" scrollable="${v.scrollable ?? false}" long-clickable="false" password="${v.password ?? false}" selected="false"${v.hint ? ` hint="${esc(v.hint)}"` : ''} bounds="[${x1},${y1}][${x2},${y2}]"`;
      return `<node ${attrs}${inner ? `>${inner}</node>` : ' />'}`;
    };
    return `<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation="${this.#host.rotation}">${node(this.layout(), 0)}</hierarchy>`;
  }

  /** The lines of `dumpsys input_method` Sightline reads (and some it does not). */
  imeDump(): string {
    const entry = this.focused?.split('/')[1];
    const served = this.focused ? `android.widget.EditText{a1b2c3 VFED..CL. .F...... 54,480-1026,624 #7f0a0120 app:id/${entry} aid=1073741824}` : 'null';
    return [
      'INPUT METHOD MANAGER (dumpsys input_method)',
      `  mCurFocusedWindow=Window{f3e6c4 u0 ${this.#host.foreground}/.MainActivity}`,
      `  mShowRequested=${this.imeShown} mShowExplicitlyRequested=false mShowForced=false mInputShown=${this.imeShown}`,
      ' Client:',
      '  mActive=true mRestartOnNextWindowFocus=false mBindSequence=3',
      ...(this.servedView ? [`  mServedView=${served}`, `  mNextServedView=${served}`] : []),
    ].join('\n') + '\n';
  }

  /** What an input event does to the screen. */
  apply(i: RecordedInput): void {
    switch (i.kind) {
      case 'tap':
        return this.#tap(i.x, i.y);
      case 'swipe':
      case 'drag':
        if (i.x1 === i.x2 && i.y1 === i.y2) return;
        return this.#drag(i.x1, i.y1, i.x2, i.y2);
      case 'motion':
        if (i.action === 'DOWN') this.#down = { x: i.x, y: i.y };
        else if (i.action === 'UP' && this.#down) {
          this.#drag(this.#down.x, this.#down.y, i.x, i.y);
          this.#down = undefined;
        } else if (i.action === 'CANCEL') this.#down = undefined;
        return;
      case 'text':
        return this.#type(i.text);
      case 'key':
        return this.#key(i.code);
      case 'combo':
        if (i.codes.join(' ') === '113 29') this.#selectAll = true;
        return;
    }
  }

  #tap(x: number, y: number): void {
    let hit: View | undefined;
    const walk = (v: View): void => {
      const [x1, y1, x2, y2] = v.box;
      if (x < x1 || x >= x2 || y < y1 || y >= y2) return;
      if (v.clickable && v.enabled !== false) hit = v;
      for (const c of v.children ?? []) walk(c);
    };
    walk(this.layout());
    if (!hit) return;
    if (hit.cls.includes('EditText') && hit.id) {
      this.focused = hit.id;
      this.#selectAll = false;
      if (!this.hardwareKeyboard) this.imeShown = true;
      return;
    }
    const label = hit.text || hit.desc || hit.children?.find((c) => c.text)?.text || hit.id || hit.cls;
    this.pressed.push(label);
  }

  #drag(x1: number, y1: number, x2: number, y2: number): void {
    const [lx1, ly1, lx2, ly2] = this.listBox();
    if (this.screen !== 'list' || x1 < lx1 || x1 >= lx2 || y1 < ly1 || y1 >= ly2) return;
    const max = Math.max(0, this.rows * ROW_HEIGHT - (ly2 - ly1));
    this.scroll = Math.min(max, Math.max(0, this.scroll + (y1 - y2)));
  }

  #type(text: string): void {
    if (!this.focused) return; // typed into nothing
    const now = this.#selectAll ? '' : (this.values.get(this.focused) ?? '');
    this.#selectAll = false;
    this.values.set(this.focused, now + text);
  }

  #key(code: number): void {
    const f = this.focused;
    if (code === 4 && this.imeShown) this.imeShown = false;
    if (!f) return;
    if (code === 67) {
      const v = this.values.get(f) ?? '';
      this.values.set(f, this.#selectAll ? '' : [...v].slice(0, -1).join(''));
      this.#selectAll = false;
    } else if (code === 66) this.submitted.push(this.values.get(f) ?? '');
  }
}

/** As uiautomator's XML serializer writes attribute values (newlines and tabs as character references). */
function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\n/g, '&#10;').replace(/\t/g, '&#9;');
}
