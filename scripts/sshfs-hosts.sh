#!/usr/bin/env bash
# Several "hosts" on one shared folder for tests (docs/batch.md, "Testing many hosts over sshfs"):
# a private sshd bound to 127.0.0.1 serves DIR/shared over SFTP, and each host is an sshfs mount
# of it, optionally with a skewed clock (faketime on sshfs, which stamps the times it sets).
#
#   scripts/sshfs-hosts.sh start DIR                    installs openssh-server, sshfs and faketime
#                                                       if missing, starts sshd (keys, config, pid
#                                                       and log under DIR), makes DIR/shared
#   scripts/sshfs-hosts.sh mount DIR NAME [SKEW] [OPT]  mounts DIR/shared at DIR/NAME; SKEW (like
#                                                       +300s) runs sshfs under faketime; OPT adds
#                                                       sshfs -o options (like disable_hardlink)
#   scripts/sshfs-hosts.sh stop DIR                     unmounts every DIR/* mount, stops sshd
#
# Exit status 77 means "cannot be installed or run here" with the reason on stderr (not root, no
# apt-get, no /dev/fuse, the packages cannot be installed). Once installed, an sshd or a mount that
# will not start is a real failure: exit 1 with its log.
set -uo pipefail

cmd="${1:-}"; dir="${2:-}"
usage() { echo "usage: $0 start DIR | mount DIR NAME [SKEW] [OPTIONS] | stop DIR" >&2; exit 64; }
[ -n "$cmd" ] && [ -n "$dir" ] || usage
mkdir -p "$dir" && dir="$(cd "$dir" && pwd)"
export PATH="$PATH:/usr/sbin:/sbin"

unavailable() { echo "sshfs hosts unavailable: $*" >&2; exit 77; }
failed() {
    echo "sshfs hosts failed: $*" >&2
    for log in "$dir"/*.log; do [ -s "$log" ] && { echo "--- last lines of $log:" >&2; tail -n 15 "$log" >&2; }; done
    exit 1
}

stop() {
    # Mounts first (their ssh connections end with them), then the server.
    grep " $dir/" /proc/mounts | awk '{print $2}' | while read -r m; do
        fusermount3 -u "$m" 2>/dev/null || umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null
    done
    if [ -f "$dir/sshd.pid" ]; then
        pid="$(cat "$dir/sshd.pid")"
        kill "$pid" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        rm -f "$dir/sshd.pid"
    fi
}

case "$cmd" in
stop) stop; exit 0 ;;
start)
    [ "$(id -u)" = 0 ] || unavailable "mounting sshfs and starting sshd need root (this is uid $(id -u))"
    [ -c /dev/fuse ] || unavailable "no /dev/fuse (FUSE is not available in this machine or container)"
    if ! command -v sshd >/dev/null || ! command -v sshfs >/dev/null || ! command -v faketime >/dev/null; then
        command -v apt-get >/dev/null || unavailable "openssh-server, sshfs and faketime are not installed and there is no apt-get"
        export DEBIAN_FRONTEND=noninteractive
        ok=""
        for _ in $(seq 30); do
            if apt-get install -y --no-install-recommends openssh-server openssh-client sshfs faketime >"$dir/apt.log" 2>&1; then ok=1; break; fi
            grep -q "Could not get lock\|Unable to lock\|Unable to locate\|has no installation candidate" "$dir/apt.log" || break
            if grep -q "Unable to locate\|has no installation candidate" "$dir/apt.log"; then apt-get update >>"$dir/apt.log" 2>&1 || true; fi
            sleep 5
        done
        [ -n "$ok" ] || unavailable "apt-get install openssh-server sshfs faketime failed: $(tail -n 3 "$dir/apt.log" | tr '\n' ' ')"
    fi
    mkdir -p "$dir/shared" /run/sshd
    [ -f "$dir/host_key" ] || ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key" || failed "ssh-keygen (host key)"
    [ -f "$dir/id" ] || ssh-keygen -q -t ed25519 -N '' -f "$dir/id" || failed "ssh-keygen (client key)"
    cp "$dir/id.pub" "$dir/authorized_keys"
    # A free port of our own, so a machine's own sshd (22) is left alone.
    while :; do
        port=$((20000 + RANDOM % 20000))
        (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null || break
    done
    echo "$port" >"$dir/port"
    cat >"$dir/sshd_config" <<EOF
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
Subsystem sftp internal-sftp
MaxStartups 50
LogLevel ERROR
EOF
    "$(command -v sshd)" -f "$dir/sshd_config" -E "$dir/sshd.log" || failed "sshd would not start"
    for _ in $(seq 100); do (echo >/dev/tcp/127.0.0.1/$port) 2>/dev/null && exit 0; sleep 0.1; done
    failed "sshd does not listen on 127.0.0.1:$port"
    ;;
mount)
    name="${3:-}"; skew="${4:-}"; extra="${5:-}"
    [ -n "$name" ] || usage
    port="$(cat "$dir/port" 2>/dev/null)" || failed "not started: run '$0 start $dir' first"
    mkdir -p "$dir/$name"
    # No caches: each host sees the others' claims and heartbeats as they are (docs/batch.md).
    opts="port=$port,IdentityFile=$dir/id,StrictHostKeyChecking=no,UserKnownHostsFile=/dev/null,BatchMode=yes,LogLevel=ERROR"
    opts="$opts,dir_cache=no,attr_timeout=0,entry_timeout=0,negative_timeout=0"
    [ -n "$extra" ] && opts="$opts,$extra"
    if [ -n "$skew" ]; then
        # libfaketime itself, not the faketime wrapper: the wrapper waits for the daemon it forks.
        lib="$(dpkg -L libfaketime 2>/dev/null | grep '/libfaketimeMT.so.1$' | head -n 1)"
        [ -n "$lib" ] || failed "libfaketime's library not found"
        LD_PRELOAD="$lib" FAKETIME="$skew" sshfs "root@127.0.0.1:$dir/shared" "$dir/$name" -o "$opts" >"$dir/$name.log" 2>&1 \
            || failed "sshfs $name (clock $skew)"
    else
        sshfs "root@127.0.0.1:$dir/shared" "$dir/$name" -o "$opts" >"$dir/$name.log" 2>&1 || failed "sshfs $name"
    fi
    grep -q " $dir/$name fuse" /proc/mounts || failed "$dir/$name is not mounted"
    ;;
*) usage ;;
esac
