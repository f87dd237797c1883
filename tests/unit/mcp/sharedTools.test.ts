import { describe, expect, it } from 'vitest';
import { describeTools } from '../../../src/main/core/mcp/server.ts';
import { scrollIntoViewTool } from '../../../src/main/core/mcp/sharedTools.ts';
import { coreTools } from '../../../src/main/core/mcp/tools/index.ts';
import type { AnyTool } from '../../../src/main/core/mcp/tool.ts';
import { androidModule } from '../../../src/main/core/sources/android/module.ts';
import { browserModule } from '../../../src/main/core/sources/browser/module.ts';
import { desktopModule } from '../../../src/main/core/sources/desktop/module.ts';

const sourcesOf = (modules: readonly { name: string; kind: 'live' | 'archive'; tools?: readonly AnyTool[] }[]) => ({
  names: (kind?: 'live' | 'archive') => modules.filter((m) => !kind || m.kind === kind).map((m) => m.name),
  modules: () => modules,
});

describe('tools several modules share', () => {
  it('are offered once, by every module that lists them', () => {
    const offered = describeTools({ sources: sourcesOf([browserModule, androidModule, desktopModule]) });
    const scroll = offered.filter((o) => o.tool.name === 'scroll_into_view');
    expect(scroll).toHaveLength(1);
    expect(scroll[0]!.sources).toEqual(['browser', 'android']);
    expect(offered.find((o) => o.tool.name === 'focus_window')!.sources).toEqual(['desktop']);
    expect(offered.find((o) => o.tool.name === 'click')!.sources).toBeUndefined();
  });

  it('are not offered without one of their modules', () => {
    expect(describeTools({ sources: sourcesOf([desktopModule]) }).map((o) => o.tool.name)).not.toContain('scroll_into_view');
  });

  it('refuse a module that lists a core tool, and two tools of one name', () => {
    expect(() => describeTools({ sources: sourcesOf([{ name: 'x', kind: 'live', tools: [coreTools[0]!] }]) })).toThrow(/lists the core's tool/);
    const twin = { ...scrollIntoViewTool } as AnyTool;
    expect(() => describeTools({ sources: sourcesOf([browserModule, { name: 'x', kind: 'live', tools: [twin] }]) })).toThrow(/Two tools are named "scroll_into_view"/);
  });
});
