#!/usr/bin/env bash
# `npm run demo`: set up, run the starter suite with the scripted reference agent on the embedded
# default (local nats-server and Docker), write the run's report, and print the command that opens it.
# Exit code: the run's (0 every episode ran, 1 some infra_error, 2 bad input, 3 environment).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
home="${ENGILOOP_HOME:-$HOME/.engiloop}"
mkdir -p "$home/reports"
results="$(mktemp "$home/reports/demo-XXXXXX.json")"
set +e
node dist/actors/cli/main.js run tasks/starter --concurrency 2 --json "$results"
code=$?
set -e
[ -s "$results" ] || { echo "demo: the run wrote no results ($results); see the messages above" >&2; exit "$code"; }
run_id="$(node -e 'console.log(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).runId)' "$results")"
rm -f "$results"
url="$(node dist/actors/cli/main.js report "$run_id" --out "$home/reports/$run_id")"
printf '\nThe report of run %s (static, opens with no server):\n  chromium %s\nor live, while runs go:\n  node dist/actors/cli/main.js view %s\n' "$run_id" "$url" "$run_id"
exit "$code"
