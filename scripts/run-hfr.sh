#!/usr/bin/env bash
# Builds reencode and converts the bundled 120 fps sample to 30 fps.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release
mkdir -p out
# --overwrite: the script can be run again; a plain `reencode run` refuses to replace an output.
.build/release/reencode run recipes/hfr-to-30fps.yaml --overwrite "$@"
.build/release/reencode inspect out/hfr-120fps-30fps.mp4
