#!/usr/bin/env bash
# slurm-test.sh: the Slurm batch scripts for real, on a one-node Slurm that
# this script starts on localhost and stops again with scripts/slurm.sh (the
# script of make slurm-up and make slurm-down), in a temporary directory.
#
# As root on Linux (slurm.sh installs slurm-wlm and munge with apt-get when
# they are missing, saying so), for each MPI implementation (Open MPI: srun
# --mpi=pmix; MPICH: srun --mpi=pmi2):
#   - submits scripts/slurm/golomb.sbatch 10 on 4 tasks and checks the ruler
#     of length 55 found by a world of 4 ranks;
#   - submits scripts/slurm/speedup.sbatch golomb 10 on 4 tasks and checks
#     its four runs (seq; rp on 1, 2 and 4 ranks) in the JSON lines, the
#     campaign runner's CSV (a row per run, with run_* and JSON columns)
#     and its plots;
#   - submits scripts/slurm/resumable.sbatch fifteen (ten of Korf's
#     instances) on 2 tasks with periodic checkpoints, sends its batch
#     shell SIGUSR1 (scancel --signal=USR1 --batch) once the first one is
#     written, and checks that the job checkpointed, requeued itself,
#     restarted from the file and solved the rest;
#   - submits golomb.sbatch with the other implementation's plugin
#     (SRUN_MPI), which must fail: the MPICH build under --mpi=pmix with
#     exit status 2 and a message naming --mpi=pmi2 (mpi.LaunchError), the
#     Open MPI build under --mpi=pmi2 in Open MPI's own MPI_Init;
# and checks that the embedded build stops with status 2 under srun -n 2
# (saying so once) and in golomb.sbatch, and that resumable.sbatch and
# speedup.sbatch refuse a checkpoint or a campaign left at their default
# path by an earlier job with the same id. It waits for the jobs, checks their
# outputs and states, and stops the local Slurm, checking that no daemon is
# left. Without root, Linux, apt-get or an MPI implementation it says which
# Slurm tests it SKIPPED and why, and exits 0; as root on Linux with apt-get,
# where make test installs what it needs, tests that cannot run fail it
# (TREELB_SKIP_MISSING=1 skips them instead).
#
#   scripts/slurm-test.sh                    # both implementations
#   MPI_IMPLS=mpich scripts/slurm-test.sh    # one of them
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_args "$@"
cd "$(dirname "$0")/.."
repo=$(pwd)

GO=${GO:-go}
IMPLS=${MPI_IMPLS:-openmpi mpich}
TIMEOUT=${SLURM_TEST_TIMEOUT:-240} # seconds for all jobs together
start=$SECONDS

skip() {
	local what="the Slurm tests (golomb.sbatch, speedup.sbatch, resumable.sbatch, wrong srun plugin, embedded build under srun) for $IMPLS"
	if [ "$(id -u)" -eq 0 ] && [ "$(uname -s)" = Linux ] && command -v apt-get >/dev/null && [ -z "${TREELB_SKIP_MISSING:-}" ]; then
		# Root on Linux with apt-get: make test installs what it needs, so
		# tests that still cannot run failed (TREELB_SKIP_MISSING=1 skips).
		echo "FAIL: $what cannot run: $*"
		exit 1
	fi
	echo "SKIPPED: $what: $*"
	exit 0
}

impl_tags() { case $1 in openmpi) echo mpi ;; mpich) echo mpi,mpich ;; embedded) echo "" ;; esac; }
impl_pc() { case $1 in openmpi) echo ompi-c ;; mpich) echo mpich ;; esac; }
other_plugin() { case $1 in openmpi) echo pmi2 ;; mpich) echo pmix ;; esac; }

work=$(mktemp -d /tmp/treelb-slurm-test.XXXXXX)
chmod 755 "$work"
mkdir -p "$work/out" "$work/bin"
slurm=$work/slurm

