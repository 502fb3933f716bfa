#!/usr/bin/env bash
# mpi-test.sh: the MPI-world tests under real mpirun, for Open MPI and MPICH.
#
# For each implementation it builds every listed package's test binary with
# -tags mpi (Open MPI) or -tags mpi,mpich (MPICH), runs it under that
# implementation's mpirun at each listed size, each run under a timeout, and
# runs the abort test (a failing rank must end an mpirun -np 3 job). Then,
# for launch mistakes, each build under the other implementation's mpirun
# and the embedded build under both must stop with exit status 2 and say
# why (mpi.LaunchError), once (by the task the launcher numbers 0) under
# mpirun -np 8. And `make mpi` must build each implementation with
# pkg-config hidden, through its mpicc (scripts/mpi-build.sh's fallback),
# into binaries whose --version names the library. Missing
# MPI packages are installed with apt-get when we are root and have it (and
# if they are still missing then, the script fails, unless
# TREELB_SKIP_MISSING=1); otherwise the MPI tests are SKIPPED, saying why,
# and the script exits 0.
#
#   scripts/mpi-test.sh                      # both implementations
#   MPI_IMPLS=mpich scripts/mpi-test.sh      # one of them
#   MPI_TESTS=faults scripts/mpi-test.sh     # only the launcher faults (issue 23)
#   MPI_TESTS=install scripts/mpi-test.sh    # only install what is missing (make lint)
#
# Add a package's MPI tests to mpi_tests below: run_mpi_pkg PKG NP...
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_args "$@"
cd "$(dirname "$0")/.."

GO=${GO:-go}
IMPLS=${MPI_IMPLS:-openmpi mpich}
TIMEOUT=${MPI_TEST_TIMEOUT:-120} # seconds per mpirun
MPI_DEBS="libopenmpi-dev openmpi-bin libmpich-dev mpich"

