#!/usr/bin/env bash
# This build against a baseline build in the same run: the 8192 world with roads and with
# --skip-roads, each binary in turn (so both see the same machine and disk), REPEATS times, under
# /usr/bin/time -v. Prints (and writes to target/bench-against/against.md) the median wall time,
# the peak RSS and the ratio this ÷ baseline.
# Usage: scripts/bench-against.sh REV [SEED] [SIZE] [REPEATS]   (defaults 42, 8192, 3)
#   REV is a git revision; it is checked out in a worktree outside the repository (a checkout
#   inside it would belong to this Cargo workspace) and built into target/bench-against/.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: scripts/bench-against.sh REV [SEED] [SIZE] [REPEATS]}
seed=${2:-42}
size=${3:-8192}
repeats=${4:-3}
dir=target/bench-against
base_tree=${TMPDIR:-/tmp}/islagen-bench-base-tree
mkdir -p "$dir"
cargo build --release --locked >/dev/null 2>&1
if [ ! -d "$base_tree" ]; then git worktree add -f "$base_tree" "$rev" >/dev/null; fi
git -C "$base_tree" checkout -q --detach "$rev"
CARGO_TARGET_DIR=$dir/base-target cargo build --release --locked \
  --manifest-path "$base_tree/Cargo.toml" >/dev/null 2>&1
new=target/release/islagen
base=$dir/base-target/release/islagen
run() { # $1 = binary, $2 = label, rest = extra args; prints "wall_s rss_kib"
  local bin=$1 label=$2; shift 2
  rm -rf "$dir/out"
  /usr/bin/time -v "$bin" --seed "$seed" --size "$size" --out "$dir/out" "$@" \
    > "$dir/$label.out" 2> "$dir/$label.err"
  awk -F': ' '/Elapsed \(wall clock\)/ {n = split($2, p, ":"); s = 0
                for (i = 1; i <= n; i++) s = s * 60 + p[i]; w = s}
              /Maximum resident set size/ {r = $2}
              END {printf "%.2f %d\n", w, r}' "$dir/$label.err"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
: > "$dir/runs.tsv"
for i in $(seq "$repeats"); do
  for mode in roads skip; do
    extra=(); [ "$mode" = skip ] && extra=(--skip-roads)
    for who in base new; do
      bin=$new; [ "$who" = base ] && bin=$base
      read -r w r < <(run "$bin" "$who-$mode" "${extra[@]}")
      printf '%s\t%s\t%s\t%s\n' "$who" "$mode" "$w" "$r" >> "$dir/runs.tsv"
    done
  done
done
rm -rf "$dir/out"
col() { awk -F'\t' -v w="$1" -v m="$2" -v c="$3" '$1 == w && $2 == m {print $c}' "$dir/runs.tsv" | median; }
{
  echo "| MapSize $size, seed $seed | baseline $(git rev-parse --short "$rev") | this build $(git rev-parse --short HEAD) | ratio |"
  echo "|---|---:|---:|---:|"
  for mode in roads skip; do
    label="with roads"; [ "$mode" = skip ] && label="--skip-roads"
    b=$(col base $mode 3); n=$(col new $mode 3)
    echo "| $label, median wall of $repeats | $b s | $n s | $(awk -v b="$b" -v n="$n" 'BEGIN {printf "%.2f ×", n / b}') |"
    b=$(col base $mode 4); n=$(col new $mode 4)
    echo "| $label, peak RSS | $(awk -v v="$b" 'BEGIN {printf "%.2f GiB", v / 1048576}') | $(awk -v v="$n" 'BEGIN {printf "%.2f GiB", v / 1048576}') | $(awk -v b="$b" -v n="$n" 'BEGIN {printf "%.2f ×", n / b}') |"
  done
} | tee "$dir/against.md"
