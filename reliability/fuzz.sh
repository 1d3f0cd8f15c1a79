#!/usr/bin/env bash
# libFuzzer runs of the recipe parser+compiler (RecipeFuzz) and of probing + a short conversion
# (MediaFuzz), built with --sanitize=fuzzer (and address) in .build-fuzz.
#   reliability/fuzz.sh build
#   reliability/fuzz.sh recipe SECONDS [libFuzzer options...]
#   reliability/fuzz.sh media SECONDS [libFuzzer options...]
#   reliability/fuzz.sh replay       # every reproducer in reliability/regressions/ once
#   reliability/fuzz.sh smoke        # CI: replay, then each target for 20 s from the seed corpus
#   KEEP_GOING=1 reliability/fuzz.sh recipe 600   # a long run that continues past crashes
# The corpus grows in .build-fuzz/corpus/NAME (seeded from reliability/seeds/NAME); crashes land in
# .build-fuzz/crashes/NAME/ — copy each reproducer to reliability/regressions/NAME/ and add a test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
export REENCODE_FUZZ=1
SCRATCH=.build-fuzz
# With SwiftPM's --sanitize=fuzzer alone (Swift 6.3, Linux) the modules came out without coverage
# instrumentation (no __sancov sections: libFuzzer ran blind, "no interesting inputs"); the explicit
# -sanitize-coverage adds it in the form current libFuzzer reads (8-bit counters + PC table).
SAN=(--sanitize=fuzzer --sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp)

build() {
    nice -n 10 swift build -c debug "${SAN[@]}" --scratch-path "$SCRATCH" --product RecipeFuzz
    nice -n 10 swift build -c debug "${SAN[@]}" --scratch-path "$SCRATCH" --product MediaFuzz
}

run() {  # run NAME SECONDS [options]
    local name=$1 secs=$2; shift 2
    local target=$SCRATCH/debug/$([ "$name" = recipe ] && echo RecipeFuzz || echo MediaFuzz)
    [ -x "$target" ] || build
    mkdir -p "$SCRATCH/corpus/$name" "$SCRATCH/crashes/$name"
    local dict=()
    [ -f "reliability/seeds/$name.dict" ] && dict=(-dict="reliability/seeds/$name.dict")
    # -rss_limit_mb: a probe of hostile media may allocate, but not without bound.
    # ASan's leak check is off: FFmpeg's and Swift's process-lifetime caches are not leaks per input.
    # KEEP_GOING=1: -fork=1 with -ignore_*, so a known crash does not end the run; every crash is
    # still saved as an artifact. Without it the first crash stops the run (CI smoke).
    local keep=()
    [ "${KEEP_GOING:-0}" = 1 ] && keep=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1)
    ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 nice -n 10 "$target" "${keep[@]}" \
        -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 -max_len=$([ "$name" = recipe ] && echo 16384 || echo 262144) \
        -print_final_stats=1 -artifact_prefix="$SCRATCH/crashes/$name/" "${dict[@]}" "$@" \
        "$SCRATCH/corpus/$name" "reliability/seeds/$name"
}

replay() {  # every saved reproducer once through its target: each must pass now
    local name target files
    for name in recipe media; do
        target=$SCRATCH/debug/$([ "$name" = recipe ] && echo RecipeFuzz || echo MediaFuzz)
        [ -x "$target" ] || build
        files=()
        for f in reliability/regressions/"$name"/*; do [ -f "$f" ] && [[ "$f" != *.md ]] && files+=("$f"); done
        [ ${#files[@]} -gt 0 ] || continue
        ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 nice -n 10 "$target" -timeout=20 "${files[@]}"
    done
}

case "${1:-}" in
    build) build ;;
    recipe|media) run "$@" ;;
    replay) replay ;;
    smoke) replay && run recipe 20 && run media 20 ;;
    *) echo "usage: reliability/fuzz.sh build | recipe SECONDS | media SECONDS | replay | smoke" >&2; exit 64 ;;
esac