# The MPI test list, run once per implementation.
mpi_tests() {
	run_mpi_pkg ./mpi 1 2 4
	TREELB_IDLE=yield run_mpi_pkg ./mpi 2
	run_mpi_abort
	run_mpi_pkg ./hashtable 1 2 4
	run_mpi_pkg ./apps/dht 1 2
	run_mpi_cmd golomb 2 '"length":55,' --json 10
	run_mpi_cmd golomb 4 '"length":72,' --json 11
	# Exhaustive counts print the sequential run's nodes and certificate
	# (docs/counts.md) under MPI too, here and after a restart.
	run_mpi_cmd golomb 4 '"nodes":6874010,"certificate":"c0289d2727688697",' --json --count 60 9
	# Checkpoints under MPI: periodic ones suspend and resume the count in
	# the run, and a restart from the last one on another -np finishes it.
	rm -f "$work/golomb.ckpt"
	run_mpi_cmd golomb 2 '"rulers":97759' --json --count 60 9 --checkpoint "$work/golomb.ckpt" --checkpoint-every 1ms
	run_mpi_cmd golomb 3 '"nodes":6874010,"certificate":"c0289d2727688697",' --json --restart "$work/golomb.ckpt"
	# Every balancer: branch-and-bound's answer, and the exhaustive count's
	# nodes and certificate, the same as every other world's.
	local b bs
	bs=$(balancers) || bs=""
	if [ -z "$bs" ]; then
		echo "FAIL golomb --balancer help [$impl]: no balancers listed"
		failures+=("balancers [$impl]")
	fi
	for b in $bs; do
		run_mpi_cmd golomb 4 '"length":44,' --json --balancer "$b" 9
		run_mpi_cmd golomb 4 '"nodes":6874010,"certificate":"c0289d2727688697",' --json --balancer "$b" --count 60 9
	done
	# The example app outside the module (issue 24): the public API under
	# mpirun, its count and nodes as in every other world, and a restart.
	run_mpi_cmd nqueens 2 '"solutions":14200,"nodes":856189,' --json 12
	rm -f "$work/nqueens.ckpt"
	run_mpi_cmd nqueens 2 '"solutions":14200,"nodes":856189,' --json -b ps 12 --checkpoint "$work/nqueens.ckpt" --checkpoint-every 1ms
	run_mpi_cmd nqueens 3 '"solutions":14200,"nodes":856189,' --json --restart "$work/nqueens.ckpt"
	run_mpi_bad_input golomb 3 2 x
	# MPMD command lines (issue 15.1-2): ranks started differently stop together.
	run_mpmd golomb 'rank 0 has ["11"], rank 1 has ["12"]' "11" "12"
	run_mpmd golomb 'rank 1 has ["-b" "ps" "11"]' "-b rp 11" "-b ps 11"
	run_mpmd golomb 'rank 1 has ["--count" "50" "11"]' "11" "--count 50 11"
	run_mpmd golomb 'rank 1 has ["abc"]' "13" "abc"
	run_mpmd golomb 'MARKS' "abc" "abc"
	run_launch_mistake golomb "$impl" 2 "3 ranks were asked for, but the world has 2" --np 3 9
	# A refused flag is the verdict, not the default --np (the CPUs: one
	# under Open MPI's binding) against the launcher's size.
	run_launch_mistake golomb "$impl" 2 '--world "bogus": need' --world bogus 9
	run_launch_mistake golomb "$impl" 2 "--world embedded: this is the MPI build" --world embedded 9
	run_mpi_pkg ./apps/fifteen/parallel 2
	run_mpi_cmd fifteen 2 '"length":42,' --json --korf 79
	# SIGUSR1 to mpirun reaches every rank: the job checkpoints and exits 3,
	# and a restart on another -np solves the rest (fifteen exits 1 on a
	# length that disagrees with Korf's table). Hydra reports 0 instead of
	# the ranks' 3 when it reaps them late (see run_mpi_signal). SIGTERM
	# without --checkpoint still ends a job at once.
	rm -f "$work/fifteen.ckpt"
	run_mpi_signal fifteen 2 USR1 "$(signal_status "$impl" 3)" "$work/fifteen.ckpt" --json --korf 12,25,11,10,26,21,1,37,27,7 --checkpoint "$work/fifteen.ckpt" --checkpoint-every 100ms
	run_mpi_cmd fifteen 3 '"instance":"korf 7",' --json --restart "$work/fifteen.ckpt"
	run_mpi_signal golomb 2 TERM "$(signal_status "$impl" any)" "" 13 --progress
	run_mpi_bad_input fifteen 2 2 --korf 101
	# Input on stdin is read by rank 0 alone (issue 15.1).
	run_mpi_cmd fifteen 2 '25 LLDLURDRDDLLUUURRRDDLULLU' -q --file /dev/stdin < <(echo "8 1 2 0 4 5 6 3 12 9 10 7 13 14 11 15")
	run_mpi_cmd fifteen 2 '25 LLDLURDRDDLLUUURRRDDLULLU' -q --file - < <(echo "8 1 2 0 4 5 6 3 12 9 10 7 13 14 11 15")
	run_mpi_cmd dht 2 'eta=' -q --rounds 1
	run_mpi_bad_input dht 2 2 -Q 0
	# The input is read knowing the launcher's size (it read --np 0 there).
	SAYS="--np 3 with -Q 100000000000" run_mpi_bad_input dht 3 2 -Q 100000000000
	run_mpi_cmd integrate 2 '"nodes":4931,"leaves":2466,"height":13,"certificate":"3c1b619e98e23b13",' func gauss --json
	run_mpi_cmd integrate 2 '"value":3.0248004066330985e-41,' --json poly --rule relative --theta-a 1e-8
	run_mpi_cmd integrate 2 '"nodes":4269,"leaves":2135,"height":36,"certificate":"3172d4d41a73809a",' alpha --json -b koso
	run_mpi_bad_input integrate 2 2 alpha --alpha 1
	run_mpi_cmd knapsack 2 '"profit":33434889,' --json --budget 50 apps/knapsack/testdata/sanders-m100-seed5.txt
	run_mpi_cmd knapsack 2 '"profit":33434889,' --json --budget 50 --search hs -b ps - <apps/knapsack/testdata/sanders-m100-seed5.txt
	run_mpi_bad_input knapsack 2 2 apps/knapsack/testdata/missing.txt
	run_mpi_bad_input knapsack 2 2 - < <(printf '2\n1 2\n3 -4\n5\n')
	run_mpi_cmd uts 2 '"nodes":4130071,"depth":10,"leaves":3305118,"certificate":"6bd41af42e5d2282",' --tree T1 --json
	# --calibrate: the ranks measure together, then rank 0 alone while the
	# others wait yielding (a broadcast all ranks make non-blocking).
	run_mpi_cmd golomb 2 '"name": "calibrated-mpi",' --calibrate --budget 1000 --count 50 10
	run_mpi_cmd uts 2 '"nodes":4112897,"depth":1572,"leaves":3599034,' --tree T3 --json -b koso
	# Periodic checkpoints of uts and integrate, and a restart on -np 3.
	rm -f "$work/uts.ckpt" "$work/integrate.ckpt"
	run_mpi_cmd uts 2 '"nodes":4112897,"depth":1572,"leaves":3599034,' --tree T3 --json --budget 2000 --checkpoint "$work/uts.ckpt" --checkpoint-every 1ms
	run_mpi_cmd uts 3 '"nodes":4112897,"depth":1572,"leaves":3599034,"certificate":"aaaeb61e1fd31abd",' --json --restart "$work/uts.ckpt"
	run_mpi_cmd integrate 2 '"value":-0.006239527905782152,' func osc --theta-a 1e-14 --json --checkpoint "$work/integrate.ckpt" --checkpoint-every 1ms
	run_mpi_cmd integrate 3 '"nodes":335407,"leaves":167704,"height":18,"certificate":"f814128da079791d",' func --restart "$work/integrate.ckpt" --json
	run_mpi_bad_input uts 2 2 --tree T1 --prob 1.5
	mpi_fault_tests
}

