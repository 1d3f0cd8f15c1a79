#!/usr/bin/env bash
# The test command: installs what is missing, then runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
if [ -z "${REENCODE_CORPUS:-}" ] && [ -d ../shared/corpus ]; then export REENCODE_CORPUS="$(cd ../shared/corpus && pwd)"; fi
swift build --build-tests -Xswiftc -warnings-as-errors
swift test --skip-build "$@"
reliability/ci-quick.sh --fuzz