# stop: the local Slurm down (scripts/slurm.sh down: jobs cancelled, every
# daemon stopped), the directory removed.
stop() {
	bash scripts/slurm.sh down --dir "$slurm" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap stop EXIT

# The local Slurm, as make slurm-up starts it (scripts/slurm.sh): exit
# status 3 means it cannot run here, which skips the tests.
rc=0
up=$(bash scripts/slurm.sh up --dir "$slurm" --no-system-conf 2>&1) || rc=$?
case $rc in
0) echo "--- ${up//$'\n'/$'\n'--- }" ;;
3) skip "${up##*cannot start a local Slurm: }" ;;
*)
	echo "$up"
	echo "FAIL: scripts/slurm.sh up: exit status $rc"
	exit 1
	;;
esac
export SLURM_CONF=$slurm/slurm.conf
unset SRUN_MPI BIN RESULTS
# The daemons' pids, to check that slurm.sh down leaves none.
pids=$(cat "$slurm/slurmctld.pid" "$slurm/slurmd.pid" "$slurm/munge-run/munged.pid")

impls=""
for impl in $IMPLS; do
	if pkg-config --exists "$(impl_pc "$impl")" 2>/dev/null; then
		impls="$impls $impl"
	else
		if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null && [ -z "${TREELB_SKIP_MISSING:-}" ]; then
			echo "FAIL: the Slurm tests of $impl cannot run: pkg-config finds no $(impl_pc "$impl") (scripts/mpi-test.sh installs it; TREELB_SKIP_MISSING=1 skips)"
			exit 1
		fi
		echo "SKIPPED: the Slurm tests of $impl: pkg-config finds no $(impl_pc "$impl") (scripts/mpi-test.sh installs it)"
	fi
done

failures=()
fail() {
	failures+=("$1")
	echo "FAIL $1"
}

# Builds: golomb for each implementation, and the embedded one; the
# campaign runner next to each (as make mpi puts it), for speedup.sbatch.
for b in $impls embedded; do
	mkdir -p "$work/bin/$b"
	$GO build -tags "$(impl_tags "$b")" -o "$work/bin/$b/golomb" ./apps/golomb || fail "golomb [$b] build"
	$GO build -o "$work/bin/$b/campaign" ./scripts/campaign || fail "campaign [$b] build"
done
for b in $impls; do
	$GO build -tags "$(impl_tags "$b")" -o "$work/bin/$b/fifteen" ./apps/fifteen || fail "fifteen [$b] build"
done

# submit NAME [VAR=VALUE...] -- SBATCH_ARGS...: submit a job from the
# repository's root with the given environment, its output in
# $work/out/NAME.out; remembers NAME's job id.
declare -A jobs
submit() {
	local name=$1 id
	shift
	local envs=()
	while [ "$1" != -- ]; do
		envs+=("$1")
		shift
	done
	shift
	if id=$(env "${envs[@]}" sbatch --parsable --chdir="$repo" -o "$work/out/$name.out" "$@"); then
		jobs[$name]=${id%%;*}
	else
		fail "$name: sbatch failed"
	fi
}

# signal_resumable IMPL JOB: sends the batch shell of the resumable job
# SIGUSR1 (as --signal=B:USR1@120 does at the end of its time) once the
# search runs, when its first periodic checkpoint exists; then, as an
# operator would, lets the requeued job start at once instead of after
# Slurm's hold of a minute or two (BeginTime).
signal_resumable() {
	local impl=$1 id=$2 i
	for i in $(seq $((TIMEOUT * 10))); do
		[ -f "$work/out/fifteen-$id.ckpt" ] && break
		sleep 0.1
	done
	scancel --signal=USR1 --batch "$id" && echo "     resumable-$impl (job $id): sent SIGUSR1 after its first checkpoint"
	for i in $(seq $((TIMEOUT * 2))); do
		if [ "$(squeue -h -j "$id" -o '%T %r' 2>/dev/null)" = "PENDING BeginTime" ]; then
			scontrol update JobId="$id" StartTime=now && echo "     resumable-$impl (job $id): requeued; released its BeginTime hold"
			return
		fi
		sleep 0.5
	done
}

# The embedded build under srun directly, first, while the node is free.
rc=0
timeout -k 10 60 srun -O -n 2 "$work/bin/embedded/golomb" 9 >"$work/out/srun-embedded.out" 2>&1 || rc=$?
if [ "$rc" -eq 2 ] && grep -qF "this is the embedded build (goroutine ranks, no MPI), started by srun" "$work/out/srun-embedded.out"; then
	echo "ok   embedded build under srun -n 2: status 2, says why"
