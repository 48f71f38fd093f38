#!/usr/bin/env bash
# Blueprint I/O at MapSize 8192 with water sections (576 MiB), side by side with the machine's
# own raw speed measured in the same run:
#   write:  islagen's writer (atomic, fsynced)   vs  dd of the same byte count with conv=fdatasync
#   read:   islagen's read-and-validate          vs  cat FILE > /dev/null from a warm cache
#   memory: peak RSS of a read (/usr/bin/time -v) vs the file size
# Usage: scripts/bench-io.sh [SIZE] [DIR]   (defaults 8192 and a temp dir under target/)
set -euo pipefail
cd "$(dirname "$0")/.."
size=${1:-8192}
dir=${2:-target/bench-io}
mkdir -p "$dir"
cargo build --release -p islagen-tools --example io_bench >/dev/null 2>&1
bin=target/release/examples/io_bench
file="$dir/bench_$size.dat"
runs=5

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
now() { date +%s.%N; }
calc() { awk "BEGIN { printf \"%.6f\", $* }"; }

w_ours=(); w_first=(); w_dd=(); r_ours=(); r_first=(); r_cat=()
for i in $(seq $runs); do
  rm -f "$file"; sync
  line=$($bin write "$size" "$file")
  w_ours+=("$(echo "$line" | awk '{print $2}')"); w_first+=("$(echo "$line" | awk '{print $(NF-1)}')")
  bytes=$(stat -c %s "$file")
  rm -f "$dir/dd.bin"; sync; t0=$(now); dd if=/dev/zero of="$dir/dd.bin" bs=8M count=$((bytes / 8388608)) conv=fdatasync status=none
  tail=$((bytes % 8388608)); [ "$tail" -gt 0 ] && dd if=/dev/zero bs=$tail count=1 status=none >> "$dir/dd.bin"
  t1=$(now); w_dd+=("$(calc "$t1 - $t0")")
  cat "$file" > /dev/null   # warm the cache
  t0=$(now); cat "$file" > /dev/null; t1=$(now); r_cat+=("$(calc "$t1 - $t0")")
  line=$($bin read "$file")
  r_ours+=("$(echo "$line" | awk '{print $2}')"); r_first+=("$(echo "$line" | awk '{print $(NF-1)}')")
done
rm -f "$dir/dd.bin"
echo "samples (s): write ${w_ours[*]} | first ${w_first[*]} | dd ${w_dd[*]} | read ${r_ours[*]} | first ${r_first[*]} | cat ${r_cat[*]}"
peak_kb=$(/usr/bin/time -v $bin read "$file" 2>&1 >/dev/null | awk -F: '/Maximum resident/ {gsub(/ /,"",$2); print $2}')
wo=$(printf '%s\n' "${w_ours[@]}" | median); wf=$(printf '%s\n' "${w_first[@]}" | median); wd=$(printf '%s\n' "${w_dd[@]}" | median)
ro=$(printf '%s\n' "${r_ours[@]}" | median); rf=$(printf '%s\n' "${r_first[@]}" | median); rc=$(printf '%s\n' "${r_cat[@]}" | median)
file_mib=$(calc "$bytes / 1048576")
peak_mib=$(calc "$peak_kb / 1024")
printf 'MapSize %s, file %.0f MiB, median of %d runs\n' "$size" "$file_mib" "$runs"
printf 'write  islagen %.3f s   dd fdatasync %.3f s   ratio %.2f (goal <= 1.25)\n' "$wo" "$wd" "$(calc "$wo / $wd")"
printf 'write  (first write in a fresh process: %.3f s, ratio %.2f)\n' "$wf" "$(calc "$wf / $wd")"
printf 'read   islagen %.3f s   cat warm     %.3f s   ratio %.2f (goal <= 2)\n' "$ro" "$rc" "$(calc "$ro / $rc")"
printf 'read   (first read in a fresh process: %.3f s, ratio %.2f)\n' "$rf" "$(calc "$rf / $rc")"
printf 'memory read peak %.0f MiB   file %.0f MiB   ratio %.2f (goal <= 1.25)\n' "$peak_mib" "$file_mib" "$(calc "$peak_mib / $file_mib")"
rm -f "$file"
