#!/usr/bin/env bash
# Makes the samples the recipes in recipes/ run on, with the project's own frame source: every
# picture frame-stamped (its number in binary across the top), stereo AAC with a 440 Hz tone and
# a click at every whole second, so what lands where in an output can be checked.
#   hfr-120fps.mp4   3 s, 1280x720 at 120 fps, H.264 with droppable B frames (a high-frame-rate camera)
#   hfr-240fps.mp4   3 s,  640x360 at 240 fps, likewise (the slow-motion recipe)
#   intro.mp4        2 s, 1280x720 at 25 fps, 44.1 kHz audio   } the concat recipe's three sources:
#   clip.mp4         3 s, 1920x1080 at 29.97 fps, 48 kHz      } sizes, rates and sample rates
#   outro.mp4        2 s,  640x480 at 60 fps, 32 kHz           } differ on purpose
#   music.m4a        8 s of a soft chord, 44.1 kHz, no pictures (the music-bed recipe's music)
# A sample that exists is kept (delete it to make it again).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release --product reencode-bench >/dev/null
mkdir -p samples
sample() { local out=$1; shift; [ -e "$out" ] || .build/release/reencode-bench make-source "$out" "$@"; }
sample samples/hfr-120fps.mp4 --seconds 3 --width 1280 --height 720 --fps 120 --droppable
sample samples/hfr-240fps.mp4 --seconds 3 --width 640 --height 360 --fps 240 --droppable
sample samples/intro.mp4 --seconds 2 --width 1280 --height 720 --fps 25 --audio-rate 44100
sample samples/clip.mp4 --seconds 3 --width 1920 --height 1080 --fps 30000/1001
sample samples/outro.mp4 --seconds 2 --width 640 --height 480 --fps 60 --audio-rate 32000
sample samples/music.m4a --seconds 8 --music
ls -l samples/
