#!/usr/bin/env bash
# Runs the libFuzzer targets:
#   fuzz/run.sh TARGET|all SECONDS|-runs=N|--total=SECONDS
#   fuzz/run.sh all 10              # 10 s per target (smoke)
#   fuzz/run.sh all --total=3600    # one hour for all targets, shared equally
#   fuzz/run.sh csv -runs=10000000
#   FUZZ_JOBS=2 fuzz/run.sh all --total=7200   # two targets at a time, one per core
# Needs cargo-fuzz (cargo install cargo-fuzz) and the stable toolchain:
# RUSTC_BOOTSTRAP=1 lets cargo-fuzz use the sanitizer flags.
# Memory is capped (-rss_limit_mb=2048, -malloc_limit_mb=2048) and one input
# may take at most 10 s (-timeout=10).
# Corpus: fuzz/kept/TARGET.tar.zst (committed) is the minimised corpus of all
# earlier runs; it is unpacked into fuzz/corpus-kept/TARGET (not committed),
# new inputs go to fuzz/corpus/TARGET (not committed), and after each target's
# run they are merged (-merge=1, which keeps only inputs that add coverage)
# into fuzz/corpus-kept/TARGET, which is packed back (a reproducible tar,
# zstd -19; needs the zstd tool), so the next run on any machine continues
# from this one: commit the changed .tar.zst files. fuzz/seeds/TARGET are the
# hand-written starting points. Crashes land in fuzz/artifacts/TARGET. Each run's log, with
# libFuzzer's final stats (stat::number_of_executed_units), goes to
# fuzz/logs/TARGET.log.
# FUZZ_SANITIZER=address turns AddressSanitizer on (default: none): lockreplay
# forbids unsafe, so ASan only watches the dependencies' unsafe code; without
# it the whole-file targets ran 2 to 7x faster in 1/10 of the memory
# (docs/reliability.md). Debug assertions stay on either way.
# FUZZ_TRACE_COMPARES=1 builds with libFuzzer's comparison hooks (default: off;
# they took about half of each execution of the whole-file targets),
# and -use_value_profile=0 keeps the value profile off either way.
# FUZZ_MAX_LEN sets libFuzzer's -max_len (default 4096 bytes, libFuzzer's own).
# FUZZ_JOBS=N runs N targets at a time (default 1), each in a lane of its own
# (target i in lane i mod N); with --total each lane gets the whole total, so
# a 2-core machine fuzzes twice as much in the same time. Never stop a run with
# SIGSTOP: libFuzzer's -timeout counts wall time, and a stopped process reads as a
# hang when it resumes (a false "timeout" artifact, the run ended unmerged).
# RAYON_NUM_THREADS=1 (unless set): each target runs one input at a time, and
# rayon's idle workers, woken per execution, spent 12 % of the `payload`
# target's time in sched_yield and took CPU from the other lane.
set -euo pipefail
cd "$(dirname "$0")"
export RAYON_NUM_THREADS=${RAYON_NUM_THREADS:-1}
usage='usage: fuzz/run.sh TARGET|all SECONDS|-runs=N|--total=SECONDS'
target=${1:?$usage}
budget=${2:?$usage}
export RUSTC_BOOTSTRAP=1
sanitizer=${FUZZ_SANITIZER:-none}
build=(-O --debug-assertions -s "$sanitizer")
if [ "${FUZZ_TRACE_COMPARES:-0}" != 1 ]; then
  build+=(--no-trace-compares)
fi
if [ "$target" = all ]; then
  targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^lockreplay-fuzz$')
else
  targets=$target
fi
count=$(echo "$targets" | wc -w)
jobs=${FUZZ_JOBS:-1}
case "$jobs" in ''|*[!0-9]*|0) echo "FUZZ_JOBS must be a whole number of at least 1" >&2; exit 2 ;; esac
case "$budget" in
  -runs=*) limit=("$budget") ;;
  --total=*) per=$(( ${budget#--total=} * jobs / count )); limit=("-max_total_time=$(( per > 0 ? per : 1 ))") ;;
  *) limit=("-max_total_time=$budget") ;;
esac
mkdir -p logs
if [ "$target" = all ]; then
  cargo fuzz build "${build[@]}" --fuzz-dir . >/dev/null
else # only the target run: each binary links the whole library
  cargo fuzz build "${build[@]}" --fuzz-dir . "$target" >/dev/null
fi
unpack() { # TARGET: kept/TARGET.tar.zst -> corpus-kept/TARGET
  rm -rf "corpus-kept/$1" && mkdir -p corpus-kept
  if [ -f "kept/$1.tar.zst" ]; then zstd -q -d -c "kept/$1.tar.zst" | tar -C corpus-kept -xf -; fi
  mkdir -p "corpus-kept/$1"
}
pack() { # TARGET: corpus-kept/TARGET -> kept/TARGET.tar.zst, the same bytes for the same inputs
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C corpus-kept -cf - "$1" |
    zstd -q -19 -T0 -f -o "kept/$1.tar.zst"
}
fuzz_one() { # TARGET: unpack, fuzz, merge, pack
  local t=$1 rc
  unpack "$t"
  mkdir -p "corpus/$t" "artifacts/$t"
  echo "==> $t ${limit[*]} (sanitizer: $sanitizer, ${build[*]})"
  set +e
  nice -n 19 cargo fuzz run "${build[@]}" --fuzz-dir . "$t" "corpus/$t" "corpus-kept/$t" "seeds/$t" -- \
    "${limit[@]}" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -max_len="${FUZZ_MAX_LEN:-4096}" \
    -use_value_profile=0 -print_final_stats=1 >"logs/$t.log" 2>&1
  rc=$?
  set -e
  grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb' "logs/$t.log" || true
  if [ $rc -ne 0 ]; then
    echo "$t FAILED (exit $rc), see fuzz/logs/$t.log and fuzz/artifacts/$t/"
    tail -40 "logs/$t.log"
    return $rc
  fi
  # Keep what added coverage, minimised, for the next run.
  nice -n 19 cargo fuzz run "${build[@]}" --fuzz-dir . "$t" "corpus-kept/$t" "corpus/$t" -- \
    -merge=1 -rss_limit_mb=2048 -timeout=10 -max_len="${FUZZ_MAX_LEN:-4096}" >"logs/$t.merge.log" 2>&1 || true
  pack "$t"
  echo "kept/$t.tar.zst: $(ls "corpus-kept/$t" | wc -l) inputs, $(du -k "kept/$t.tar.zst" | cut -f1) KB"
}
if [ "$jobs" -le 1 ]; then
  for t in $targets; do fuzz_one "$t"; done
  exit 0
fi
lanes=()
i=0
for t in $targets; do
  lanes[i % jobs]+="$t "
  i=$((i + 1))
done
pids=()
for lane in "${lanes[@]}"; do
  (for t in $lane; do fuzz_one "$t" || exit $?; done) &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=$?; done
exit $status
