#!/usr/bin/env bash
# The test command: installs what is missing, builds (warnings are errors), runs the whole test
# suite, then the quick reliability set (reliability/ci-quick.sh --fuzz) — that one even when the
# suite failed, so one failure never hides what the other would have found. Says how each went;
# exits non-zero when either failed (or the build did: then nothing can run).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh
if [ -z "${REENCODE_CORPUS:-}" ] && [ -d ../shared/corpus ]; then export REENCODE_CORPUS="$(cd ../shared/corpus && pwd)"; fi
swift build --build-tests -Xswiftc -warnings-as-errors
suite=0; swift test --skip-build "$@" || suite=$?
reliability=0; reliability/ci-quick.sh --fuzz || reliability=$?
verdict() { [ "$1" = 0 ] && echo "passed" || echo "FAILED (exit $1)"; }
echo "test.sh: swift test $(verdict $suite); reliability/ci-quick.sh --fuzz $(verdict $reliability)"
[ "$suite" = 0 ] && [ "$reliability" = 0 ]
