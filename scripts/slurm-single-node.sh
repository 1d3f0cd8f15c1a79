#!/usr/bin/env bash
# A private single-node Slurm cluster for tests (docs/batch.md, "Testing against Slurm").
#
#   scripts/slurm-single-node.sh start DIR   installs slurm-wlm and munge if missing, writes
#                                            DIR/slurm.conf for this host, starts munged,
#                                            slurmctld and slurmd with all state under DIR
#   scripts/slurm-single-node.sh stop DIR    stops the three daemons started in DIR
#
# After `start`, use the cluster with SLURM_CONF=DIR/slurm.conf (sbatch, squeue, scontrol).
# Exit status 77 means "cannot be installed or run here" with the reason on stderr (not root, no
# apt-get, the packages cannot be installed). Once installed, a daemon that will not start or a
# node that never becomes idle is a real failure: exit 1, with the daemons' last log lines.
set -uo pipefail

cmd="${1:-}"; dir="${2:-}"
if [ -z "$cmd" ] || [ -z "$dir" ]; then echo "usage: $0 start|stop DIR" >&2; exit 64; fi
mkdir -p "$dir" && dir="$(cd "$dir" && pwd)"

unavailable() { echo "slurm unavailable: $*" >&2; exit 77; }

# A real failure: says what and shows the end of every daemon log there is.
failed() {
    echo "slurm failed: $*" >&2
    for log in "$dir/munged.log" "$dir/slurmctld.log" "$dir/slurmd.log"; do
        [ -s "$log" ] && { echo "--- last lines of $log:" >&2; tail -n 15 "$log" >&2; }
    done
    stop
    exit 1
}

stop() {
    for f in slurmd slurmctld munged; do
        if [ -f "$dir/$f.pid" ]; then
            pid="$(cat "$dir/$f.pid")"
            kill "$pid" 2>/dev/null
            for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -9 "$pid" 2>/dev/null
            rm -f "$dir/$f.pid"
        fi
    done
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: $0 start|stop DIR" >&2; exit 64; }

# Debian's packages put the daemons in /usr/sbin.
export PATH="$PATH:/usr/sbin:/sbin"
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
    [ "$(id -u)" = 0 ] || unavailable "slurm-wlm and munge are not installed and installing them needs root"
    command -v apt-get >/dev/null || unavailable "slurm-wlm and munge are not installed and there is no apt-get"
    # Another apt may hold the lock for a while (setup, other jobs): wait for it.
    export DEBIAN_FRONTEND=noninteractive
    ok=""
    for _ in $(seq 30); do
        if apt-get install -y --no-install-recommends slurm-wlm munge >"$dir/apt.log" 2>&1; then ok=1; break; fi
        if ! grep -q "Could not get lock\|Unable to lock\|Unable to locate\|has no installation candidate" "$dir/apt.log"; then break; fi
        if grep -q "Unable to locate\|has no installation candidate" "$dir/apt.log"; then
            apt-get update >>"$dir/apt.log" 2>&1 || true
        fi
        sleep 5
    done
    [ -n "$ok" ] || unavailable "apt-get install slurm-wlm munge failed: $(tail -n 3 "$dir/apt.log" | tr '\n' ' ')"
fi
[ "$(id -u)" = 0 ] || unavailable "slurmd must run as root to start jobs (this is uid $(id -u))"

host="$(hostname -s)"
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"

# munge: a private key and socket, so nothing of the machine's own munge is used or changed.
if [ ! -f "$dir/munge/munge.key" ]; then
    dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
    chmod 400 "$dir/munge/munge.key"
fi
# --force: munged refuses root and group/world-writable parents (/tmp) without it.
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.sock" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" \
    >>"$dir/munged.log" 2>&1 || failed "munged would not start"

# Two free ports of our own, so a machine's own Slurm (6817/6818) is left alone.
port() {
    local p
    while :; do
        p=$((20000 + RANDOM % 20000))
        (echo >/dev/tcp/127.0.0.1/$p) 2>/dev/null || { echo $p; return; }
    done
}
ctld_port="$(port)"; d_port="$(port)"
while [ "$d_port" = "$ctld_port" ]; do d_port="$(port)"; done

# This node as slurmd sees it (CPUs, sockets, cores, threads, memory), named by its host name.
node="$(slurmd -C | head -n 1 | sed "s/^NodeName=[^ ]*/NodeName=$host/")"
[ -n "$node" ] || failed "slurmd -C did not describe this node"

cat >"$dir/slurm.conf" <<EOF
ClusterName=reencode-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$d_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.sock
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/backfill
MpiDefault=none
SwitchType=switch/none
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
ReturnToService=2
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
KillWait=5
MinJobAge=30
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=30 State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"

slurmctld -f "$SLURM_CONF" -i >>"$dir/slurmctld.log" 2>&1 || failed "slurmctld would not start"
slurmd -f "$SLURM_CONF" >>"$dir/slurmd.log" 2>&1 || failed "slurmd would not start"

# Ready when the node is idle.
for _ in $(seq 150); do
    state="$(sinfo -h -n "$host" -o %t 2>/dev/null)"
    case "$state" in idle*|mix*) echo "slurm ready: $SLURM_CONF"; exit 0 ;; esac
    sleep 0.2
done
failed "the node did not become idle in 30 s (state '${state:-none}')"
