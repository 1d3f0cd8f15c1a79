#!/usr/bin/env bash
# The reliability runner (reliability/run.py): hostile media, mutated recipes, hostile command
# lines and batch scenarios against the built reencode.
#   reliability/run.sh --quick        # CI: a fixed subset, under 3 minutes
#   reliability/run.sh --full         # on demand: every generated case (about 15-25 minutes)
# Other options go to run.py (--bin DIR, --work DIR, --results DIR, --seed N, --only media,recipes,cli,batch).
# Builds the release binaries first unless --bin is given. Runs niced.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ " $* " != *" --bin "* ]]; then
    export PATH=/opt/swift/usr/bin:$PATH
    nice -n 10 swift build -c release --product reencode >/dev/null
    nice -n 10 swift build -c release --product reencode-bench >/dev/null
fi
exec nice -n 10 python3 reliability/run.py "$@"
