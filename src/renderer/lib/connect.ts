/**
 * What a person pastes to connect an agent: each MCP client's config for this Sightline, from what
 * the server says of itself (`GET /api/connect`). Clients that start their server over stdio get
 * Sightline's relay (`sightline mcp`), which finds the running app by itself and needs no token;
 * a client that speaks Streamable HTTP gets the URL and the header, with the token read from its
 * file where the shell can read it. Pure, unit-tested under Node.
 */
import type { ConnectInfo } from '../../shared/api.ts';

export const CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'http'] as const;
export type ClientName = (typeof CLIENTS)[number];

export interface ClientConfig {
  label: string;
  /** Where it goes: a file, or a terminal. */
  where: string;
  /** What to paste. */
  text: string;
  /** The language of `text`, for its block. */
  kind: 'json' | 'shell';
}

/** A word for a POSIX shell: quoted when it holds anything but safe characters. */
function shellWord(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function mcpServersJson(info: ConnectInfo): string {
  const server = { command: info.stdio.command, args: info.stdio.args, ...(info.stdio.env ? { env: info.stdio.env } : {}) };
  return JSON.stringify({ mcpServers: { sightline: server } }, null, 2);
}

export function clientConfig(name: ClientName, info: ConnectInfo, platform: string): ClientConfig {
  switch (name) {
    case 'claude-desktop':
      return {
        label: 'Claude Desktop',
        where: platform === 'darwin' ? '~/Library/Application Support/Claude/claude_desktop_config.json' : platform === 'win32' ? '%APPDATA%\\Claude\\claude_desktop_config.json' : '~/.config/Claude/claude_desktop_config.json',
        text: mcpServersJson(info),
        kind: 'json',
      };
    case 'cursor':
      return { label: 'Cursor', where: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)', text: mcpServersJson(info), kind: 'json' };
    case 'claude-code': {
      const env = Object.entries(info.stdio.env ?? {}).map(([k, v]) => `--env ${shellWord(`${k}=${v}`)} `);
      return { label: 'Claude Code', where: 'a terminal', text: `claude mcp add ${env.join('')}sightline -- ${[info.stdio.command, ...info.stdio.args].map(shellWord).join(' ')}`, kind: 'shell' };
    }
    case 'http':
      return {
        label: 'Over HTTP',
        where: 'a client that speaks Streamable HTTP (here Claude Code)',
        text: `claude mcp add --transport http sightline ${info.mcpUrl} --header "Authorization: Bearer $(cat ${shellWord(info.tokenFile)})"`,
        kind: 'shell',
      };
  }
}
