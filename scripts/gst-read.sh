#!/usr/bin/env bash
# Reads an MP4 or MOV file to its end with GStreamer's own demuxer (qtdemux, a second client
# besides FFmpeg), installing Debian's gstreamer1.0-tools and gstreamer1.0-plugins-good if
# missing, and prints the samples of its first track that reached the sink:
#
#   SAMPLES FILE 200
#
#   scripts/gst-read.sh FILE...
#
# Exit status 77 means "cannot be installed or run here" with the reason on stderr (not root, no
# apt-get, the packages cannot be installed); 1: GStreamer stopped on an error (printed).
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 64; }
source "$(dirname "$0")/gst-install.sh"
ensure_gstreamer qtdemux gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good

status=0
for file in "$@"; do
    # -v prints each buffer the fake sink takes ("chain"); an error stops the pipeline, non-zero.
    out="$(gst-launch-1.0 -v filesrc location="$file" ! qtdemux ! fakesink silent=false sync=false 2>&1)"
    rc=$?
    if [ $rc -ne 0 ] || grep -q "^ERROR" <<<"$out"; then
        echo "GStreamer could not read $file:" >&2
        grep -E "^(ERROR|Additional debug info)" <<<"$out" >&2
        status=1
        continue
    fi
    echo "SAMPLES $file $(grep -c 'chain   \*\*\*\*\*\*\*' <<<"$out")"
done
exit $status
