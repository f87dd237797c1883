/**
 * The economy benchmark's agents decide from what the answers say: these readers of answer text
 * (Sightline's UI tree and AMBIGUOUS_TEXT list, the peers' snapshots) must find the element meant.
 */
import { describe, expect, it } from 'vitest';
import { parseSnapshot as devtoolsSnapshot } from '../../../bench/economyDevtools.ts';
import { parseSnapshot as playwrightSnapshot } from '../../../bench/economyPlaywright.ts';
import { parseTree, pickFromAmbiguity } from '../../../bench/economySightline.ts';

describe('economy bench: reading answers', () => {
  it('reads get_ui_tree lines: id, role, name (a value or note after the name left out)', () => {
    const text = [
      'UI tree of browser:5EC5, boxes and centres in image px of frame f_1:',
      'syzf5.1 heading "Sign in to Acme" box 19,36 963×35 centre 500,53',
      'syzf5.7 textbox "Username" ="ada" box 119,118 188×16 centre 212.5,126',
      '0w0qd.2 heading "Outlook: revenue grew 12 % to 4.8 million euros" box 19,2168 951×28 centre 494.1,2181.9 (off screen: click by node scrolls it into view)',
    ].join('\n');
    expect(parseTree(text)).toEqual([
      { id: 'syzf5.1', role: 'heading', name: 'Sign in to Acme' },
      { id: 'syzf5.7', role: 'textbox', name: 'Username' },
      { id: '0w0qd.2', role: 'heading', name: 'Outlook: revenue grew 12 % to 4.8 million euros' },
    ]);
  });

  it('picks the match of the wanted role from an AMBIGUOUS_TEXT list that names roles and nodes', () => {
    const message = 'AMBIGUOUS_TEXT: "Sign in" matches 2 places: 1. heading "Sign in to Acme" node syzf5.1 at (500, 53); 2. button "Sign in" node syzf5.6 at (212, 196). Hint: Act on one by its node.';
    expect(pickFromAmbiguity(message, 'Sign in', ['button', 'link'])).toBe('syzf5.6');
    expect(pickFromAmbiguity(message, 'Sign in', ['textbox'])).toBeUndefined();
  });

  it('prefers the exact name when several matches have the wanted role', () => {
    const message = '"Lemon marmalade" matches 2 places: 1. link "Lemon marmalade tart" node ab1.4 at (60, 120); 2. link "Lemon marmalade" node ab1.6 at (60, 160).';
    expect(pickFromAmbiguity(message, 'Lemon marmalade', ['link'])).toBe('ab1.6');
  });

  it('finds nothing to act on in a list without roles or nodes (the agent then reads the tree)', () => {
    const message = 'AMBIGUOUS_TEXT: "Password" matches 2 places on browser:5EC5: 1: "Password" at (84, 192); 2: "password" at (272, 222). Hint: Add "index".';
    expect(pickFromAmbiguity(message, 'Password', ['textbox'])).toBeUndefined();
  });

  it("reads Playwright MCP's YAML snapshot, quoted lines and unnamed items' text included", () => {
    const text = [
      '```yaml',
      '- generic [ref=e1]:',
      '  - textbox "Username" [ref=e6]',
      '  - button "Sign in" [ref=e10]',
      `  - 'heading "Outlook: revenue grew 12 %" [level=2] [ref=f2e7]'`,
      '  - listitem [ref=e5]: Run the tests',
      '```',
    ].join('\n');
    expect(playwrightSnapshot(text)).toEqual([
      { role: 'generic', name: '', ref: 'e1', text: '' },
      { role: 'textbox', name: 'Username', ref: 'e6', text: '' },
      { role: 'button', name: 'Sign in', ref: 'e10', text: '' },
      { role: 'heading', name: 'Outlook: revenue grew 12 %', ref: 'f2e7', text: '' },
      { role: 'listitem', name: '', ref: 'e5', text: 'Run the tests' },
    ]);
  });

  it("reads chrome-devtools-mcp's snapshot, static text without a role", () => {
    const text = ['## Latest page snapshot', 'uid=1_0 RootWebArea "Acme: sign in" url="http://x/"', '  uid=1_2 "Use the account your team lead sent you."', '    uid=1_5 textbox "Username"', '  uid=1_11 status atomic live="polite"'].join('\n');
    expect(devtoolsSnapshot(text)).toEqual([
      { uid: '1_0', role: 'RootWebArea', name: 'Acme: sign in' },
      { uid: '1_2', role: 'StaticText', name: 'Use the account your team lead sent you.' },
      { uid: '1_5', role: 'textbox', name: 'Username' },
      { uid: '1_11', role: 'status', name: '' },
    ]);
  });
});
