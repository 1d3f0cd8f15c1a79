#!/usr/bin/env bash
# Plays an HLS master playlist or a DASH manifest to its end with GStreamer (playbin, which
# plugs hlsdemux or dashdemux, qtdemux and the libav decoders: a second client besides FFmpeg)
# into fake sinks, installing Debian's gstreamer1.0-plugins-bad and gstreamer1.0-libav (and the
# tools, base and good plugins) if missing, and prints the presentation time of the last video
# and audio buffer that reached the sinks, in seconds:
#
#   LAST FILE VIDEO 8.966666666 AUDIO 8.978666666
#
#   scripts/gst-play.sh FILE...
#
# Exit status 77 means "cannot be installed or run here" with the reason on stderr (not root, no
# apt-get, the packages cannot be installed); 1: GStreamer stopped on an error or without EOS.
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 64; }
source "$(dirname "$0")/gst-install.sh"
ensure_gstreamer "hlsdemux dashdemux avdec_h264" gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good \
    gstreamer1.0-plugins-bad gstreamer1.0-libav

# The pts of the last buffer a sink's last-message names, in seconds (none: "-").
last_pts() {
    grep "$1:sink) (" <<<"$2" | sed -n 's/.*pts: \([0-9]*\):\([0-9]*\):\([0-9.]*\),.*/\1 \2 \3/p' \
        | awk '{ t = $1 * 3600 + $2 * 60 + $3; if (t > m) m = t; n++ } END { if (n) printf "%.9f", m; else printf "-" }'
}

status=0
for file in "$@"; do
    uri="file://$(realpath "$file")"
    # -v prints each buffer a fake sink takes (its last-message); an error stops the pipeline.
    out="$(gst-launch-1.0 -v playbin uri="$uri" video-sink="fakesink name=vsink sync=false silent=false" \
        audio-sink="fakesink name=asink sync=false silent=false" 2>&1)"
    rc=$?
    if [ $rc -ne 0 ] || grep -q "^ERROR" <<<"$out" || ! grep -q "^Got EOS" <<<"$out"; then
        echo "GStreamer could not play $file:" >&2
        grep -E "^(ERROR|Additional debug info)" <<<"$out" >&2
        status=1
        continue
    fi
    echo "LAST $file VIDEO $(last_pts vsink "$out") AUDIO $(last_pts asink "$out")"
done
exit $status
