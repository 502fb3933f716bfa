#!/usr/bin/env bash
# slurm.sh: a one-node Slurm on localhost, for trying the batch scripts
# (scripts/slurm/*.sbatch) on a laptop or workstation; scripts/slurm-test.sh
# (make test) starts and stops its own with it.
#
#   scripts/slurm.sh up                 # make slurm-up: start it
#   eval "$(scripts/slurm.sh env)"      # export SLURM_CONF=... for sbatch, srun
#   sbatch --ntasks=2 scripts/slurm/golomb.sbatch 10
#   scripts/slurm.sh status             # make slurm-status: sinfo, squeue
#   scripts/slurm.sh down               # make slurm-down: stop it, no daemon left
#
# up writes a Slurm configuration for this machine (slurmd -C: its CPUs,
# cores and memory; --cpus N declares N CPUs instead, so that scripts
# written for more tasks than the machine has cores run, their ranks sharing
# the cores) into the state directory, with a munge key of its own, and
# starts munged (as user munge), slurmctld and slurmd there on free ports,
# with one partition, "treelb". It waits until the node is idle and prints
# the SLURM_CONF to export for sbatch, srun and squeue; as root on a machine
# without /etc/slurm/slurm.conf it links that file to the configuration
# (unless --no-system-conf or TREELB_SLURM_SYSTEM_CONF=no), so that they
# find it with no export at all. env prints the export line alone.
# Missing slurm-wlm or munge are installed with apt-get when root (saying
# so). down cancels the jobs, waits for them to leave, stops the three
# daemons by their pid files, removes the link it made and the directory.
#
# Flags: --dir DIR (the state directory; default $TREELB_SLURM_DIR, else
# /tmp/treelb-slurm), --cpus N (up), --no-system-conf (up), -h/--help.
# Exit status: 0 done; 1 a daemon failed (its log is printed); 2 bad
# flags; 3 Slurm cannot run here (not Linux, not root, packages missing),
# with the reason.
set -euo pipefail
. "$(dirname "$0")/args.sh"

cmd=${1:-}
[ $# -eq 0 ] || shift
dir=${TREELB_SLURM_DIR:-/tmp/treelb-slurm}
cpus=
sysconf=${TREELB_SLURM_SYSTEM_CONF:-yes}
while [ $# -gt 0 ]; do
	case $1 in
	--dir | -dir) dir=${2:?--dir needs a directory}; shift 2 ;;
	--dir=*) dir=${1#*=}; shift ;;
	--cpus | -cpus) cpus=${2:?--cpus needs a number}; shift 2 ;;
	--cpus=*) cpus=${1#*=}; shift ;;
	--no-system-conf) sysconf=no; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "slurm.sh: unknown flag $1 (--help lists them)" >&2; exit 2 ;;
	esac
done
case $cmd in
up | down | status | env) ;;
-h | --help | help) usage; exit 0 ;;
*) echo "slurm.sh: want up, down, status or env, not '$cmd' (--help)" >&2; exit 2 ;;
esac
if [ -n "$cpus" ] && ! [[ $cpus =~ ^[1-9][0-9]*$ ]]; then
	echo "slurm.sh: --cpus $cpus: want a positive number" >&2
	exit 2
fi
dir=$(realpath -m "$dir")
conf=$dir/slurm.conf
SLURM_DEBS="slurm-wlm munge"

cannot() {
	echo "slurm.sh: cannot start a local Slurm: $*" >&2
	exit 3
}

daemons_missing() {
	local c
	for c in munged slurmctld slurmd sbatch srun squeue scontrol sinfo scancel; do
		command -v "$c" >/dev/null || echo -n "$c "
	done
}

