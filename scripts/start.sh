#!/usr/bin/env bash
# `npm start`: set up on first run, build, then start the tray app; where no Electron
# runtime is available (e.g. this machine), say so and start the headless dashboard.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node22.sh
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "sightline: installing dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund
fi
if [ ! -f out/main/cli.js ] || [ -n "$(find src -newer out/main/cli.js -print -quit)" ]; then
  echo "sightline: building" >&2
  npx --no-install electron-vite build >&2
fi
# electron downloads its runtime on first use (node22.sh turns that off for installs and CI).
electron_bin="$(env -u ELECTRON_SKIP_BINARY_DOWNLOAD node -e "try{process.stdout.write(require('electron'))}catch{}" 2>/dev/null || true)"
if [ -n "$electron_bin" ] && [ -x "$electron_bin" ] && { [ -n "${DISPLAY:-}" ] || [ "$(uname)" != Linux ]; }; then
  exec "$electron_bin" . "$@"
fi
echo "sightline: no Electron runtime here (or no display); starting the headless dashboard instead." >&2
exec node bin/sightline.js serve "$@"
