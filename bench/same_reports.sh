#!/usr/bin/env bash
# Checks that a change to the code changed no report: runs two builds of
# lockreplay (BASE, NEW) on every fixture and case file, one file at a time
# and each folder's files together, in text, Markdown and JSON, in English and
# Chinese, plus `inspect`, and prints every pair that differs.
#
#   bench/same_reports.sh BASE_BIN NEW_BIN [OUT_DIR]
#
# Exits 0 when every output is byte-identical, 1 otherwise; the differing
# outputs are kept under OUT_DIR (default: a new temporary folder) as
# NAME.base and NAME.new, with the exit codes in NAME.rc.
set -uo pipefail
base="$(realpath "$1")"
new="$(realpath "$2")"
out="${3:-$(mktemp -d)}"
mkdir -p "$out"
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root" || exit 2

runs=0
diffs=0
# One invocation of both builds; $1 is a name for the pair, the rest the args.
same() {
    local name="$1"
    shift
    local b n rb rn
    b="$(cd "$root" && "$base" "$@" 2>&1)"
    rb=$?
    n="$(cd "$root" && "$new" "$@" 2>&1)"
    rn=$?
    runs=$((runs + 1))
    if [ "$b" != "$n" ] || [ "$rb" != "$rn" ]; then
        diffs=$((diffs + 1))
        printf '%s\n' "$b" >"$out/$name.base"
        printf '%s\n' "$n" >"$out/$name.new"
        echo "base $rb new $rn" >"$out/$name.rc"
        echo "DIFFERS $name: $*"
    fi
}

# Every way a report is printed, for one set of inputs.
all_formats() {
    local name="$1"
    shift
    for lang in en zh; do
        for fmt in text md json; do
            same "$name.$lang.$fmt" analyze --no-cache --format "$fmt" --lang "$lang" "$@"
        done
    done
    same "$name.inspect" inspect "$@"
}

mapfile -t files < <(find tests/fixtures -type f \
    ! -name '*.md' ! -name 'case.json' ! -name 'truth.json' ! -name '*.toml' | sort)
for f in "${files[@]}"; do
    all_formats "$(echo "$f" | tr '/' '_')" "$f"
done
mapfile -t dirs < <(printf '%s\n' "${files[@]}" | xargs -n1 dirname | sort -u)
for d in "${dirs[@]}"; do
    mapfile -t in_dir < <(printf '%s\n' "${files[@]}" | awk -v d="$d" -F/ '{p=$0; sub("/[^/]*$","",p); if (p==d) print $0}')
    [ "${#in_dir[@]}" -gt 1 ] || continue
    all_formats "dir$(echo "$d" | tr '/' '_')" "${in_dir[@]}"
done
# With a mapping file where a folder has one.
while IFS= read -r m; do
    d="$(dirname "$m")"
    mapfile -t in_dir < <(printf '%s\n' "${files[@]}" | awk -v d="$d" -F/ '{p=$0; sub("/[^/]*$","",p); if (p==d) print $0}')
    [ "${#in_dir[@]}" -gt 0 ] || continue
    all_formats "map$(echo "$m" | tr '/' '_')" --mapping "$m" "${in_dir[@]}"
done < <(find tests/fixtures -name '*.toml' | sort)

echo "$runs runs, $diffs differ (outputs in $out)"
[ "$diffs" -eq 0 ]
