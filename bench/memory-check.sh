#!/usr/bin/env bash
# Memory check: memory does not grow with the file's length. Peak RSS converting a 60 s clip must
# stay within 10 % of a 10 s clip, and 50 open/convert/close cycles must not grow. A script, not a
# timed test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product reencode-bench >/dev/null
tool=.build/release/reencode-bench
work=bench/work/memory; mkdir -p "$work"
for s in 10 60; do
  [ -f "$work/src-$s.mp4" ] || "$tool" make-source "$work/src-$s.mp4" --seconds "$s" --width 1280 --height 720 --fps 60
done
peak() { /usr/bin/time -f '%M' "$tool" convert "$1" "$work/out.mp4" --fps 30 --preset veryfast 2>&1 >/dev/null | tail -1; }
p10=$(peak "$work/src-10.mp4"); p60=$(peak "$work/src-60.mp4")
echo "peak RSS: 10 s clip ${p10} kB, 60 s clip ${p60} kB"
ok=1
awk -v a="$p10" -v b="$p60" 'BEGIN { r = b / a; printf "ratio 60s/10s: %.3f (limit 1.10)\n", r; exit !(r <= 1.10) }' || ok=0
"$tool" make-source "$work/small.mp4" --seconds 1 --width 320 --height 240 --fps 30 >/dev/null 2>&1 || true
"$tool" cycles 50 "$work/small.mp4" > "$work/cycles.txt"
# Heap in use settles as libdispatch fills its per-thread continuation caches (64-byte blocks,
# capped); a leaked picture, packet or codec context would add 100 KB or more per cycle. Medians of
# ten cycles, so a sample taken while a queue is still releasing does not decide.
med() { awk -v a="$1" -v b="$2" '$2>=a && $2<=b {print $6}' "$work/cycles.txt" | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
r25=$(med 21 30); r50=$(med 41 50)
echo "heap in use, median of cycles 21-30: ${r25} B, of cycles 41-50: ${r50} B"
awk -v a="$r25" -v b="$r50" 'BEGIN { d = b - a; printf "heap growth over 20 cycles: %d B (limit 65536)\n", d; exit !(d <= 65536) }' || ok=0
if command -v valgrind >/dev/null; then
  valgrind --leak-check=full "$tool" cycles 3 "$work/small.mp4" > "$work/valgrind.txt" 2>&1 || true
  lost=$(grep -E "(definitely|indirectly) lost:" "$work/valgrind.txt" | awk '{gsub(",", "", $4); s += $4} END {print s + 0}')
  echo "valgrind, 3 cycles: ${lost} bytes definitely or indirectly lost (limit 0)"
  [ "$lost" = 0 ] || ok=0
fi
[ "$ok" = 1 ] && echo "memory check: passed" || { echo "memory check: FAILED"; exit 1; }
