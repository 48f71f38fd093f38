#!/usr/bin/env bash
# Coverage-guided fuzzing of every parser islagen reads untrusted input with (libFuzzer through
# cargo-fuzz, on the nightly toolchain). Targets: dat_read island_code starmade_folder
# starmade_zip structures config raster pins (fuzz/fuzz_targets/, each calling islagen::fuzzing).
#
#   scripts/fuzz.sh install            install cargo-fuzz if missing
#   scripts/fuzz.sh seeds              rebuild the seed corpora from the project's own files
#   scripts/fuzz.sh run TARGET [SECS] [RUNS]   fuzz one target (default 1800 s / 10 M runs)
#   scripts/fuzz.sh smoke [SECS]       every target for SECS seconds (default 10)
#   scripts/fuzz.sh cmin TARGET        fold a run's finds into fuzz/corpus/TARGET, minimised
#
# Caps: no single allocation over 1 GiB (-malloc_limit_mb), no process over 2.5 GiB
# (-rss_limit_mb), no input slower than 10 s (-timeout). A finding lands in
# fuzz/artifacts/TARGET/; make it a regression test (tests/fuzz_corpus.rs replays
# fuzz/regressions/TARGET/ on stable) before fixing it.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS="dat_read island_code starmade_folder starmade_zip structures config raster pins"
CAPS=(-malloc_limit_mb=1024 -rss_limit_mb=2560 -timeout=10)

install() {
  rustup toolchain list | grep -q nightly || rustup toolchain install nightly --profile minimal
  command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
}

max_len() { # inputs larger than the seeds teach nothing new and run slower
  case $1 in
    starmade_folder) echo 600000 ;;
    dat_read) echo 65536 ;;
    *) echo 65536 ;;
  esac
}

run() {
  local target=$1 secs=${2:-1800} runs=${3:-10000000}
  install
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
  # fuzz/corpus holds the committed, minimised corpus; new finds go to a scratch folder first.
  local scratch="target/fuzz-corpus/$target"
  mkdir -p "$scratch"
  cargo +nightly fuzz run "$target" "$scratch" "fuzz/corpus/$target" -- \
    "${CAPS[@]}" -max_len="$(max_len "$target")" -max_total_time="$secs" -runs="$runs" \
    -print_final_stats=1 -artifact_prefix="fuzz/artifacts/$target/"
}

case ${1:-} in
  install) install ;;
  seeds) cargo run --release -p islagen-tools --example fuzz_seeds -- fuzz/corpus ;;
  run) shift; run "$@" ;;
  smoke)
    for t in $TARGETS; do run "$t" "${2:-10}"; done ;;
  cmin) # fold a run's finds (target/fuzz-corpus/TARGET) into the committed corpus, minimised
    install
    if [ -d "target/fuzz-corpus/$2" ]; then
      find "target/fuzz-corpus/$2" -type f -exec cp -n -t "fuzz/corpus/$2" {} +
    fi
    cargo +nightly fuzz cmin "$2" "fuzz/corpus/$2" -- -max_len="$(max_len "$2")" ;;
  *) sed -n '2,18p' "$0"; exit 2 ;;
esac