else
	cat "$work/out/srun-embedded.out"
	fail "embedded build under srun -n 2: exit status $rc, want 2 and a message"
fi

# A checkpoint or a campaign at a job's default path when the job first
# starts is an earlier job's with the same id (Slurm reuses ids after its
# state is reset): the batch scripts refuse to take it for their own, and
# leave it as it was. They run here as a batch step would, outside Slurm.
read -r impl1 _ <<<"$impls" || true # impls starts with a blank
if [ -n "$impl1" ]; then
	mkdir -p "$work/stale"
	for job in resumable speedup; do
		case $job in
		resumable) stale=$work/stale/golomb-999999.ckpt envs=(CKPT_DIR="$work/stale") ;;
		speedup) stale=$work/stale/speedup-999999.csv envs=(RESULTS="$work/stale") ;;
		esac
		echo "an earlier job's" >"$stale"
		rc=0
		env -u SLURM_RESTART_COUNT SLURM_JOB_ID=999999 BIN="$work/bin/$impl1" "${envs[@]}" \
			timeout -k 10 60 bash "scripts/slurm/$job.sbatch" golomb 9 >"$work/out/stale-$job.out" 2>&1 || rc=$?
		if [ "$rc" -eq 2 ] && grep -qF "an earlier job's with the same id" "$work/out/stale-$job.out" &&
			[ "$(cat "$stale")" = "an earlier job's" ]; then
			echo "ok   $job.sbatch with $(basename "$stale") left by an earlier job 999999: status 2, the file kept"
		else
			cat "$work/out/stale-$job.out"
			fail "$job.sbatch with $(basename "$stale") left by an earlier job: exit status $rc, want 2 and the file kept"
		fi
	done
fi

for impl in $impls; do
	bin=$work/bin/$impl
	submit "golomb-$impl" BIN="$bin" -- -O -n 4 scripts/slurm/golomb.sbatch 10
	submit "speedup-$impl" BIN="$bin" RESULTS="$work/out/speedup-$impl" -- -O -n 4 scripts/slurm/speedup.sbatch golomb 10
	submit "wrong-plugin-$impl" BIN="$bin" SRUN_MPI="$(other_plugin "$impl")" -- -O -n 2 scripts/slurm/golomb.sbatch 9
	# Checkpointed by a signal once its first periodic checkpoint is
	# written (below), requeued, and resumed until done.
	submit "resumable-$impl" BIN="$bin" CKPT_DIR="$work/out" CHECKPOINT_EVERY=100ms -- -O -n 2 \
		scripts/slurm/resumable.sbatch fifteen --korf 12,25,11,10,26,21,1,37,27,7
	[ -z "${jobs[resumable-$impl]:-}" ] || signal_resumable "$impl" "${jobs[resumable-$impl]}" &
done
submit "golomb-embedded" BIN="$work/bin/embedded" -- -O -n 2 scripts/slurm/golomb.sbatch 9

# Wait for every job to leave the queue.
deadline=$((SECONDS + TIMEOUT))
while [ -n "$(squeue -h -o %i)" ]; do
	if [ "$SECONDS" -ge "$deadline" ]; then
		squeue
		fail "jobs still queued or running after ${TIMEOUT}s"
		break
	fi
	sleep 1
done

# state NAME: the job's final state and exit code, e.g. "COMPLETED 0:0".
state() {
	scontrol -o show job "${jobs[$1]}" | sed -n 's/.*JobState=\([A-Z_]*\) .*ExitCode=\([0-9:]*\).*/\1 \2/p'
}

# check_job NAME STATE TEXT...: the job ended in STATE (e.g. "COMPLETED
# 0:0") and its output contains every TEXT.
check_job() {
	local name=$1 want=$2 got t
	shift 2
	[ -n "${jobs[$name]:-}" ] || return
	got=$(state "$name")
	for t in "$@"; do
		if ! grep -qF -- "$t" "$work/out/$name.out"; then
			cat "$work/out/$name.out"
			fail "$name (job ${jobs[$name]}, $got): the output does not say $t"
			return
		fi
	done
	if [ "$got" != "$want" ]; then
		cat "$work/out/$name.out"
		fail "$name (job ${jobs[$name]}): $got, want $want"
		return
	fi
	echo "ok   $name (job ${jobs[$name]}): $got"
}

