#!/usr/bin/env bash
# Whole-program benchmark: lockreplay vs wc -l, DuckDB,
# pandas at 10 k, 100 k, 1 M and 10 M events, on the simulator's log and on an
# overlap-heavy one (one hold in ten overruns its TTL), then the second open
# (the result cache) and the cores busy. Prints one Markdown
# table per log.
#
#   bench/run.sh [SIZES...]        (default: 10000 100000 1000000 10000000)
#
# Env: BENCH_DATA (generated logs, kept between runs; default /tmp/lockreplay-bench),
#      CARGO_TARGET_DIR (where the release binary is built), REPEAT (runs per
#      contender below 10 M events, best kept; default 3).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
data="${BENCH_DATA:-/tmp/lockreplay-bench}"
target="${CARGO_TARGET_DIR:-$root/target}"
sizes=("$@")
[ ${#sizes[@]} -eq 0 ] && sizes=(10000 100000 1000000 10000000)
mkdir -p "$data"

# DuckDB and pandas from PyPI, in a venv of their own.
venv="$here/.venv"
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c "import duckdb, pandas, pyarrow" 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q duckdb pandas pyarrow
fi

(cd "$root" && cargo build -q --release --no-default-features)
bin="$target/release/lockreplay"

echo "## lockreplay benchmark, $(date -u +%Y-%m-%dT%H:%MZ)"
echo
echo "Machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GB RAM; $(uname -sr)"
echo "lockreplay $(git -C "$root" rev-parse --short HEAD); DuckDB $("$venv/bin/python" -c 'import duckdb; print(duckdb.__version__)'), pandas $("$venv/bin/python" -c 'import pandas; print(pandas.__version__)'), pyarrow $("$venv/bin/python" -c 'import pyarrow; print(pyarrow.__version__)')"

for n in "${sizes[@]}"; do
    f="$data/events-$n.jsonl"
    if [ ! -s "$f" ]; then
        # The simulator when this build has it, else the Python stand-in.
        if ! "$bin" simulate --events "$n" --out "$f" >/dev/null 2>&1; then
            rm -f "$f"
            python3 "$here/gen_jsonl.py" "$n" "$f" 2>/dev/null
        fi
    fi
    # The overlap-heavy log: one hold in ten overruns its TTL.
    heavy="$data/events-heavy-$n.jsonl"
    [ -s "$heavy" ] || python3 "$here/gen_jsonl.py" "$n" "$heavy" 7 0.1 2>/dev/null
    rep="${REPEAT:-3}"
    [ "$n" -ge 10000000 ] && rep=1
    for log in "$f" "$heavy"; do
        echo
        echo "#### $(basename "$log")"
        cat "$log" > /dev/null # warm the page cache: every contender reads from memory
        python3 "$here/measure.py" "$log" "$(wc -l < "$log")" "$rep" "$bin" "$venv/bin/python"
        echo "(load average after this log: $(cut -d' ' -f1-3 /proc/loadavg))"
    done
done
