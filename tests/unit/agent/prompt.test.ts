import { describe, expect, it } from 'vitest';
import type { Capabilities } from '../../../src/cli/agent/action.ts';
import { promptTemplate, stepText, systemPrompt, visibleNodes } from '../../../src/cli/agent/prompt.ts';

const all: Capabilities = { type: true, key: true, scroll: true, clickNode: true, clickText: false, typeNode: false, uiTree: true };

describe('the prompt', () => {
  it('is the repo file, explicit about image pixels, and lists only the actions the tools allow', () => {
    const template = promptTemplate();
    expect(template).toMatch(/pixels of the screenshot/);
    const full = systemPrompt(template, all);
    expect(full).not.toContain('{{actions}}');
    expect(full).toContain('"node"');
    expect(full).not.toContain('"text": "Sign in"');
    const pixelsOnly = systemPrompt(template, { ...all, type: false, key: false, scroll: false, clickNode: false });
    expect(pixelsOnly).not.toMatch(/"action": "(type|key|scroll)"|"node"/);
    expect(pixelsOnly).toMatch(/"action": "click", "x"/);
  });

  it('states the image size every step, with history and the last outcome', () => {
    const first = stepText({ goal: 'G', step: 1, maxSteps: 25, targetTitle: 'T', image: { width: 1000, height: 625 }, history: [] });
    expect(first).toContain('The screenshot is 1000×625 pixels (width × height). Give x, y in these pixels: 0 ≤ x < 1000, 0 ≤ y < 625.');
    expect(first).toContain('Last action: none yet');
    const later = stepText({
      goal: 'G', step: 3, maxSteps: 25, targetTitle: 'T', image: { width: 600, height: 400 },
      history: [{ step: 1, action: 'click (1, 2)', why: 'a', outcome: 'ok' }, { step: 2, action: 'key Enter', why: 'b', outcome: 'refused: X' }],
      nodes: [{ id: 'n1', role: 'button', name: 'Go', bounds: { x: 10.4, y: 20, width: 30, height: 12 } }],
    });
    expect(later).toContain('600×400 pixels');
    expect(later).toContain('Last action: key Enter → refused: X');
    expect(later).toContain('1. click (1, 2) (a) → ok\n2. key Enter (b) → refused: X');
    expect(later).toContain('n1 button "Go" @10,20 30×12');
  });

  it('sends only elements in view, named or clickable', () => {
    const b = { x: 1, y: 1, width: 10, height: 10 };
    const nodes = visibleNodes(
      [
        { id: 'a', role: 'button', name: 'A', bounds: b },
        { id: 'b', role: 'button', name: 'B', bounds: b, inViewport: false },
        { id: 'c', role: 'div', name: ' ', bounds: b },
        { id: 'd', role: 'div', name: '', bounds: b, clickable: true },
        { id: 'e', role: 'text', name: 'E', bounds: { ...b, y: 700 } },
      ],
      { width: 1000, height: 625 },
    );
    expect(nodes.map((n) => n.id)).toEqual(['a', 'd']);
  });
});