# mpi_fault_tests: the launcher faults of issue 23 (MPI_TESTS=faults runs
# only these; scripts/faults.sh does in its full form).
mpi_fault_tests() {
	# Each ends within a minute, with a message and no process left behind.
	# A rank that never calls MPI_Init (rank 2 runs sleep instead): the
	# others give up after --startup-timeout.
	run_mpi_fault golomb 4 "69|9" "MPI_Init has not returned after 5s" skip-init --startup-timeout 5s 9
	# A closed standard input read by rank 0 (Open MPI's mpirun hands it a
	# pipe that never ends).
	run_mpi_fault knapsack 4 2 "knapsack:" closed-stdin --startup-timeout 5s -q -
	# mpirun's output pipe closed while the job still prints (SIGPIPE).
	run_mpi_fault fifteen 2 any "" closed-stdout -q --korf 1-20
	# A rank stopped by SIGSTOP during the search: the others' stall
	# watchdogs notice that they hear nothing and end the job (75, or 9
	# when Hydra reports the ranks it killed).
	run_mpi_fault golomb 4 "75|9" "stalled: no work and no news of the search" sigstop --stall-timeout 10s --progress 13
	# SIGTERM (what Slurm sends at a time limit) with --checkpoint: the
	# checkpoint is written first, every rank exits 3 (Open MPI's mpirun
	# then reports 1 for a job it was told to terminate).
	rm -f "$work/golomb-term.ckpt"
	run_mpi_signal golomb 2 TERM "$(signal_status "$impl" 3)$([ "$impl" = openmpi ] && echo "|1")" "$work/golomb-term.ckpt" 13 --checkpoint "$work/golomb-term.ckpt" --checkpoint-every 200ms
	# The same signal to rank 2's process alone (a kill on a compute node,
	# scancel --signal to one task): the suspension spreads from that rank,
	# rank 0 learns of the signal, and the job checkpoints and exits 3 (it
	# went on without a word before), then restarts to the exact count.
	rm -f "$work/golomb-rank.ckpt"
	SIGNAL_RANK=2 run_mpi_signal golomb 3 TERM "$(signal_status "$impl" 3)" "$work/golomb-rank.ckpt" --count 80 10 -q --checkpoint "$work/golomb-rank.ckpt" --checkpoint-every 200ms
	run_mpi_cmd golomb 2 1888494 -q --restart "$work/golomb-rank.ckpt"
	# A checkpoint that cannot be written (its directory gone): one message
	# (rank 0's, under the command's name), not one a rank, and exit 1.
	mkdir -p "$work/gone"
	SIGNAL_RMDIR=yes WANT_ONCE="golomb: checkpoint $work/gone/x.ckpt" run_mpi_signal golomb 3 USR1 "1$([ "$impl" = mpich ] && echo "|0")" "$work/gone/x.ckpt" --count 80 10 -q --checkpoint "$work/gone/x.ckpt" --checkpoint-every 200ms
}