for impl in $impls; do
	check_job "golomb-$impl" "COMPLETED 0:0" '"ranks":4,"world":"mpi"' '"length":55,'
	if [ -n "${jobs[speedup-$impl]:-}" ]; then
		lines="$work/out/speedup-$impl/speedup-${jobs[speedup-$impl]}.jsonl"
		got=$(sed -n 's/.*"balancer":"\([a-z]*\)","ranks":\([0-9]*\),.*"length":55,.*/\1 \2/p' "$lines" 2>/dev/null | tr '\n' ' ')
		csv=${lines%.jsonl}.csv
		rows=$(cut -d, -f1-3 "$csv" 2>/dev/null | tr '\n' ' ')
		if [ "$got" != "seq 1 rp 1 rp 2 rp 4 " ]; then
			cat "$work/out/speedup-$impl.out" "$lines" 2>/dev/null || true
			fail "speedup-$impl: runs of length 55: '$got', want seq 1, rp 1, 2 and 4"
		elif [ "$rows" != "run_world,run_np,run_balancer mpi,1,seq mpi,1,rp mpi,2,rp mpi,4,rp " ] ||
			! head -1 "$csv" | grep -q ',messages.request,' || [ ! -s "${lines%.jsonl}-speedup.png" ]; then
			cat "$work/out/speedup-$impl.out" "$csv" 2>/dev/null || true
			fail "speedup-$impl: the CSV $csv has rows '$rows' (want seq 1, rp 1, 2, 4 in the mpi world, with messages.request) or no plot"
		else
			check_job "speedup-$impl" "COMPLETED 0:0" "results in $lines"
		fi
	fi
	# Ten of Korf's instances, the last 7, solved across a
	# requeue (fifteen exits 1 on a length that disagrees with his table).
	check_job "resumable-$impl" "COMPLETED 0:0" "resumable: checkpointed to $work/out/fifteen-${jobs[resumable-$impl]:-}.ckpt; requeueing" \
		"resumable: restart 1 from" '"instance":"korf 7",' "resumable: done"
	case $impl in
	mpich) check_job "wrong-plugin-$impl" "FAILED 2:0" "this is an MPICH build, started by srun --mpi=pmix -n 2" "use srun --mpi=pmi2" ;;
	openmpi) check_job "wrong-plugin-$impl" "FAILED 1:0" 'launched using "srun"' ;;
	esac
done
check_job golomb-embedded "FAILED 2:0" "is the embedded build (no MPI)"

# The embedded build under srun says why it stops once, not once per task.
n=$(grep -cF "this is the embedded build" "$work/out/srun-embedded.out" || true)
[ "$n" -eq 1 ] || fail "embedded build under srun -n 2: the message $n times, want once"

# make slurm-down: every daemon stopped.
if [ "${#failures[@]}" -eq 0 ]; then
	out=$(bash scripts/slurm.sh down --dir "$slurm" 2>&1) || fail "scripts/slurm.sh down: $out"
	for pid in $pids; do
		! kill -0 "$pid" 2>/dev/null || fail "scripts/slurm.sh down left process $pid: $(ps -o args= -p "$pid")"
	done
	[ ! -d "$slurm" ] || fail "scripts/slurm.sh down left $slurm"
	[ "${#failures[@]}" -gt 0 ] || echo "ok   scripts/slurm.sh down: no daemon left, $slurm removed"
fi

if [ "${#failures[@]}" -gt 0 ]; then
	echo "--- slurmctld and slurmd logs"
	tail -n 15 "$slurm/log/slurmctld.log" "$slurm/log/slurmd.log" || true
	echo "FAIL: Slurm tests failed: ${failures[*]}"
	exit 1
fi
echo "Slurm tests passed for:${impls:- none} (and the embedded build) in $((SECONDS - start))s"
