#!/usr/bin/env bash
# Issue #48's write-up target: `lockreplay report` of the simulator's
# 1 M-event flash sale, pictures included, in under 15 s on a 2-core machine,
# with report.md under 100 KB and a line on stderr for each phase (load,
# analysis, pictures, files).
#
#   bench/report.sh [EVENTS...]        (default: 1000000)
#
# For each size: the simulator's log (kept in BENCH_DATA between runs), then
# one `report` into a fresh folder, timed (wall, peak RSS), with its phases;
# prints one Markdown table and exits 1 when a 1 M-event run misses a target.
# Pictures need a wgpu adapter (Mesa's llvmpipe does: libgl1-mesa-dri).
# Env: BENCH_DATA (default /tmp/lockreplay-bench), CARGO_TARGET_DIR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
data="${BENCH_DATA:-/tmp/lockreplay-bench}"
target="${CARGO_TARGET_DIR:-$root/target}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(1000000)
mkdir -p "$data"
(cd "$root" && CARGO_PROFILE_RELEASE_DEBUG=0 cargo build -q --release)
bin="$target/release/lockreplay"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
missed=0

echo "## lockreplay report, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "Machine: $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg); lockreplay $(git -C "$root" rev-parse --short HEAD)"
echo
echo "| events | wall s | peak MB | incidents pictured | report.md KB | folder MB | trace.json MB | phases |"
echo "|---:|---:|---:|---:|---:|---:|---:|---|"
for n in "${sizes[@]}"; do
    log="$data/events-$n.jsonl"
    [ -s "$log" ] || "$bin" simulate --events "$n" --out "$log" >/dev/null
    cat "$log" > /dev/null # from the page cache, as a second run would be
    out="$tmp/report-$n"
    rm -rf "$out"
    /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin" report --no-cache --out "$out" "$log" \
        2> "$tmp/err" > /dev/null || [ $? -eq 1 ] # exit 1: incidents found
    read -r wall kb < <(tail -n 1 "$tmp/time")
    md_kb=$(( $(stat -c %s "$out/report.md") / 1024 ))
    folder_mb=$(( $(du -sk "$out" | cut -f1) / 1024 ))
    trace_mb=$(( $(stat -c %s "$out/trace.json") / 1048576 ))
    pictured=$(find "$out" -name 'INC-*.png' | wc -l)
    phases=$(grep -c '^lockreplay: \(loaded\|analysed\|drew\|wrote\)' "$tmp/err" || true)
    echo "| $n | $wall | $((kb / 1024)) | $pictured | $md_kb | $folder_mb | $trace_mb | $phases of 4 |"
    if [ "$n" -ge 1000000 ]; then
        awk -v w="$wall" 'BEGIN { exit !(w >= 15) }' && { echo "missed: $wall s >= 15 s" >&2; missed=1; }
        [ "$md_kb" -lt 100 ] || { echo "missed: report.md $md_kb KB >= 100 KB" >&2; missed=1; }
        [ "$phases" -eq 4 ] || { echo "missed: $phases of 4 phases said" >&2; cat "$tmp/err" >&2; missed=1; }
    fi
done
exit "$missed"
