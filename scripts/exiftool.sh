#!/usr/bin/env bash
# Runs ExifTool (Debian's libimage-exiftool-perl, installed if missing): the second, independent
# reader of the metadata reencode writes (tests read each item back with it and with ffprobe).
#
#   scripts/exiftool.sh ARG...
#
# Exit status 77 means "cannot be installed here" with the reason on stderr (not root, no apt-get,
# the package cannot be installed); otherwise exiftool's own.
set -uo pipefail
unavailable() { echo "exiftool unavailable: $*" >&2; exit 77; }

if ! command -v exiftool >/dev/null; then
    [ "$(id -u)" = 0 ] || unavailable "exiftool is not installed and installing it needs root (this is uid $(id -u))"
    command -v apt-get >/dev/null || unavailable "exiftool is not installed and there is no apt-get"
    log="$(mktemp)"
    install() { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libimage-exiftool-perl >>"$log" 2>&1; }
    install || { apt-get update >>"$log" 2>&1; install; } \
        || unavailable "apt-get install libimage-exiftool-perl failed: $(tail -n 3 "$log" | tr '\n' ' ')"
    rm -f "$log"
fi
exec exiftool "$@"
