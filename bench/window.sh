#!/usr/bin/env bash
# The window's target: a log opens in the window in at most 1.5x the
# time `analyze` takes on the same file.
#
#   bench/window.sh LOG...
#
# For each LOG, RUNS runs (default 3) of each, alternating: `lockreplay analyze --format json`
# (wall time, peak RSS), then the window under xvfb-run (Mesa's software
# renderer, as CI has no GPU) with `--screenshot` and LOCKREPLAY_TIMINGS=1:
# the time from start to the first frame that shows the log ("open"), the
# frames drawn until then, and the whole run including the picture and the
# close. Then one first open of each with the cache on, as a user's is
# (each from an empty cache: it writes the entries), and the second open
# of each: `analyze` and the window again, answered from a private load
# cache (filled by that window, which keeps what only the window makes:
# the holders' labels, and one `analyze`, its report). Prints one Markdown table: medians, with the range; the run,
# frames and memory columns are the last run's.
# Needs xvfb-run (xvfb xauth libgl1-mesa-dri).
# Env: CARGO_TARGET_DIR (where the release binary is built), RUNS.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
target="${CARGO_TARGET_DIR:-$root/target}"
[ $# -gt 0 ] || { echo "usage: bench/window.sh LOG..." >&2; exit 2; }
(cd "$root" && cargo build -q --release)
bin="$target/release/lockreplay"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
export LOCKREPLAY_CACHE_DIR="$tmp/cache" # a private load cache, empty at the start
# One window run: LOG SUFFIX [--no-cache]; prints "open_s frames run_s MB".
window() {
    local log=$1 tag=$2
    shift 2
    LOCKREPLAY_TIMINGS=1 XDG_DATA_HOME="$tmp/xdg" /usr/bin/time -f "%e %M" -o "$tmp/win$tag.time" \
        xvfb-run -a -s "-screen 0 1920x1080x24" "$bin" "$@" --screenshot "$tmp/shot$tag.png" "$log" \
        2> "$tmp/win$tag.err" > /dev/null || { tail -5 "$tmp/win$tag.err" >&2; exit 1; }
    local shown='^timing: at window/first frame with the log (frame \([0-9]*\)) \([0-9.]*\) s$'
    local open_s frames
    open_s=$(sed -n "s|$shown|\2|p" "$tmp/win$tag.err")
    frames=$(sed -n "s|$shown|\1|p" "$tmp/win$tag.err")
    [ -n "$open_s" ] || { echo "$log: the window never showed the log" >&2; tail -5 "$tmp/win$tag.err" >&2; exit 1; }
    read -r win_s win_kb < <(tail -n 1 "$tmp/win$tag.time")
    echo "$open_s ${frames:-?} $win_s $((win_kb / 1024))"
}
# One `analyze --format json` run: LOG [--no-cache]; prints "s KB".
analyze() {
    local log=$1
    shift
    /usr/bin/time -f "%e %M" -o "$tmp/cli.time" "$bin" analyze "$@" --format json "$log" > "$tmp/report.json" || true
    # (analyze exits 1 when it finds an incident: time notes that first.)
    tail -n 1 "$tmp/cli.time"
}
ratio() { python3 -c "print(f'{$1 / max($2, 0.005):.2f}x')"; }
runs=${RUNS:-3}
# "median (min-max)" of the numbers given, or the one number.
spread() { python3 -c "import statistics as s,sys; v=sorted(map(float,sys.argv[1:])); print(f'{s.median(v):.3f}' + (f' ({v[0]:.3f}-{v[-1]:.3f})' if len(v) > 1 else ''))" "$@"; }
median() { python3 -c "import statistics as s,sys; print(s.median(map(float,sys.argv[1:])))" "$@"; }
echo "First open: both read the file (\`--no-cache\`). Second open: both answer from the load cache, filled by one \`analyze\` and one window before. $runs runs of each, \`analyze\` and the window alternating; median (min-max)."
echo
echo "| log | events | analyze s | analyze MB | window open s | open / analyze (medians) | frames while loading | window run s | window MB | first open with the cache on (analyze, window) s | analyze second s | window second open s | first / second (analyze, window) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|"
for log in "$@"; do
    cat "$log" > /dev/null # page cache: both read from memory
    cli=() opens=() cli2=() opens2=()
    for _ in $(seq "$runs"); do
        read -r cli_s cli_kb < <(analyze "$log" --no-cache)
        read -r open_s frames win_s win_mb < <(window "$log" 1 --no-cache)
        cli+=("$cli_s") opens+=("$open_s")
    done
    events=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['summary']['events'])" "$tmp/report.json" 2>/dev/null || echo "?")
    # A first open with the cache on, as a user's is: it writes the entries
    # (one run each, each from an empty cache).
    rm -rf "$LOCKREPLAY_CACHE_DIR"
    read -r cliw_s _ < <(analyze "$log")
    rm -rf "$LOCKREPLAY_CACHE_DIR"
    read -r openw_s _ _ _ < <(window "$log" 3) # the load, analysis and labels entries
    analyze "$log" > /dev/null # the report entry
    for _ in $(seq "$runs"); do
        read -r cli2_s _ < <(analyze "$log")
        read -r open2_s _ _ _ < <(window "$log" 2)
        cli2+=("$cli2_s") opens2+=("$open2_s")
    done
    c=$(median "${cli[@]}") o=$(median "${opens[@]}") c2=$(median "${cli2[@]}") o2=$(median "${opens2[@]}")
    echo "| $(basename "$log") | $events | $(spread "${cli[@]}") | $((cli_kb / 1024)) | $(spread "${opens[@]}") | $(ratio "$o" "$c") | $frames | $win_s | $win_mb | $cliw_s, $openw_s | $(spread "${cli2[@]}") | $(spread "${opens2[@]}") | $(ratio "$c" "$c2"), $(ratio "$o" "$o2") |"
done
