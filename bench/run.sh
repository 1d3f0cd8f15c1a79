#!/usr/bin/env bash
# The benchmark: installs what is missing (FFmpeg dev files, the ffmpeg command line, GNU time),
# builds release, makes the inputs, runs every scenario for reencode and ffmpeg, and writes
# bench/results/latest.{json,md,svg} ((a)–(i)) and compositions.{json,md} ((j)–(m)).
# Options: --runs N, --scenarios a,b,…, --quick (see README.md here).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
python3 -c 'import numpy' 2>/dev/null || pip install -q numpy || echo "bench: numpy missing: PSNR checks are skipped"
exec python3 bench/run.py "$@"
