#!/usr/bin/env bash
# CI's quick regression set (scripts/test.sh calls it after the test suite):
#   1. reliability/run.py --quick: a fixed subset of hostile media, mutated recipes, hostile
#      command lines (closed/full stdout, broken pipe, signals mid-run, link onto source) and batch
#      scenarios (same stem, shards on one host, --dry-run, symlinks, a replaced file);
#   2. a small soak: 100 tiny files, 5 % broken, 5 SIGKILLs and restarts, then to completion;
#   3. with --fuzz (or REENCODE_FUZZ_SMOKE=1): 20 s of each libFuzzer target (builds .build-fuzz
#      first, a few minutes the first time).
# Uses the binaries of the build scripts/test.sh just made (debug) unless BIN is set.
# Under 3 minutes on 2 cores without --fuzz. Exit 1 when anything failed; results in
# /tmp/reencode-reliability-quick/results/results.md.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
BIN=${BIN:-$(swift build --show-bin-path)}
status=0
nice -n 10 python3 reliability/run.py --quick --bin "$BIN" || status=1
nice -n 10 python3 reliability/soak.py --files 100 --kills 5 --bin "$BIN" --work /tmp/reencode-soak-quick || status=1
if [ "${1:-}" = --fuzz ] || [ "${REENCODE_FUZZ_SMOKE:-0}" = 1 ]; then
    reliability/fuzz.sh smoke || status=1
fi
exit $status
