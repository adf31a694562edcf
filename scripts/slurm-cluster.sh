#!/usr/bin/env bash
# slurm-cluster.sh - start/stop a throw-away single-node Slurm cluster.
#
# Usage:
#   scripts/slurm-cluster.sh start  DIR   # prints "export SLURM_CONF=DIR/slurm.conf"
#   scripts/slurm-cluster.sh stop   DIR   # idempotent
#   scripts/slurm-cluster.sh status DIR
#
# Typical use (note: `eval "$(... start DIR)"` alone would hide a failed
# start, because eval of an empty string succeeds):
#   out=$(scripts/slurm-cluster.sh start /tmp/netsim-slurm) && eval "$out"
#   sbatch --wrap 'hostname'
#   scripts/slurm-cluster.sh stop /tmp/netsim-slurm
#
# When `start` returns, the node is idle and the scheduler has run its first
# pass, so submitted jobs start within about a second.  Accounting is off
# (no slurmdbd, sacct does not work); to follow a job use
#   squeue -h --states=all -j ID -o %T      # PENDING/RUNNING/COMPLETED/FAILED/...
# (finished jobs stay visible for MinJobAge=3600 s; plain `squeue -j ID`
# prints nothing once a job finished *and* for unknown ids, with exit 1 for
# the latter), or read DIR/log/jobcomp.log (one line per finished job or
# array task, with JobState= and ExitCode=).
#
# Everything (config, munge key and socket, state, spool, logs, pid files)
# lives under DIR; nothing under /etc is modified and no system service is
# used, so it works without systemd (e.g. in containers / CI VMs).  The
# daemons run as root.  If the Slurm/MUNGE binaries are missing and we are
# root, the Debian packages `slurm-wlm` and `munge` are installed.
#
# Only the "export SLURM_CONF=..." line of `start` goes to stdout; every other
# message goes to stderr.
#
# Optional environment overrides:
#   SLURM_CLUSTER_TIMEOUT      seconds to wait for the node to become idle (60)
#   SLURM_CLUSTER_CTLD_PORT    slurmctld port (6817)
#   SLURM_CLUSTER_SLURMD_PORT  slurmd port (6818)
#   SLURM_CLUSTER_CPUS         CPUs advertised for the node (default: nproc;
#                              may exceed the real count to oversubscribe)
#   SLURM_CLUSTER_NAME         ClusterName (netsim)

set -euo pipefail

# Daemons and mungekey live in /usr/sbin, which is not on every PATH.
export PATH="${PATH:-/usr/bin:/bin}:/usr/sbin:/sbin"