# run_mpi_fault APP NP STATUS WANT HOW ARGS...: a launcher fault, mpirun -np
# NP APP ARGS with HOW: skip-init (rank 2 runs a stand-in instead of APP:
# sleep 300, copied to the work directory so that it is found by its own
# path, never another program's sleep),
# closed-stdin (mpirun's standard input closed), closed-stdout (mpirun's
# standard output a pipe that is closed after its first line) or sigstop
# (rank 2 gets SIGSTOP a second after the first --progress line). The job must
# end within 60 s with exit status STATUS (a list, "69|9"; any: not 0),
# say WANT, and leave no process of APP behind (a stand-in left by the
# launcher is a NOTE).
run_mpi_fault() {
	local app=$1 np=$2 want=$3 msg=$4 how=$5 bin="$work/$1.$impl" rc=0 t0 left
	shift 5
	if [ ! -x "$bin" ] && ! $GO build -tags "$(impl_tags "$impl")" -o "$bin" "./apps/$app"; then
		echo "FAIL $app [$impl]: build failed"
		failures+=("$app [$impl] build")
		return
	fi
	t0=$SECONDS
	cp "$(command -v sleep)" "$work/stand-in"
	printf '#!/bin/sh\n[ "${OMPI_COMM_WORLD_RANK:-$PMI_RANK}" = 2 ] && exec "%s" 300\nexec "$@"\n' "$work/stand-in" >"$work/skip-init.sh"
	chmod +x "$work/skip-init.sh"
	case $how in
	skip-init) timeout -k 10 60 $(impl_mpirun "$impl") -np "$np" "$work/skip-init.sh" "$bin" "$@" >"$work/log" 2>&1 || rc=$? ;;
	closed-stdin) timeout -k 10 60 $(impl_mpirun "$impl") -np "$np" "$bin" "$@" >"$work/log" 2>&1 <&- || rc=$? ;;
	closed-stdout)
		{ timeout -k 10 60 $(impl_mpirun "$impl") -np "$np" "$bin" "$@" 2>"$work/log" || echo "$?" >"$work/rc"; } | head -1 >/dev/null
		sleep 1
		rc=$(cat "$work/rc" 2>/dev/null || echo 0)
		rm -f "$work/rc"
		;;
	sigstop)
		local pid i p victim=""
		timeout -k 10 60 $(impl_mpirun "$impl") -np "$np" "$bin" "$@" >"$work/log" 2>&1 &
		pid=$!
		for i in $(seq 300); do
			grep -q "ranks busy" "$work/log" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		# The first line comes at 0.0 s, while golomb 13 runs its short
		# searches of 2 to 11 marks; a second later the ranks are in a
		# search of seconds. A rank stopped between two searches leaves
		# the others in the blocking collectives that the watchdog does
		# not watch (docs/reliability.md): stopped about 0.05 s after the
		# first line, it hung the run in 2 of 54 tries.
		sleep 1
		# Rank 2 is the process of the command whose environment says so
		# (mpirun's own command line names the command too).
		for p in $(pgrep -f "$bin" || true); do
			if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qE '^(OMPI_COMM_WORLD_RANK|PMI_RANK)=2$'; then
				victim=$p
			fi
		done
		if [ -n "$victim" ]; then
			kill -STOP "$victim"
		else
			echo "(found no rank 2 to stop)" >>"$work/log"
		fi
		wait "$pid" || rc=$?
		;;
	esac
	local took=$((SECONDS - t0)) i p stray=""
	# The launcher may take a few seconds more to reap the last ranks on a
	# loaded machine: wait up to 20 s for them (zombies do not count).
	for i in $(seq 20); do
		left=""
		for p in $(pgrep -f "$bin" || true); do
			[ "$(ps -o stat= -p "$p" 2>/dev/null | cut -c1)" = Z ] || left="$left$p "
		done
		[ -z "$left" ] && break
		sleep 1
	done
	# The stand-in of a rank that never started is the launcher's to end:
	# under heavy load Open MPI's mpirun has left it running (2 runs of
	# about 10 at a load of 10-16, none of 8 at a load below 5); say so,
	# and end it.
	stray=$(pgrep -f "$work/stand-in" | tr '\n' ' ' || true)
	if [ -n "$stray" ]; then
		echo "NOTE $impl's mpirun left the stand-in of the rank that never started running (pid $stray); killing it"
		# shellcheck disable=SC2086 # the pids are word-split on purpose
		kill -KILL $stray 2>/dev/null || true
	fi
	if [ -n "$left" ]; then
		# shellcheck disable=SC2086 # the pids are word-split on purpose
		kill -KILL $left 2>/dev/null || true
	fi
	if [ "$took" -le 62 ] && [ -z "$left" ] && { [ -z "$msg" ] || grep -qF -- "$msg" "$work/log"; } &&
		{ { [ "$want" = any ] && [ "$rc" -ne 0 ]; } || [[ "|$want|" = *"|$rc|"* ]]; }; then
		echo "ok   $app $* [$impl mpirun -np $np], $how: exit status $rc after ${took}s, nothing left"
	else
		cat "$work/log"
		echo "FAIL $app $* [$impl mpirun -np $np], $how: exit status $rc after ${took}s${left:+, left behind 20 s later: $left}; want $want within 60s saying: $msg"
		failures+=("$app $how [$impl]")
	fi
}

# balancers lists the balancer names of the golomb command's help.
balancers() {
	$GO run ./apps/golomb --balancer help | awk 'NR > 1 && $1 != "seq" {print $1}'
}

# run_mpi_cmd APP NP EXPECT ARGS...: build apps/APP (or examples/APP, a
# module of its own) for $impl, run it under
# mpirun -np NP with ARGS, and check that its output contains EXPECT.
run_mpi_cmd() {
	local app=$1 np=$2 want=$3 bin rc=0 start=$SECONDS
	shift 3
	bin="$work/$app.$impl"
	local src="./apps/$app"
	[ -d "$src" ] || src="./examples/$app" # an example: a module of its own
	if [ ! -x "$bin" ] && ! (cd "$src" && $GO build -tags "$(impl_tags "$impl")" -o "$bin" .); then
		echo "FAIL $app [$impl]: build failed"
		failures+=("$app [$impl] build")
		return
	fi
	timeout -k 10 "$TIMEOUT" $(impl_mpirun "$impl") -np "$np" "$bin" "$@" >"$work/log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && grep -qF -- "$want" "$work/log"; then
		echo "ok   $app $* [$impl mpirun -np $np] $((SECONDS - start))s"
	else
		cat "$work/log"
		echo "FAIL $app $* [$impl mpirun -np $np]: exit status $rc, want output with $want"
		failures+=("$app $* [$impl np=$np]")
	fi
}

