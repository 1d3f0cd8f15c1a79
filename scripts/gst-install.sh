# Sourced by scripts/gst-read.sh and scripts/gst-play.sh (not run on its own).
#
#   ensure_gstreamer "ELEMENT ..." PACKAGE ...
#
# Installs Debian's PACKAGEs unless gst-launch-1.0 and every ELEMENT are already there. When that
# cannot be done it exits 77 ("cannot be installed or run here") with the reason on stderr: not
# root, no apt-get, or the packages cannot be installed.
unavailable() { echo "GStreamer unavailable: $*" >&2; exit 77; }

ensure_gstreamer() {
    local elements=($1) missing=0
    shift
    local packages=("$@")
    command -v gst-launch-1.0 >/dev/null || missing=1
    for element in "${elements[@]}"; do gst-inspect-1.0 "$element" >/dev/null 2>&1 || missing=1; done
    [ $missing = 1 ] || return 0
    [ "$(id -u)" = 0 ] || unavailable "${packages[*]} are not installed and installing them needs root (this is uid $(id -u))"
    command -v apt-get >/dev/null || unavailable "${packages[*]} are not installed and there is no apt-get"
    local log
    log="$(mktemp)"
    install() { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${packages[@]}" >>"$log" 2>&1; }
    install || { apt-get update >>"$log" 2>&1; install; } \
        || unavailable "apt-get install ${packages[*]} failed: $(tail -n 3 "$log" | tr '\n' ' ')"
}