# alive NAME: the daemon NAME (slurmctld, slurmd, munged) of dir runs.
alive() {
	local f=$dir/$1.pid
	[ "$1" != munged ] || f=$dir/munge-run/munged.pid
	[ -f "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null
}

# free_port P: a free TCP port from P on.
free_port() {
	local p
	for p in $(seq "$1" $(($1 + 200))); do
		if ! ss -Htln "sport = :$p" 2>/dev/null | grep -q .; then
			echo "$p"
			return
		fi
	done
	echo "$1"
}

# stop_pid FILE: end the process of a pid file, waiting up to 10 s.
stop_pid() {
	local pid i
	[ -f "$1" ] || return 0
	pid=$(cat "$1")
	kill "$pid" 2>/dev/null || return 0
	for i in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || return 0
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
}

down() {
	local i left=
	if [ ! -d "$dir" ]; then
		echo "slurm.sh: no local Slurm in $dir"
		return 0
	fi
	if alive slurmctld; then
		SLURM_CONF=$conf scancel --quiet --full $(SLURM_CONF=$conf squeue -h -o %i 2>/dev/null) 2>/dev/null || true
		for i in $(seq 150); do
			[ -n "$(SLURM_CONF=$conf squeue -h -o %i 2>/dev/null)" ] || break
			sleep 0.2
		done
	fi
	stop_pid "$dir/slurmd.pid"
	stop_pid "$dir/slurmctld.pid"
	stop_pid "$dir/munge-run/munged.pid"
	for d in slurmd slurmctld munged; do
		! alive "$d" || left+="$d "
	done
	if [ -L /etc/slurm/slurm.conf ] && [ "$(readlink /etc/slurm/slurm.conf)" = "$conf" ]; then
		rm -f /etc/slurm/slurm.conf
	fi
	if [ -n "$left" ]; then
		echo "slurm.sh: still running: $left(state in $dir)" >&2
		return 1
	fi
	rm -rf "$dir"
	echo "slurm.sh: local Slurm stopped, $dir removed"
}

status() {
	local d
	for d in munged slurmctld slurmd; do
		if alive "$d"; then echo "$d: running"; else echo "$d: not running"; fi
	done
	if alive slurmctld; then
		echo "export SLURM_CONF=$conf"
		SLURM_CONF=$conf sinfo
		SLURM_CONF=$conf squeue
	else
		return 1
	fi
}

print_env() {
	if ! alive slurmctld; then
		echo "slurm.sh: no local Slurm runs in $dir (make slurm-up starts one)" >&2
		return 1
	fi
	echo "export SLURM_CONF=$conf"
}

# failed WHAT: print the daemons' logs, stop what started, exit 1.
failed() {
	tail -n 20 "$dir"/log/*.log "$dir/munge/munged.log" 2>/dev/null || true
	echo "slurm.sh: $1" >&2
	down >/dev/null 2>&1 || true
	exit 1
}

up() {
	local start=$SECONDS host node cores ctld_port slurmd_port i
	if alive slurmctld; then
		echo "slurm.sh: a local Slurm is already up in $dir"
		echo "export SLURM_CONF=$conf"
		return 0
	fi
	[ "$(uname -s)" = Linux ] || cannot "not Linux"
	[ "$(id -u)" -eq 0 ] || cannot "slurmd must run as root (run it as root, e.g. sudo make slurm-up)"
	if [ -n "$(daemons_missing)" ] && command -v apt-get >/dev/null; then
		echo "slurm.sh: installing $SLURM_DEBS with apt-get (missing: $(daemons_missing))"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq && apt-get install -y -qq $SLURM_DEBS >/dev/null || echo "slurm.sh: apt-get install failed"
	fi
	[ -z "$(daemons_missing)" ] || cannot "missing $(daemons_missing)(install $SLURM_DEBS)"
	id munge >/dev/null 2>&1 || cannot "no user munge to run munged as"
	command -v runuser >/dev/null || cannot "no runuser to start munged as user munge"

	rm -rf "$dir"
	mkdir -p "$dir"/{munge,munge-run,state,spool,log}
	chmod 755 "$dir"
	# munged with a key and logs of its own (munge/, its own alone) and a
	# socket every user reaches (munge-run/).
	dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
	chown -R munge:munge "$dir/munge" "$dir/munge-run"
	chmod 700 "$dir/munge"
	chmod 755 "$dir/munge-run"
	chmod 400 "$dir/munge/munge.key"
	runuser -u munge -- munged --socket="$dir/munge-run/munge.sock" --key-file="$dir/munge/munge.key" \
		--pid-file="$dir/munge-run/munged.pid" --log-file="$dir/munge/munged.log" \
		--seed-file="$dir/munge/munged.seed" || failed "munged did not start"

	# One node, this machine as slurmd sees it (CPUs, sockets, cores,
	# threads, memory), or with --cpus N that many CPUs of one core each.
	host=$(hostname -s)
	node=$(slurmd -C | head -1 | sed 's/ UpTime=.*//')
	node=${node/NodeName=* CPUs=/NodeName=$host CPUs=}
	overrides=
	task=task/affinity
	if [ -n "$cpus" ]; then
		node="NodeName=$host CPUs=$cpus Boards=1 SocketsPerBoard=1 CoresPerSocket=$cpus ThreadsPerCore=1 $(grep -o 'RealMemory=[0-9]*' <<<"$node")"
		overrides="SlurmdParameters=config_overrides"
		# The declared CPUs are not the machine's: binding a task to each
		# failed for a step of all N tasks ("Unable to layout tasks on
		# given cpus": slurmd found 2 CPUs for 64 tasks).
		task=task/none
	fi
	ctld_port=$(free_port 16817)
	slurmd_port=$(free_port $((ctld_port + 1)))
	cat >"$conf" <<EOF
# A one-node Slurm on localhost, written by scripts/slurm.sh.
ClusterName=treelb
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge-run/munge.sock
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=$task
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
$overrides
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=treelb Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOF
	SLURM_CONF=$conf slurmctld -f "$conf" || failed "slurmctld did not start"
	SLURM_CONF=$conf slurmd -f "$conf" || failed "slurmd did not start"
	for i in $(seq 60); do
		[ "$(SLURM_CONF=$conf sinfo -h -o %T 2>/dev/null)" = idle ] && break
		sleep 0.5
	done
	if [ "$(SLURM_CONF=$conf sinfo -h -o %T 2>/dev/null)" != idle ]; then
		SLURM_CONF=$conf sinfo || true
		failed "the Slurm node did not come up"
	fi
	echo "slurm.sh: Slurm up on $host in $((SECONDS - start))s (ports $ctld_port, $slurmd_port): $node"
	if [ "$sysconf" = yes ] && [ ! -e /etc/slurm/slurm.conf ] && [ ! -L /etc/slurm/slurm.conf ]; then
		mkdir -p /etc/slurm && ln -s "$conf" /etc/slurm/slurm.conf &&
			echo "slurm.sh: /etc/slurm/slurm.conf links to $conf until slurm.sh down"
	fi
	echo "export SLURM_CONF=$conf"
}

case $cmd in
up) up ;;
down) down ;;
status) status ;;
env) print_env ;;
esac