# run_mpi_signal APP NP SIGNAL STATUS FILE ARGS...: mpirun -np NP APP ARGS,
# sent SIGNAL once FILE exists (a first periodic checkpoint: the ranks
# catch signals by then), or when FILE is "" once the search runs (a
# --progress line says how many "ranks busy"), must end
# within 20 s with exit status STATUS (any: not 0; or a list, "3|0",
# "any|0"), without FILE before printing an answer ("optimal"), and with
# FILE, leave it behind and say "resume with" (the checkpoint of the
# signal, not a periodic one). A job that ended before the signal could be
# sent fails. A job still running 30 s after the signal is killed. With
# SIGNAL_RANK=R the signal goes to rank R's process alone, not to mpirun
# (a kill on a compute node, scancel --signal to one task); with
# SIGNAL_RMDIR=yes FILE's directory is removed before the signal, so that
# the checkpoint cannot be written: the job must then say so once
# (WANT_ONCE, a line) and end with STATUS.
run_mpi_signal() {
	local app=$1 np=$2 sig=$3 want=$4 file=$5 bin="$work/$1.$impl" rc=0 pid i t0 sent=no target p
	shift 5
	# No timeout(1) around mpirun: it would die of SIGUSR1 itself.
	$(impl_mpirun "$impl") -np "$np" "$bin" "$@" >"$work/log" 2>&1 &
	pid=$!
	# The tests are grouped: "a && b || c && d" would be "((a && b) || c) && d".
	for i in $(seq 300); do
		if { [ -n "$file" ] && [ -f "$file" ]; } || { [ -z "$file" ] && grep -q "ranks busy" "$work/log"; } || ! kill -0 "$pid" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	target=$pid
	if [ -n "${SIGNAL_RANK:-}" ]; then
		target=""
		for p in $(pgrep -f "$bin" || true); do
			if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qE "^(OMPI_COMM_WORLD_RANK|PMI_RANK)=$SIGNAL_RANK\$"; then
				target=$p
			fi
		done
	fi
	if [ "${SIGNAL_RMDIR:-}" = yes ]; then
		rm -rf "$(dirname "$file")"
	fi
	[ -n "$target" ] && kill -s "$sig" "$target" 2>/dev/null && sent=yes
	t0=$SECONDS
	for i in $(seq 300); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" || rc=$?
	local ok=no
	if [ "$sent" = yes ] && { { [[ "|$want|" = *"|any|"* ]] && [ "$rc" -ne 0 ]; } || [[ "|$want|" = *"|$rc|"* ]]; } && [ $((SECONDS - t0)) -le 20 ]; then
		if [ "${SIGNAL_RMDIR:-}" = yes ]; then
			[ "$(grep -cF -- "$WANT_ONCE" "$work/log")" = 1 ] && ok=yes
		elif { [ -n "$file" ] || ! grep -q "optimal" "$work/log"; } &&
			{ [ -z "$file" ] || { [ -f "$file" ] && grep -q "resume with" "$work/log"; }; }; then
			ok=yes
		fi
	fi
	if [ "$ok" = yes ]; then
		echo "ok   $app $* [$impl mpirun -np $np], SIG$sig${SIGNAL_RANK:+ to rank $SIGNAL_RANK}: exit status $rc after $((SECONDS - t0))s"
	else
		cat "$work/log"
		echo "FAIL $app $* [$impl mpirun -np $np], SIG$sig${SIGNAL_RANK:+ to rank $SIGNAL_RANK} (sent: $sent): exit status $rc after $((SECONDS - t0))s, want $want within 20s${file:+ and $file written on the signal}${SIGNAL_RMDIR:+ (its directory removed: one line $WANT_ONCE)}"
		failures+=("$app SIG$sig${SIGNAL_RANK:+ rank $SIGNAL_RANK} [$impl]")
	fi
}

# run_mpi_bad_input APP NP STATUS ARGS...: bad input must end every rank
# with exit status STATUS, quickly and with a message (one that holds
# $SAYS too, when set).
run_mpi_bad_input() {
	local app=$1 np=$2 want=$3 bin="$work/$1.$impl" rc=0
	shift 3
	timeout -k 10 60 $(impl_mpirun "$impl") -np "$np" "$bin" "$@" >"$work/log" 2>&1 || rc=$?
	if [ "$rc" -eq "$want" ] && grep -q "$app:" "$work/log" && grep -qF -- "${SAYS:-$app:}" "$work/log"; then
		echo "ok   $app $* fails with status $rc [$impl mpirun -np $np]"
	else
		cat "$work/log"
		echo "FAIL $app $* [$impl mpirun -np $np]: exit status $rc, want $want and a message"
		failures+=("$app bad input [$impl]")
	fi
}

# run_mpmd APP WANT ARGS0 ARGS1: an MPMD job, mpirun -np 1 APP ARGS0 :
# -np 1 APP ARGS1 (word-split), must end both ranks with exit status 2
# within a minute, saying WANT.
run_mpmd() {
	local app=$1 want=$2 bin="$work/$1.$impl" rc=0
	# shellcheck disable=SC2086 # the argument lists are word-split on purpose
	timeout -k 10 60 $(impl_mpirun "$impl") -np 1 "$bin" $3 : -np 1 "$bin" $4 >"$work/log" 2>&1 || rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$work/log"; then
		echo "ok   $app $3 : $app $4 fails with status 2 [$impl MPMD]"
	else
		cat "$work/log"
		echo "FAIL $app $3 : $app $4 [$impl MPMD]: exit status $rc, want 2 and a message with: $want"
		failures+=("$app MPMD [$impl]")
	fi
}

