#!/bin/bash
# Times how long the page-view sample takes to count a view again after a SIGKILL, resuming from its checkpoint
# directory. Usage (from the repository root, after mvn package): bench/sigkill-resume.sh [APPS] [KILLS]
set -euo pipefail
APPS=${1:-1000}; KILLS=${2:-5}
JAR="$(pwd)/samples/target/ringflow-samples.jar"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
t0=0
for r in $(seq 0 "$KILLS"); do
  java -jar "$JAR" page-view --events 500M --apps "$APPS" --rate 500k --checkpoint-interval 100 \
    --checkpoint-dir ck --resume --output out > "run-$r.log" 2>&1 &
  pid=$!
  if [ "$r" -gt 0 ]; then
    until grep -q "first update" "run-$r.log"; do sleep 0.005; done
    t1=$(date +%s%N)
    echo "kill $r: SIGKILL to first update $(( (t1 - t0) / 1000000 )) ms; $(grep 'first update' "run-$r.log")"
  fi
  sleep 5
  kill -9 "$pid"; t0=$(date +%s%N); wait "$pid" 2>/dev/null || true
done
