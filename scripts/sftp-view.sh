#!/usr/bin/env bash
# A second "client" of a local folder, for tests: mounts DIR at MOUNTPOINT with sshfs talking to a
# local sftp-server over a pipe (no sshd, no network). Like any sshfs or NFS client, the view
# numbers files its own way (inode numbers in the order it first looks them up), stamps times to
# the second (SFTP v3) and reports ctime as the mtime; appends from two views of one file are not
# atomic. Installs Debian's sshfs and openssh-sftp-server with apt-get if missing.
#   sftp-view.sh mount DIR MOUNTPOINT
#   sftp-view.sh unmount MOUNTPOINT
# Exit 77 (with the reason on stderr) where it cannot run here: not root and not installed, no
# apt-get, no /dev/fuse.
set -euo pipefail
server=/usr/lib/openssh/sftp-server
unavailable() { echo "sftp-view: $*" >&2; exit 77; }
case "${1:-}" in
mount)
  [ $# -eq 3 ] || { echo "usage: $0 mount DIR MOUNTPOINT" >&2; exit 64; }
  if ! command -v sshfs >/dev/null || [ ! -x "$server" ]; then
    [ "$(id -u)" -eq 0 ] || unavailable "sshfs or sftp-server missing and not root"
    command -v apt-get >/dev/null || unavailable "sshfs or sftp-server missing and no apt-get"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sshfs openssh-sftp-server >/dev/null 2>&1 \
      || { apt-get update -qq >/dev/null 2>&1; DEBIAN_FRONTEND=noninteractive apt-get install -y -qq sshfs openssh-sftp-server >/dev/null 2>&1; } \
      || unavailable "apt-get could not install sshfs and openssh-sftp-server"
  fi
  [ -e /dev/fuse ] || unavailable "no /dev/fuse"
  mkdir -p "$3"
  # sshfs runs "ssh_command HOST -s sftp": the shim ignores that and is the server itself.
  shim="$(mktemp /tmp/sftp-view-XXXXXX)"
  printf '#!/bin/sh\nexec %s\n' "$server" > "$shim"
  chmod +x "$shim"
  # The daemon must not keep the caller's stdout and stderr open (a caller reading them to the
  # end would wait for the unmount): its messages go to a file, said when the mount fails.
  log="$shim.log"
  # Nor any other descriptor the caller left open: Foundation's Process learns that a child ended
  # when a socket the child inherited closes, so a daemon holding it makes the caller wait forever.
  for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-" 2>/dev/null; done
  if ! sshfs -o ssh_command="$shim" "view:$(realpath "$2")" "$3" </dev/null >"$log" 2>&1; then
    rm -f "$shim"; unavailable "sshfs could not mount $2: $(cat "$log")"
  fi
  rm -f "$shim" "$log"  # read at mount time only
  ;;
unmount)
  [ $# -eq 2 ] || { echo "usage: $0 unmount MOUNTPOINT" >&2; exit 64; }
  fusermount -u "$2" 2>/dev/null || umount -l "$2"
  ;;
*) echo "usage: $0 mount DIR MOUNTPOINT | unmount MOUNTPOINT" >&2; exit 64 ;;
esac
