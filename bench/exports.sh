#!/usr/bin/env bash
# The speed target for real exports: the same N events (default 1 M) as
# plain JSON Lines, as SLS `content` JSON and as Spring Boot text; reading the
# two export shapes should cost at most 2x the plain path. Best of REPEAT runs.
# Also glog's layout, which only the structure finder reads: its time against
# the plain path, and the share of its load spent learning the structure and
# choosing the reader (`load/plan`, LOCKREPLAY_TIMINGS=1; target under 5 %).
#   bench/exports.sh [N]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
data="${BENCH_DATA:-/tmp/lockreplay-bench}"
n="${1:-1000000}"
repeat="${REPEAT:-3}"
mkdir -p "$data"
(cd "$root" && cargo build -q --release --no-default-features)
bin="${CARGO_TARGET_DIR:-$root/target}/release/lockreplay"
plain="$data/events-$n.jsonl"
[ -s "$plain" ] || python3 "$here/gen_jsonl.py" "$n" "$plain"
[ -s "$data/events-$n.glog.log" ] || python3 "$here/exports.py" "$plain" "$data/events-$n"
best() {
    local b=999999
    for _ in $(seq "$repeat"); do
        local s e
        s=$(date +%s.%N); "$bin" analyze --no-cache --format text "$@" >/dev/null || [ $? -eq 1 ]; e=$(date +%s.%N)
        b=$(python3 -c "print(min($b, $e - $s))")
    done
    echo "$b"
}
p=$(best "$plain"); s=$(best "$data/events-$n.sls.jsonl"); t=$(best --tz Asia/Shanghai "$data/events-$n.springboot.log")
echo "| $n events | seconds | x plain |"
echo "|---|---:|---:|"
echo "| plain JSON Lines | $p | 1.00 |"
echo "| SLS content JSON | $s | $(python3 -c "print(f'{$s/$p:.2f}')") |"
echo "| Spring Boot text | $t | $(python3 -c "print(f'{$t/$p:.2f}')") |"
g=$(best --tz Asia/Shanghai "$data/events-$n.glog.log")
echo "| glog text (structure found) | $g | $(python3 -c "print(f'{$g/$p:.2f}')") |"
LOCKREPLAY_TIMINGS=1 "$bin" analyze --no-cache --format text --tz Asia/Shanghai "$data/events-$n.glog.log" \
    2>"$data/glog-timings.txt" >/dev/null || true
plan=$(awk '$2 ~ /^load\/(plan|detect)/ {t += $3} END {printf "%.3f", t}' "$data/glog-timings.txt")
load=$(awk '$2 == "load" {print $3}' "$data/glog-timings.txt")
echo
echo "glog: structure found and reader chosen (load/detect, load/plan) in $plan s of a $load s load: $(python3 -c "print(f'{100*$plan/$load:.1f}')") %"
