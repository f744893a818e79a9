#!/usr/bin/env bash
# lockreplay's field scanner against sonic-rs and simd-json on
# 100 000 lines of each benchmark log (the simulator's and the overlap-heavy
# one), single-threaded, lines already in memory. Prints criterion's lines.
#   bench/scan/run.sh            (RUSTFLAGS="-C target-cpu=native" to let the
#                                 SIMD crates use AVX2 without runtime checks)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$(dirname "$here")")"
data="${BENCH_DATA:-/tmp/lockreplay-bench}"
mkdir -p "$data"
(cd "$root" && cargo build -q --release --no-default-features)
sim="$data/scan-sim-100000.jsonl"
heavy="$data/scan-heavy-100000.jsonl"
[ -s "$sim" ] || "$root/target/release/lockreplay" simulate --events 100000 --out "$sim" >/dev/null
[ -s "$heavy" ] || python3 "$root/bench/gen_jsonl.py" 100000 "$heavy" 7 0.1
for f in "$sim" "$heavy"; do
    echo "#### $(basename "$f")"
    (cd "$here" && SCAN_LINES="$f" cargo bench -q --bench scan 2>&1 | grep -E "^scan/|time:|thrpt:")
done
