#!/usr/bin/env bash
# Runs the libFuzzer targets: fuzz/run.sh TARGET|all SECONDS|-runs=N [PARALLEL]
#   fuzz/run.sh all 10            # 10 s per target (smoke)
#   fuzz/run.sh csv -runs=10000000
# Needs cargo-fuzz (cargo install cargo-fuzz) and the stable toolchain:
# RUSTC_BOOTSTRAP=1 lets cargo-fuzz use the sanitizer flags.
# Memory is capped (-rss_limit_mb=2048, -malloc_limit_mb=2048) and one input
# may take at most 10 s (-timeout=10). The working corpus grows in
# fuzz/corpus/TARGET (not committed), seeded from fuzz/seeds/TARGET; crashes
# land in fuzz/artifacts/TARGET. Each run's log, with libFuzzer's final
# "#N DONE" line (executions), goes to fuzz/logs/TARGET.log.
# FUZZ_SANITIZER=none drops AddressSanitizer (default: address): lockreplay
# forbids unsafe, so ASan only watches the dependencies' unsafe code; without
# it the whole-file targets ran 2 to 7x faster in 1/10 of the memory
# (docs/reliability.md). Debug assertions stay on either way.
# FUZZ_MAX_LEN sets libFuzzer's -max_len (default 65536 bytes); 4096, libFuzzer's
# own default, runs the whole-file targets about 10x more executions per second.
set -euo pipefail
cd "$(dirname "$0")"
target=${1:?usage: fuzz/run.sh TARGET|all SECONDS|-runs=N}
budget=${2:?usage: fuzz/run.sh TARGET|all SECONDS|-runs=N}
export RUSTC_BOOTSTRAP=1
sanitizer=${FUZZ_SANITIZER:-address}
case "$budget" in
  -runs=*) limit=("$budget") ;;
  *) limit=("-max_total_time=$budget") ;;
esac
if [ "$target" = all ]; then
  targets=$(sed -n 's/^name = "\(.*\)"$/\1/p' Cargo.toml | grep -v '^lockreplay-fuzz$')
else
  targets=$target
fi
mkdir -p logs
cargo fuzz build -O --debug-assertions -s "$sanitizer" --fuzz-dir . >/dev/null
for t in $targets; do
  mkdir -p "corpus/$t" "artifacts/$t"
  echo "==> $t ${limit[*]} (sanitizer: $sanitizer)"
  set +e
  nice -n 19 cargo fuzz run -O --debug-assertions -s "$sanitizer" --fuzz-dir . "$t" "corpus/$t" "seeds/$t" -- \
    "${limit[@]}" -rss_limit_mb=2048 -malloc_limit_mb=2048 -timeout=10 -max_len="${FUZZ_MAX_LEN:-65536}" \
    -print_final_stats=1 >"logs/$t.log" 2>&1
  rc=$?
  set -e
  grep -E '^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb' "logs/$t.log" || true
  if [ $rc -ne 0 ]; then
    echo "$t FAILED (exit $rc), see fuzz/logs/$t.log and fuzz/artifacts/$t/"
    tail -40 "logs/$t.log"
    exit $rc
  fi
done
