#!/usr/bin/env bash
# Installs what reencode needs on Debian 12 (or Ubuntu) when it is missing: FFmpeg's and libyaml's
# development files (libavfilter's headers for the audio time-stretch kernel, whose library is
# loaded when that kernel runs: Debian's is built with rubberband), pkg-config, the ffmpeg/ffprobe command line (cross-checks, benchmarks) and
# GNU time (peak memory in bench/).
set -euo pipefail
need=()
for pkg in pkg-config libavcodec-dev libavfilter-dev libavformat-dev libavutil-dev libswresample-dev libswscale-dev libyaml-dev ffmpeg time; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
  echo "setup: installing ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v swift >/dev/null || export PATH="/opt/swift/usr/bin:$PATH"
command -v swift >/dev/null || { echo "setup: Swift 6 is needed (swift not on PATH, not in /opt/swift)"; exit 1; }