# run_launch_mistake APP BUILD NP WANT ARGS...: apps/APP built for BUILD
# (openmpi, mpich or embedded) under $impl's mpirun -np NP must end with
# exit status 2 and a message containing WANT.
run_launch_mistake() {
	local app=$1 build=$2 np=$3 want=$4 bin rc=0
	shift 4
	bin="$work/$app.$build"
	if [ ! -x "$bin" ] && ! $GO build -tags "$(impl_tags "$build")" -o "$bin" "./apps/$app"; then
		echo "FAIL $app [$build]: build failed"
		failures+=("$app [$build] build")
		return
	fi
	timeout -k 10 60 $(impl_mpirun "$impl") -np "$np" "$bin" "$@" >"$work/log" 2>&1 || rc=$?
	if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$work/log"; then
		echo "ok   $build build of $app $* under $impl mpirun -np $np: status 2, says: $want"
	else
		cat "$work/log"
		echo "FAIL $build build of $app $* under $impl mpirun -np $np: exit status $rc, want 2 and a message with: $want"
		failures+=("launch mistake: $build under $impl")
	fi
}

# launch_mistakes: the builds started by the wrong launcher, under $impl's
# mpirun; needs the pkg-config file of the other implementation.
launch_mistakes() {
	local other
	run_once 0 golomb "$impl" 4 USAGE: --help
	run_once 0 golomb "$impl" 4 "golomb version" --version
	run_once 0 golomb "$impl" 4 "--check: the command line and the instance are good" --check 9
	run_launch_mistake golomb embedded 2 "this is the embedded build (goroutine ranks, no MPI), started by" 9
	run_once 2 golomb embedded 8 "this is the embedded build" 9
	# --check finds the launch mistakes a run's start finds without a world.
	run_launch_mistake golomb embedded 2 "this is the embedded build (goroutine ranks, no MPI), started by" --check 9
	run_launch_mistake golomb "$impl" 2 "4 ranks were asked for, but the world has 2" --check --np 4 9
	other=$([ "$impl" = openmpi ] && echo mpich || echo openmpi)
	if ! pkg-config --exists "$(impl_pc "$other")" 2>/dev/null; then
		echo "SKIPPED: the $other build under $impl's mpirun (no pkg-config $(impl_pc "$other"))"
		return
	fi
	case $impl in
	openmpi) run_launch_mistake golomb mpich 2 "this is an MPICH build, started by Open MPI's mpirun -np 2" 9
		run_launch_mistake golomb mpich 2 "this is an MPICH build, started by Open MPI's mpirun -np 2" --check 9 ;;
	mpich) run_launch_mistake golomb openmpi 2 "this is an Open MPI build, started by MPICH's mpiexec (Hydra) -np 2" 9
		run_launch_mistake golomb openmpi 2 "this is an Open MPI build, started by MPICH's mpiexec (Hydra) -np 2" --check 9 ;;
	esac
	run_once 2 golomb "$other" 8 "this is an" 9
}

# run_once STATUS APP BUILD NP WANT ARGS...: apps/APP built for BUILD under
# $impl's mpirun -np NP ends with STATUS and says WANT exactly once: each
# task would say it (a launch mistake, --help, --version: before any world
# starts), but only the task the launcher numbers 0 does.
run_once() {
	local status=$1 app=$2 build=$3 np=$4 want=$5 bin="$work/$2.$3" rc=0 n
	shift 5
	timeout -k 10 60 $(impl_mpirun "$impl") -np "$np" "$bin" "$@" >"$work/log" 2>&1 || rc=$?
	n=$(grep -cF -- "$want" "$work/log" || true)
	if [ "$rc" -eq "$status" ] && [ "$n" -eq 1 ]; then
		echo "ok   $build build of $app $* under $impl mpirun -np $np: status $status, '$want' once"
	else
		cat "$work/log"
		echo "FAIL $build build of $app $* under $impl mpirun -np $np: exit status $rc, '$want' $n times; want $status and once"
		failures+=("said once: $build build of $app $* under $impl")
	fi
}

# fallback_build: make mpi for $impl with pkg-config hidden (PKG_CONFIG_PATH
# pointing nowhere, and a pkg-config on PATH that fails) builds through the
# MPI compiler wrapper (mpicc.$impl: -showme for Open MPI, -show for MPICH)
# with -tags mpi,mpiflags; the binaries' --version names the library, and
# golomb runs under mpirun -np 2. Only golomb is built (MPI_PKGS): the
# flags do not depend on the command, and all of them took 13-28 s more.
fallback_build() {
	local dir="$work/fallback-$impl" rc=0 lib
	mkdir -p "$work/nopc"
	printf '#!/bin/sh\necho "pkg-config: hidden by scripts/mpi-test.sh" >&2\nexit 1\n' >"$work/nopc/pkg-config"
	chmod +x "$work/nopc/pkg-config"
	PATH="$work/nopc:$PATH" PKG_CONFIG_PATH=/nonexistent make --no-print-directory mpi MPI="$impl" MPI_BIN="$dir" MPI_PKGS=./apps/golomb >"$work/log" 2>&1 || rc=$?
	lib=$(case $impl in openmpi) echo "mpi library: Open MPI v" ;; mpich) echo "mpi library: MPICH Version:" ;; esac)
	if [ "$rc" -ne 0 ] || ! grep -q "tags mpi,mpiflags, flags from mpicc" "$work/log"; then
		cat "$work/log"
		echo "FAIL make mpi MPI=$impl with pkg-config hidden: exit status $rc, want a build through mpicc"
		failures+=("fallback build [$impl]")
		return
	fi
	"$dir/golomb" --version >"$work/log" 2>&1 || true
	if ! grep -qx "world: $impl" "$work/log" || ! grep -qF "$lib" "$work/log" || ! grep -qx "tags: mpi,mpiflags" "$work/log"; then
		cat "$work/log"
		echo "FAIL the fallback build's golomb --version: want tags mpi,mpiflags, world $impl and '$lib'"
		failures+=("fallback build --version [$impl]")
		return
	fi
	rc=0
	timeout -k 10 60 $(impl_mpirun "$impl") -np 2 "$dir/golomb" --json 9 >"$work/log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && grep -qF '"length":44,' "$work/log"; then
		echo "ok   make mpi MPI=$impl with pkg-config hidden: mpicc fallback, --version says world: $impl, golomb runs under mpirun -np 2"
	else
		cat "$work/log"
		echo "FAIL the fallback build's golomb under $impl mpirun -np 2: exit status $rc"
		failures+=("fallback build run [$impl]")
	fi
}