PROG=${0##*/}
START_TIMEOUT=${SLURM_CLUSTER_TIMEOUT:-60}
CTLD_PORT=${SLURM_CLUSTER_CTLD_PORT:-6817}
SLURMD_PORT=${SLURM_CLUSTER_SLURMD_PORT:-6818}
CLUSTER_NAME=${SLURM_CLUSTER_NAME:-netsim}
STOP_TIMEOUT=10

# Never let a closed stderr abort us half-way (see the PIPE trap for stop).
log() { printf '%s: %s\n' "$PROG" "$*" >&2 || true; }
die() { log "error: $*"; exit 1; }

usage() {
    cat >&2 <<EOF
usage: $PROG start DIR    start munged, slurmctld, slurmd under DIR
       $PROG stop DIR     stop the daemons recorded in DIR/pids
       $PROG status DIR   show sinfo/squeue for the cluster in DIR
EOF
    exit 2
}

# --- helpers -----------------------------------------------------------------

# abs_dir DIR [create]: print the absolute, symlink-free path of DIR.
abs_dir() {
    local d=$1
    if [[ ${2:-} == create ]]; then
        mkdir -p -- "$d"
    fi
    [[ -d $d ]] || return 1
    (cd -- "$d" && pwd -P)
}

# Slurm's config parser splits on whitespace and treats '#' as a comment, and
# the munge socket path must fit into sockaddr_un.sun_path (108 bytes), so
# refuse anything exotic rather than produce a subtly broken cluster.
check_dir_name() {
    local d=$1
    [[ $d =~ ^[A-Za-z0-9._/+-]+$ ]] ||
        die "DIR '$d' contains characters Slurm cannot handle (allowed: A-Za-z0-9._/+-)"
    # "$d/munge.sock.lock" must stay below 108 bytes.
    ((${#d} <= 90)) ||
        die "DIR '$d' is too long for a unix socket path (keep it at most 90 chars)"
}

# True if pid is alive and its command name is $2 (guards against pid reuse).
pid_is() {
    local pid=$1 name=$2 comm
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    comm=$(cat "/proc/$pid/comm" 2>/dev/null) || return 1
    [[ $comm == "$name" ]]
}

# True if something accepts TCP connections on 127.0.0.1:$1.
port_in_use() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

short_hostname() {
    local h
    h=$(hostname -s 2>/dev/null) || h=$(uname -n)
    h=${h%%.*}
    [[ -n $h ]] || die "cannot determine the host name"
    printf '%s\n' "$h"
}

have_all_binaries() {
    local c
    for c in slurmctld slurmd sbatch squeue sinfo scontrol scancel munged munge mungekey; do
        command -v "$c" >/dev/null 2>&1 || return 1
    done
}

ensure_packages() {
    have_all_binaries && return 0
    if [[ $(id -u) -ne 0 ]]; then
        die "Slurm/MUNGE binaries (slurmctld slurmd sbatch munged mungekey) are missing" \
            "and we are not root; install them with:" \
            "apt-get install slurm-wlm munge"
    fi
    command -v apt-get >/dev/null 2>&1 ||
        die "Slurm/MUNGE binaries are missing and apt-get is not available"
    local pkgs=(slurm-wlm munge)
    log "installing ${pkgs[*]} (this takes ~10-60 s) ..."
    local aptlog
    aptlog=$(mktemp /tmp/slurm-cluster-apt.XXXXXX)
    export DEBIAN_FRONTEND=noninteractive
    # Try without `apt-get update` first (fast when package lists are present,
    # e.g. on a re-used machine); fall back to updating the lists.
    if ! apt-get install -y --no-install-recommends "${pkgs[@]}" >"$aptlog" 2>&1; then
        log "apt-get install failed; running apt-get update and retrying"
        if ! { apt-get update && apt-get install -y --no-install-recommends "${pkgs[@]}"; } \
            >>"$aptlog" 2>&1; then
            tail -n 30 "$aptlog" >&2
            rm -f "$aptlog"
            die "installing ${pkgs[*]} failed"
        fi
    fi
    rm -f "$aptlog"
    hash -r
    have_all_binaries || die "packages installed but binaries still missing from PATH"
    log "packages installed"
}

# wait_pidfile FILE NAME SECONDS: wait until FILE holds the pid of a live
# process called NAME and print that pid.
wait_pidfile() {
    local file=$1 name=$2 secs=$3 pid i
    for ((i = 0; i < secs * 10; i++)); do
        if [[ -s $file ]]; then
            pid=$(tr -dc '0-9' <"$file")
            if [[ -n $pid ]] && pid_is "$pid" "$name"; then
                printf '%s\n' "$pid"
                return 0
            fi
        fi
        sleep 0.1
    done
    return 1
}

print_logs() {
    local dir=$1 f
    for f in "$dir"/log/munged.log "$dir"/log/slurmctld.log "$dir"/log/slurmd.log \
        "$dir"/log/*.stdio; do
        [[ -s $f ]] || continue
        printf '\n===== tail of %s =====\n' "$f" >&2
        tail -n 25 "$f" >&2
    done
}

# --- stop --------------------------------------------------------------------

do_stop() {
    local dir=$1 pidfile=$1/pids
    if [[ ! -f $pidfile ]]; then
        log "nothing to stop in $dir"
        return 0
    fi

    local names=() pids=() name pid
    while read -r name pid _; do
        [[ -n ${name:-} && -n ${pid:-} ]] || continue
        names+=("$name")
        pids+=("$pid")
    done <"$pidfile"

    # Cancel jobs first so slurmd can reap their slurmstepd processes (those
    # are not in DIR/pids and would otherwise outlive the cluster).
    local i ctld_alive=0
    for i in "${!names[@]}"; do
        if [[ ${names[$i]} == slurmctld ]] && pid_is "${pids[$i]}" slurmctld; then
            ctld_alive=1
        fi
    done
    if ((ctld_alive)) && [[ -f $dir/slurm.conf ]]; then
        local jobs
        jobs=$(SLURM_CONF=$dir/slurm.conf timeout 10 squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ') || jobs=
        if [[ -n ${jobs// /} ]]; then
            log "cancelling jobs: $jobs"
            # shellcheck disable=SC2086
            SLURM_CONF=$dir/slurm.conf timeout 10 scancel $jobs 2>/dev/null || true
            for ((i = 0; i < 100; i++)); do
                [[ -z $(SLURM_CONF=$dir/slurm.conf timeout 5 squeue -h -o %A 2>/dev/null) ]] && break
                sleep 0.1
            done
        fi
    fi

    # TERM in reverse start order (slurmd, slurmctld, munged).
    local alive=()
    for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
        if pid_is "${pids[$i]}" "${names[$i]}"; then
            log "stopping ${names[$i]} (pid ${pids[$i]})"
            kill -TERM "${pids[$i]}" 2>/dev/null || true
            alive+=("$i")
        fi
    done

    local deadline=$((SECONDS + STOP_TIMEOUT)) still
    while ((${#alive[@]})); do
        still=()
        for i in "${alive[@]}"; do
            pid_is "${pids[$i]}" "${names[$i]}" && still+=("$i")
        done
        alive=("${still[@]+"${still[@]}"}")
        ((${#alive[@]})) || break
        if ((SECONDS >= deadline)); then
            for i in "${alive[@]}"; do
                log "${names[$i]} (pid ${pids[$i]}) ignored SIGTERM; sending SIGKILL"
                kill -KILL "${pids[$i]}" 2>/dev/null || true
            done
            sleep 0.2
            break
        fi
        sleep 0.1
    done

    rm -f -- "$pidfile"
    log "stopped cluster in $dir"
}

# --- start -------------------------------------------------------------------

write_slurm_conf() {
    local dir=$1 host=$2 cpus=$3 mem=$4
    cat >"$dir/slurm.conf" <<EOF
# Generated by scripts/slurm-cluster.sh - throw-away single-node cluster.
# Do not edit; it is rewritten on every "start".

ClusterName=$CLUSTER_NAME
# Controller host is this machine.  The "(addr)" suffix pins the address so
# Slurm does not depend on DNS / /etc/hosts resolving the host name.
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT

# Authentication through our private munged.  AuthInfo=socket= is read by
# auth/munge and cred/munge in the daemons *and* in the client commands
# (sbatch, squeue, ...), which all read this file via SLURM_CONF.
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock

# Run everything as root: no slurm user / file ownership juggling needed.
SlurmUser=root
SlurmdUser=root

# All state, spool, pid and log files live inside DIR.
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# Keep the spank plugin stack private too (the file need not exist).
PlugStackConfig=$dir/plugstack.conf

# No cgroups anywhere: track job processes through /proc parentage and do
# no CPU binding/confinement.  Works without systemd or a delegated cgroup.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none

# No slurmdbd: sacct does not work.  Instead a line per finished job (and
# array task) with its JobState and ExitCode is appended to jobcomp.log.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/log/jobcomp.log
# Keep finished jobs visible to squeue --states=all / scontrol show job for
# an hour (default 300 s) so callers can read their final state.
MinJobAge=3600

# Allocate individual cores (not whole nodes) so several 1-CPU jobs or array
# tasks run on the node concurrently.  The node below declares only CPUs=,
# so each CPU counts as one core.
SchedulerType=sched/backfill
# Start jobs as soon as they are submitted / their dependency is satisfied
# instead of batching scheduling passes (defaults: 3 s delay and throttling).
# Cuts a 4-job dependency chain from ~6-12 s to ~3-4 s.
SchedulerParameters=batch_sched_delay=0,sched_min_interval=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
# Cancel a job whose dependency can never be satisfied (e.g. afterok on a
# job that failed) instead of leaving it pending forever with reason
# DependencyNeverSatisfied, so pollers waiting for it terminate.
DependencyParameters=kill_invalid_depend

# A node that was DOWN (e.g. after a restart) becomes usable again as soon
# as its slurmd registers with a valid configuration.
ReturnToService=2
# Trust the CPU/memory numbers below instead of draining the node when the
# hardware probe disagrees (hyperthreads, cpusets, memory rounding).
SlurmdParameters=config_overrides
# Short grace period between SIGTERM and SIGKILL on scancel/time limit, so
# "stop" is quick.
KillWait=5
# No mail program is installed; avoids an error in slurmctld.log.
MailProg=/bin/true

NodeName=$host NodeHostname=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
}

start_failed() {
    local dir=$1
    log "start failed; daemon logs follow"
    print_logs "$dir"
    do_stop "$dir" || true
}

do_start() {
    local dir=$1 name pid

    # Refuse to start twice in the same DIR (before arming the cleanup trap:
    # those daemons are not ours to stop).
    if [[ -f $dir/pids ]]; then
        while read -r name pid _; do
            if [[ -n ${pid:-} ]] && pid_is "$pid" "$name"; then
                die "a cluster is already running in $dir ($name pid $pid); run '$PROG stop $dir' first"
            fi
        done <"$dir/pids"
        rm -f -- "$dir/pids"
    fi

    local port
    for port in "$CTLD_PORT" "$SLURMD_PORT"; do
        if port_in_use "$port"; then
            die "TCP port $port is already in use (another slurmctld/slurmd?);" \
                "stop it or set SLURM_CLUSTER_CTLD_PORT/SLURM_CLUSTER_SLURMD_PORT"
        fi
    done

    # From here on, anything started is stopped again if we fail.
    trap 'start_failed "$dir"' EXIT

    mkdir -p "$dir"/{state,spool,run,log}
    chmod 0755 "$dir" "$dir"/{state,spool,run,log}
    : >"$dir/pids"

    local host cpus hwcpus mem
    host=$(short_hostname)
    # `nproc` honours OMP_NUM_THREADS; we want the CPUs we may actually use.
    cpus=${SLURM_CLUSTER_CPUS:-$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc)}
    hwcpus=$(slurmd -C 2>/dev/null | sed -n 's/.*[[:space:]]CPUs=\([0-9]*\).*/\1/p' | head -n1) || hwcpus=
    mem=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -n1) || mem=
    if [[ -z $mem ]]; then
        mem=$(awk '/^MemTotal:/ { print int($2 / 1024) }' /proc/meminfo)
    fi
    # Advertise ~95% of the memory (at least 1 MB) so memory rounding never
    # makes the node look smaller than configured.
    mem=$((mem * 95 / 100))
    ((mem >= 1)) || mem=1
    [[ $cpus =~ ^[1-9][0-9]*$ ]] || die "bad CPU count '$cpus'"
    log "host=$host cpus=$cpus (hardware: ${hwcpus:-?}) memory=${mem}MB dir=$dir"

    write_slurm_conf "$dir" "$host" "$cpus" "$mem"
    export SLURM_CONF=$dir/slurm.conf

    # --- munged ------------------------------------------------------------
    # One key per cluster; must be private to its owner (root) or munged
    # refuses it.  Re-used if DIR already has one.
    if [[ ! -s $dir/munge.key ]]; then
        rm -f -- "$dir/munge.key"
        if ! mungekey --create --keyfile="$dir/munge.key" >/dev/null 2>&1; then
            dd if=/dev/urandom of="$dir/munge.key" bs=1 count=1024 status=none
        fi
    fi
    chmod 0400 "$dir/munge.key"
    rm -f -- "$dir/run/munged.pid"
    # --force: proceed despite non-fatal warnings (e.g. permissive parent
    # directories such as /tmp, or a stale socket from a killed munged).
    munged --force \
        --socket="$dir/munge.sock" \
        --key-file="$dir/munge.key" \
        --pid-file="$dir/run/munged.pid" \
        --log-file="$dir/log/munged.log" \
        --seed-file="$dir/munged.seed" \
        </dev/null >>"$dir/log/munged.stdio" 2>&1 ||
        die "munged failed to start"
    pid=$(wait_pidfile "$dir/run/munged.pid" munged 10) || die "munged did not start"
    echo "munged $pid" >>"$dir/pids"
    munge --socket="$dir/munge.sock" -n </dev/null |
        unmunge --socket="$dir/munge.sock" >/dev/null 2>&1 ||
        die "munged is running but munge/unmunge round trip failed"

    # --- slurmctld ---------------------------------------------------------
    rm -f -- "$dir/run/slurmctld.pid" "$dir/run/slurmd.pid"
    # Without -D the daemons fork into the background; stdio is redirected so
    # a caller capturing our stdout with $(...) never waits on them.
    slurmctld -f "$SLURM_CONF" </dev/null >>"$dir/log/slurmctld.stdio" 2>&1 ||
        die "slurmctld failed to start"
    pid=$(wait_pidfile "$dir/run/slurmctld.pid" slurmctld 15) || die "slurmctld did not start"
    echo "slurmctld $pid" >>"$dir/pids"

    # --- slurmd ------------------------------------------------------------
    slurmd -f "$SLURM_CONF" -N "$host" </dev/null >>"$dir/log/slurmd.stdio" 2>&1 ||
        die "slurmd failed to start"
    pid=$(wait_pidfile "$dir/run/slurmd.pid" slurmd 15) || die "slurmd did not start"
    echo "slurmd $pid" >>"$dir/pids"

    # --- wait for the node ---------------------------------------------------
    local state="" deadline=$((SECONDS + START_TIMEOUT))
    while :; do
        state=$(timeout 10 sinfo -h -N -n "$host" -o %t 2>/dev/null | head -n1) || state=
        [[ $state == idle ]] && break
        local n
        for n in munged slurmctld slurmd; do
            pid=$(awk -v n="$n" '$1 == n { print $2 }' "$dir/pids")
            pid_is "$pid" "$n" || die "$n (pid $pid) exited during startup"
        done
        if ((SECONDS >= deadline)); then
            timeout 10 sinfo -R >&2 2>/dev/null || true
            die "node $host not idle after ${START_TIMEOUT}s (state: '${state:-unknown}')"
        fi
        sleep 0.2
    done

    # slurmctld runs its first main scheduling pass ~3 s after it starts;
    # jobs submitted before that just sit in PD with reason "None".  Wait for
    # that pass (sdiag "Total cycles" >= 1) so that "started" means "jobs
    # start immediately".  Not fatal if sdiag is unavailable.
    local cycles=""
    while ((SECONDS < deadline)); do
        cycles=$(timeout 10 sdiag 2>/dev/null |
            awk '/^Main schedule statistics/ { m = 1 } m && /Total cycles:/ { print $3; exit }') ||
            cycles=""
        [[ -z $cycles || $cycles -gt 0 ]] && break
        sleep 0.2
    done

    trap - EXIT
    log "cluster up: node $host idle with $cpus CPUs; logs in $dir/log"
    printf 'export SLURM_CONF=%q\n' "$dir/slurm.conf"
}

do_status() {
    local dir=$1 name pid
    [[ -f $dir/slurm.conf ]] || die "no cluster config in $dir"
    if [[ -f $dir/pids ]]; then
        while read -r name pid _; do
            if pid_is "$pid" "$name"; then
                echo "$name $pid running"
            else
                echo "$name $pid NOT running"
            fi
        done <"$dir/pids"
    else
        echo "no daemons recorded (not started or stopped)"
    fi
    export SLURM_CONF=$dir/slurm.conf
    timeout 10 sinfo || true
    timeout 10 squeue --states=all || true
}

# --- main --------------------------------------------------------------------

(($# == 2)) || usage
cmd=$1
case $cmd in
start)
    dir=$(abs_dir "$2" create) || die "cannot create directory '$2'"
    check_dir_name "$dir"
    ensure_packages
    # slurmd must be root to launch jobs (SlurmdUser=root) and munged/slurmctld
    # are configured to run as root too.
    [[ $(id -u) -eq 0 ]] || die "start must be run as root (the daemons run as root)"
    do_start "$dir"
    ;;
stop)
    # Finish stopping even if whoever reads our stderr went away
    # (e.g. `... stop DIR 2>&1 | head -1`).
    trap '' PIPE
    dir=$(abs_dir "$2") || { log "nothing to stop: '$2' does not exist"; exit 0; }
    do_stop "$dir"
    ;;
status)
    dir=$(abs_dir "$2") || die "'$2' does not exist"
    do_status "$dir"
    ;;
*)
    usage
    ;;
esac
