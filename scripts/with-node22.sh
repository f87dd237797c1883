#!/usr/bin/env bash
# Run a command with Node >= 22.12 first on PATH, installing dependencies on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/node22.sh
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "sightline: installing dependencies (npm ci)" >&2
  npm ci --no-audit --no-fund
fi
exec "$@"
