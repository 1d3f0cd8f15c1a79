#!/usr/bin/env bash
# Makes samples/hfr-120fps.mp4 with the project's own frame source: 3 s of 1280x720 at 120 fps,
# frame-stamped (the frame number in binary across the top), H.264 with droppable B frames like a
# high-frame-rate camera's, and 48 kHz stereo AAC with a click every second.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product reencode-bench >/dev/null
mkdir -p samples
.build/release/reencode-bench make-source samples/hfr-120fps.mp4 --seconds 3 --width 1280 --height 720 --fps 120 --droppable
ls -l samples/hfr-120fps.mp4
