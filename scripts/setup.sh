#!/usr/bin/env bash
# Everything `npm run demo` and `npm test` need, installed and started if missing:
# system packages (Docker engine, nats-server 2.10, debootstrap), npm packages, the build, and the
# sandbox images. Idempotent: a second run takes a few seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
step() { printf '\n== %s\n' "$*" >&2; }

step "system: Docker engine, nats-server, debootstrap"
if [ "$(id -u)" = 0 ]; then
  bash scripts/bootstrap-system.sh
else
  command -v nats-server >/dev/null && docker info >/dev/null 2>&1 || {
    echo "not root: install Docker and nats-server 2.10+ yourself, or run: sudo bash scripts/bootstrap-system.sh" >&2; exit 1; }
fi

step "npm packages"
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  echo "up to date" >&2
fi

step "build (tsc)"
npm run --silent build

step "sandbox images"
node dist/actors/cli/main.js images build
