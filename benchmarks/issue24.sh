#!/usr/bin/env bash
# Every figure issue 24 ("Nothing grows faster than the case") names, in one sitting, one after
# another on a quiet machine, each script's own output kept under $OUT (default: a new folder
# in $TMPDIR). The figures go into benchmarks/README.md by hand, with the load average seen.
#   bash benchmarks/issue24.sh [OUT]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-$(mktemp -d "${TMPDIR:-/tmp}/casefile-issue24-XXXXXX")}
mkdir -p "$OUT"
PY=.venv/bin/python
step() {
  local name=$1; shift
  echo "[$(date -u +%H:%M:%S)] $name (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$OUT/steps.log"
  "$@" >"$OUT/$name.log" 2>&1 || echo "  $name failed: rc=$?" | tee -a "$OUT/steps.log"
}
step scaling $PY benchmarks/bench_scaling.py --rounds 3 --warm-reps 5 --json "$OUT/scaling.json"
step ingest-2000 $PY benchmarks/bench_ingest.py --commands 2000 --rounds 3
step ingest-20000 $PY benchmarks/bench_ingest.py --commands 20000 --rounds 1
step replay-stream $PY benchmarks/bench_replay_stream.py --rounds 3
step store-pg $PY benchmarks/bench_store_batches.py --only pg --events 100000 --rounds 3
step store-sqlite $PY benchmarks/bench_store_batches.py --only sqlite --rounds 5
step ranking $PY benchmarks/bench_ranking.py --only 50x50x8 --rounds 7
echo "[$(date -u +%H:%M:%S)] done (load $(cut -d' ' -f1-3 /proc/loadavg)): $OUT" | tee -a "$OUT/steps.log"
