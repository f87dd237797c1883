import { describe, expect, it } from 'vitest';
import { clientConfig } from '../../../src/renderer/lib/connect.ts';
import { codeWords, stopWords } from '../../../src/renderer/lib/words.ts';
import { ERROR_CODES } from '../../../src/shared/errors.ts';

const info = {
  mcpUrl: 'http://127.0.0.1:47816/mcp',
  tokenFile: "/home/ann/My Data/token",
  stdio: { command: '/usr/bin/node', args: ['/opt/sightline/bin/sightline.js', 'mcp', '--data-dir', "/home/ann/My Data"], env: { DISPLAY: ':0' } },
};

describe('connecting an agent', () => {
  it("gives Claude Desktop and Cursor the relay as an mcpServers entry, the display included", () => {
    for (const name of ['claude-desktop', 'cursor'] as const) {
      const c = clientConfig(name, info, 'linux');
      expect(JSON.parse(c.text)).toEqual({ mcpServers: { sightline: { command: '/usr/bin/node', args: info.stdio.args, env: { DISPLAY: ':0' } } } });
    }
    expect(clientConfig('claude-desktop', info, 'darwin').where).toMatch(/Library\/Application Support\/Claude/);
  });

  it('gives Claude Code one command, each word quoted as a shell needs', () => {
    expect(clientConfig('claude-code', info, 'linux').text).toBe("claude mcp add --env DISPLAY=:0 sightline -- /usr/bin/node /opt/sightline/bin/sightline.js mcp --data-dir '/home/ann/My Data'");
    expect(clientConfig('http', info, 'linux').text).toBe(`claude mcp add --transport http sightline http://127.0.0.1:47816/mcp --header "Authorization: Bearer $(cat '/home/ann/My Data/token')"`);
  });

  it('says every error code and stop reason in words', () => {
    for (const code of ERROR_CODES) expect(codeWords(code)).not.toMatch(/_|^[A-Z]+$/);
    expect(codeWords('NODE_NOT_FOUND')).toBe('The control is no longer on screen');
    expect(stopWords('outOfFrame')).toBe('Stopped: the model pointed outside the screenshot');
    expect(stopWords('somethingNew')).toBe('Stopped: something new');
  });
});
