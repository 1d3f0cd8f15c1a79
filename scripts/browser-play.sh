#!/usr/bin/env bash
# Plays media files to their end in a real browser: headless Chromium (Debian's `chromium`,
# installed if missing) loads a local page with a muted <video> on each file, and prints one line
# per file once it has ended (or failed):
#
#   PLAYBACK FILE {"state":"ended","duration":2.008,"ended":true,"total":60,"dropped":3,"corrupted":0,"error":null}
#
# `total` and `corrupted` are getVideoPlaybackQuality()'s totalVideoFrames and
# corruptedVideoFrames; `dropped` depends on how busy the machine is.
#
#   scripts/browser-play.sh FILE...
#
# Exit status 77 means "cannot be installed or run here" with the reason on stderr (not root, no
# apt-get, the package cannot be installed); 1: a file that did not report within 120 s.
set -uo pipefail

[ $# -gt 0 ] || { echo "usage: $0 FILE..." >&2; exit 64; }
unavailable() { echo "browser playback unavailable: $*" >&2; exit 77; }

if ! command -v chromium >/dev/null; then
    [ "$(id -u)" = 0 ] || unavailable "chromium is not installed and installing it needs root (this is uid $(id -u))"
    command -v apt-get >/dev/null || unavailable "chromium is not installed and there is no apt-get"
    log="$(mktemp)"
    install() { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >>"$log" 2>&1; }
    install || { apt-get update >>"$log" 2>&1; install; } \
        || unavailable "apt-get install chromium failed: $(tail -n 3 "$log" | tr '\n' ' ')"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0
for file in "$@"; do
    path="$(cd "$(dirname "$file")" && pwd)/$(basename "$file")"
    page="$work/play.html"
    # The page reports through the console, which Chromium logs on stderr.
    cat >"$page" <<EOF
<!doctype html><html><body>
<video id="v" muted autoplay playsinline></video>
<script>
const v = document.getElementById('v');
function report(state) {
  const q = v.getVideoPlaybackQuality();
  console.log('PLAYBACK ' + JSON.stringify({state, duration: v.duration, ended: v.ended, total: q.totalVideoFrames,
                                             dropped: q.droppedVideoFrames, corrupted: q.corruptedVideoFrames, error: v.error && v.error.code}));
}
v.addEventListener('ended', () => report('ended'));
v.addEventListener('error', () => report('error'));
v.src = 'file://$path';
v.play().catch(e => console.log('PLAYBACK ' + JSON.stringify({state: 'not played: ' + e})));
</script></body></html>
EOF
    chromium --headless=new --no-sandbox --disable-gpu --no-first-run --user-data-dir="$work/profile" \
        --autoplay-policy=no-user-gesture-required --allow-file-access-from-files \
        --enable-logging=stderr --v=0 "file://$page" >"$work/log" 2>&1 &
    pid=$!
    # Until the page reports or the browser ends; a watchdog of 120 s, not a wait.
    for _ in $(seq 1200); do
        grep -q 'PLAYBACK ' "$work/log" && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    line="$(grep -o '"PLAYBACK .*", source: ' "$work/log" | head -n 1 | sed 's/^"PLAYBACK //; s/", source: $//')"
    if [ -z "$line" ]; then
        echo "browser playback: $file did not report; last lines of chromium's log:" >&2
        tail -n 15 "$work/log" >&2
        status=1
        continue
    fi
    echo "PLAYBACK $file $line"
done
exit $status