# signal_status IMPL STATUS: the exit statuses IMPL's mpirun may report
# when every rank exits with STATUS after a signal it forwarded. MPICH's
# Hydra proxy marks a job signalled ("forced cleanup") and reports 0 for a
# rank it reaps only once its output is closed (src/pm/hydra proxy, 4.0.2;
# about a third of the runs here), so 0 counts there too.
signal_status() { case $1 in mpich) echo "$2|0" ;; *) echo "$2" ;; esac; }
impl_tags() { case $1 in openmpi) echo mpi ;; mpich) echo mpi,mpich ;; embedded) echo "" ;; esac; }
impl_pc() { case $1 in openmpi) echo ompi-c ;; mpich) echo mpich ;; esac; }
impl_mpirun() {
	case $1 in
	openmpi) echo mpirun.openmpi --oversubscribe --allow-run-as-root ;;
	mpich) echo mpirun.mpich ;;
	esac
}
impl_missing() { # prints what implementation $1 lacks, nothing if complete
	local run cc
	cc=$($GO env CC)
	[ "$($GO env CGO_ENABLED)" = 1 ] && command -v "${cc%% *}" >/dev/null || echo -n "cgo and a C compiler "
	run=$(impl_mpirun "$1")
	command -v "${run%% *}" >/dev/null || echo -n "${run%% *} "
	pkg-config --exists "$(impl_pc "$1")" 2>/dev/null || echo -n "pkg-config $(impl_pc "$1") "
}

failures=()
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# wrapper_parsing: scripts/mpi-build.sh reads the flags of compiler wrappers
# this machine lacks, as they answer: Intel MPI's mpicc -show (quoted paths,
# -Xlinker pairs) and a Cray wrapper's --cray-print-opts (fakes below print
# those answers); needs no MPI.
wrapper_parsing() {
	local got want
	mkdir -p "$work/wrappers"
	cat >"$work/wrappers/mpiicc" <<'EOS'
#!/bin/sh
[ "$1" = -show ] || { echo "mpiicc: unknown option $1" >&2; exit 1; }
echo 'gcc -I"/opt/intel mpi/include" -L"/opt/intel mpi/lib/release" -L/opt/impi/lib -Xlinker --enable-new-dtags -Xlinker -rpath -Xlinker "/opt/intel mpi/lib/release" -lmpifort -lmpi -ldl -lrt -lpthread -DI_MPI=1 -pthread'
EOS
	cat >"$work/wrappers/cc" <<'EOS'
#!/bin/sh
case $1 in
--cray-print-opts=cflags) echo '-I/opt/cray/pe/mpich/8.1.26/ofi/gnu/9.1/include' ;;
--cray-print-opts=libs) echo '-L/opt/cray/pe/mpich/8.1.26/ofi/gnu/9.1/lib -Wl,--as-needed,-lmpi_gnu_91,--no-as-needed' ;;
*) echo "cc: no input files" >&2; exit 1 ;;
esac
EOS
	chmod +x "$work/wrappers/mpiicc" "$work/wrappers/cc"
	got=$(MPICC="$work/wrappers/mpiicc" bash scripts/mpi-build.sh --mpi intel-mpi --print-flags 2>&1 | sed -n 's/^CGO_[A-Z]*: //p' | tr '\n' '|')
	want="$($GO env CGO_CFLAGS) '-I/opt/intel mpi/include' -DI_MPI=1 -pthread|'-L/opt/intel mpi/lib/release' -L/opt/impi/lib -Xlinker --enable-new-dtags -Xlinker -rpath -Xlinker '/opt/intel mpi/lib/release' -lmpifort -lmpi -ldl -lrt -lpthread -pthread|"
	if [ "$got" = "$want" ]; then
		echo "ok   mpi-build.sh reads Intel MPI's mpicc -show"
	else
		echo "FAIL mpi-build.sh with Intel MPI's mpicc -show: flags '$got', want '$want'"
		failures+=("wrapper parsing: mpicc -show")
	fi
	got=$(MPICC="$work/wrappers/cc" bash scripts/mpi-build.sh --mpi cray-mpich --print-flags 2>&1 | sed -n 's/^CGO_[A-Z]*: //p' | tr '\n' '|')
	want="$($GO env CGO_CFLAGS) -I/opt/cray/pe/mpich/8.1.26/ofi/gnu/9.1/include|-L/opt/cray/pe/mpich/8.1.26/ofi/gnu/9.1/lib -Wl,--as-needed,-lmpi_gnu_91,--no-as-needed|"
	if [ "$got" = "$want" ]; then
		echo "ok   mpi-build.sh reads a Cray wrapper's --cray-print-opts"
	else
		echo "FAIL mpi-build.sh with a Cray wrapper: flags '$got', want '$want'"
		failures+=("wrapper parsing: --cray-print-opts")
	fi
}
[ "${MPI_TESTS:-all}" = install ] || wrapper_parsing

