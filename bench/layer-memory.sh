#!/usr/bin/env bash
# Memory per composition layer shown at once: peak RSS (GNU time) of a 4 s 640x360 base with
# 0, 1, 8 and 16 layers of 640x360 H.264 all shown over its whole length, and the cost of each
# layer beyond the first. A script, not a timed test. The binary: $REENCODE (default the release
# build; `swift build -c release --product reencode` first).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${REENCODE:-.build/release/reencode}
work=bench/work/layers; mkdir -p "$work"
make() {  # name: 4 s of 640x360 at 30 fps, x264 veryfast with B frames (as a camera's clip)
  [ -f "$work/$1.mp4" ] || ffmpeg -v error -y -nostdin -f lavfi -i "testsrc2=size=640x360:rate=30" -t 4 \
    -c:v libx264 -preset veryfast -crf 23 -g 60 "$work/$1.mp4"
}
make base; make layer
recipe() {  # n layers, each a quarter of the picture, all from 0 s to the end
  printf 'recipe: 1\nsources:\n  base: "{input}"\n  layer: %s\ncomposition:\n  video:\n    - { source: base }\n' "$PWD/$work/layer.mp4"
  if [ "$1" -gt 0 ]; then
    printf '  layers:\n'
    for ((k = 0; k < $1; k++)); do
      printf '    - { rect: { x: %d%%, y: %d%%, width: 25%%, height: 25%% }, segments: [ { source: layer, at: 0s, duration: 4s } ] }\n' \
        $((k % 4 * 25)) $((k / 4 % 4 * 25))
    done
  fi
  printf 'reader: { outputs: { picture: { track: video } } }\n'
  printf 'writer: { inputs: [ { source: picture, settings: { codec: h264, quality: 23, codec-options: { preset: veryfast } } } ] }\n'
}
declare -A peak
for n in 0 1 8 16; do
  recipe "$n" > "$work/layers-$n.yaml"
  peak[$n]=$(/usr/bin/time -f '%M' "$bin" run "$work/layers-$n.yaml" -i "$work/base.mp4" -o "$work/out-$n.mp4" --overwrite --quiet 2>&1 >/dev/null | tail -1)
  echo "layers shown at once: $n, peak RSS ${peak[$n]} kB"
done
awk -v a="${peak[1]}" -v b="${peak[8]}" -v c="${peak[16]}" \
  'BEGIN { printf "each layer beyond the first: %.2f MB (1 → 8), %.2f MB (1 → 16)\n", (b - a) / 7 / 1024, (c - a) / 15 / 1024 }'
