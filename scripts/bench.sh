#!/usr/bin/env bash
# `npm run bench [section…]`: install the peers measured side by side (bench/package.json,
# never product dependencies; no browser downloads), then run bench/run.ts.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node22.sh
if [ ! -d bench/node_modules ] || [ bench/package-lock.json -nt bench/node_modules/.package-lock.json ]; then
  echo "bench: installing peers (bench/package.json)" >&2
  # npm ci refuses a lock whose platform-only optional packages a registry mirror does not carry
  # (mobile-mcp's mobilecli-darwin-*, -windows-*); install from package.json's exact pins then.
  npm ci --prefix bench --no-audit --no-fund --loglevel=silent || {
    echo "bench: npm ci refused the lock; installing the peers from their exact pins" >&2
    npm install --prefix bench --no-audit --no-fund --no-save
  }
fi
exec node bench/run.ts "$@"