# run_mpi_pkg PKG NP...: build PKG's tests for $impl and run them under
# mpirun -np NP for each NP, in PKG's directory as go test would.
run_mpi_pkg() {
	local pkg=$1 bin np rc start log
	shift
	bin="$work/$(echo "${pkg#./}" | tr / _).$impl.test"
	if ! $GO test -c -tags "$(impl_tags "$impl")" -o "$bin" "$pkg"; then
		echo "FAIL $pkg [$impl]: go test -c -tags $(impl_tags "$impl") failed"
		failures+=("$pkg [$impl] build")
		return
	fi
	for np in "$@"; do
		log="$work/log"
		start=$SECONDS
		rc=0
		(cd "$pkg" && timeout -k 10 "$TIMEOUT" $(impl_mpirun "$impl") -np "$np" "$bin" -test.count=1 -test.timeout="${TIMEOUT}s") >"$log" 2>&1 || rc=$?
		if [ "$rc" -eq 0 ]; then
			echo "ok   $pkg [$impl mpirun -np $np] $((SECONDS - start))s"
		else
			[ "$rc" -eq 124 ] && echo "TIMEOUT after ${TIMEOUT}s"
			cat "$log"
			echo "FAIL $pkg [$impl mpirun -np $np] exit status $rc"
			failures+=("$pkg [$impl np=$np]")
		fi
	done
}

# run_mpi_abort: a failing rank ends an mpirun -np 3 job (mpi/abort_test.go).
run_mpi_abort() {
	local rc=0
	TREELB_MPI_IMPLS=$impl $GO test -count=1 -run '^TestAbortUnderMpirun$/^'"$impl"'$' -v ./mpi >"$work/log" 2>&1 || rc=$?
	if [ "$rc" -eq 0 ] && ! grep -q -- "--- SKIP" "$work/log"; then
		echo "ok   abort test [$impl mpirun -np 3]"
	else
		cat "$work/log"
		echo "FAIL abort test [$impl]"
		failures+=("abort test [$impl]")
	fi
}

missing=""
for impl in $IMPLS; do
	[ -z "$(impl_missing "$impl")" ] || missing="$missing $impl"
done
if [ -n "$missing" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
	echo "installing $MPI_DEBS with apt-get (missing:$missing)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq $MPI_DEBS >/dev/null || echo "apt-get install failed"
	# Root with apt-get is where make test installs what it needs: tests
	# that still cannot run failed, they were not skipped.
	for impl in $missing; do
		lack=$(impl_missing "$impl")
		if [ -n "$lack" ] && [ -z "${TREELB_SKIP_MISSING:-}" ]; then
			echo "FAIL: the $impl MPI tests cannot run: still missing ${lack% } after apt-get install $MPI_DEBS (TREELB_SKIP_MISSING=1 skips them instead)"
			exit 1
		fi
	done
fi
if [ "${MPI_TESTS:-all}" = install ]; then
	exit 0 # make lint's: the MPI builds' packages, for staticcheck
fi

ran=""
for impl in $IMPLS; do
	lack=$(impl_missing "$impl")
	if [ -n "$lack" ]; then
		echo "SKIPPED: the $impl MPI tests (conformance suite at -np 1 2 4, abort test): missing ${lack% }; install $MPI_DEBS as root"
		continue
	fi
	ran="$ran $impl"
	echo "--- MPI tests with $impl (-tags $(impl_tags "$impl"))"
	export TREELB_WANT_MPI=$impl # mpi's TestLibraryVersion: the library is this one
	if [ "${MPI_TESTS:-all}" = faults ]; then
		mpi_fault_tests
		continue
	fi
	# go vet of the MPI build (make vet sees the embedded build only).
	if $GO vet -tags "$(impl_tags "$impl")" ./...; then
		echo "ok   go vet -tags $(impl_tags "$impl") ./..."
	else
		failures+=("go vet [$impl]")
	fi
	mpi_tests
	launch_mistakes
	fallback_build
done

if [ "${#failures[@]}" -gt 0 ]; then
	echo "FAIL: MPI tests failed: ${failures[*]}"
	exit 1
fi
echo "MPI tests passed for:${ran:- none (all SKIPPED)}"
