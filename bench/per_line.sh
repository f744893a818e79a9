#!/usr/bin/env bash
# Issue #52's per-line budget: instructions a line spent after the scan,
# counted by callgrind (valgrind) on the simulator's 100 000-event log
# (`lockreplay simulate --events 100000`, 101 100 lines), first open, JSON
# report. Instruction counts do not depend on the machine's load.
#
#   bench/per_line.sh [EVENTS]        (default: 100000)
#
# Prints, per line: the whole run; the parse of every line (`parse_chunk`);
# of which the scanner (`fast::scan`, the bytes of a line to its wanted
# fields); the record into an event (`Collector::record`: roles, time,
# names interned, the event built; the reading plan's work, the budget);
# the UTF-8 check and the line ends around them. Exits 1 when the record
# costs 1 500 instructions a line or more.
# Env: BENCH_DATA (default /tmp/lockreplay-bench), CARGO_TARGET_DIR.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
data="${BENCH_DATA:-/tmp/lockreplay-bench}"
target="${CARGO_TARGET_DIR:-$root/target}"
n="${1:-100000}"
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install valgrind)" >&2; exit 2; }
mkdir -p "$data"
(cd "$root" && CARGO_PROFILE_RELEASE_DEBUG=0 cargo build -q --release --no-default-features)
bin="$target/release/lockreplay"
log="$data/events-$n.jsonl"
[ -s "$log" ] || "$bin" simulate --events "$n" --out "$log" >/dev/null
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# analyze exits 1 when it finds an incident (the simulator's logs have some).
valgrind --tool=callgrind --callgrind-out-file="$tmp/cg.out" \
    "$bin" analyze --no-cache --format json "$log" >/dev/null 2>"$tmp/valgrind.txt" || true
[ -s "$tmp/cg.out" ] || { cat "$tmp/valgrind.txt" >&2; exit 2; }
callgrind_annotate --inclusive=yes "$tmp/cg.out" >"$tmp/annotated.txt" 2>/dev/null
lines="$(wc -l <"$log")"
python3 - "$tmp/annotated.txt" "$lines" "$(git -C "$root" rev-parse --short HEAD)" <<'EOF'
import re, sys
path, lines, rev = sys.argv[1], int(sys.argv[2]), sys.argv[3]
want = {
    "whole run": "PROGRAM TOTALS",
    "parse of every line (parse_chunk)": "ingest::assembly::chunk::parse_chunk ",
    "  the scanner (fast::scan)": "ingest::readers::fast::scan ",
    "  the record into an event (Collector::record)": "ingest::assembly::collect::Collector::record ",
    "  the UTF-8 check of each chunk": "core::str::converts::from_utf8 ",
    "  the line ends (memchr2)": "memchr2_raw::find_avx2 ",
}
counts = {}
for line in open(path):
    m = re.match(r"\s*([\d,]+) \(", line)
    if not m:
        continue
    for label, needle in want.items():
        if label not in counts and needle in line:
            counts[label] = int(m.group(1).replace(",", ""))
print(f"## Instructions a line, {lines} lines, lockreplay {rev}\n")
print("| part | instructions a line |")
print("|---|---:|")
for label in want:
    if label in counts:
        print(f"| {label.strip()} | {counts[label] / lines:,.0f} |")
record = counts.get("  the record into an event (Collector::record)", 0) / lines
print(f"\nbudget: the record under 1 500 a line: {'met' if record < 1500 else 'MISSED'} ({record:,.0f})")
sys.exit(0 if record < 1500 else 1)
EOF
