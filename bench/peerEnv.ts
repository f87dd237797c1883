/** The environment peer MCP servers run in for a benchmark. */
import { join } from 'node:path';

/**
 * What keeps a peer from fetching a browser or phoning home, under a fresh `home`: the peers
 * are pointed at /usr/bin/chromium, and nothing may be downloaded on these machines.
 */
export function peerEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1',
    PLAYWRIGHT_BROWSERS_PATH: join(home, 'no-browsers'),
    PUPPETEER_SKIP_DOWNLOAD: '1',
    CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS: '1',
    CI: '1',
  };
}
