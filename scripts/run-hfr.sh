#!/usr/bin/env bash
# Builds reencode and converts the bundled 120 fps sample to 30 fps.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
swift build -c release
mkdir -p out
.build/release/reencode run recipes/hfr-to-30fps.yaml "$@"
