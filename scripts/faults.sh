#!/usr/bin/env bash
# faults.sh: the fault campaign of issue 23, the figures docs/reliability.md
# quotes. Three stages:
#
#   kill     a checkpointing run (--checkpoint, every 20-200 ms) is killed
#            with SIGKILL at a random instant, then restarted from whatever
#            is on disk (the last checkpoint, or from scratch when none was
#            written yet) on another number of ranks or in another world,
#            and its final counts are compared with the uninterrupted run's:
#            golomb --count 75 10 (the rulers and the count's nodes) and a
#            UTS tree (nodes, depth, leaves). A restart must also leave no lock and no
#            temporary file behind.
#   input    the bad-input table: crafted and odd checkpoint files, hostile
#            flag values, outputs to /dev/full and a closed pipe, trees
#            without end. The short form runs a dozen cases here; the full
#            form adds the Go table tests over every command and flag
#            (internal/reliability, runner).
#   mpi      (full form) the launcher faults under Open MPI and MPICH:
#            MPI_TESTS=faults scripts/mpi-test.sh.
#
#   scripts/faults.sh                   # short form, make test: 4 kills, about 25 s
#   FAULTS=full scripts/faults.sh       # 200 kills, the tables, both MPIs
#   KILLS=500 FAULTS=full scripts/faults.sh
#
# The last lines are the table: stage, cases tried, survived, lost. A case
# is lost when a final count differs from the uninterrupted one, a restart
# fails, or a bad input is not refused with its exit status and message.
# The exit status is 1 when any case was lost.
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_args "$@"
cd "$(dirname "$0")/.."
GO=${GO:-go}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
MODE=${FAULTS:-short}
case $MODE in
short) KILLS=${KILLS:-4} ;;
full) KILLS=${KILLS:-200} ;;
*)
	echo "FAULTS=$MODE: want short or full" >&2
	exit 2
	;;
esac
SEED=${SEED:-$RANDOM}
RANDOM=$SEED

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bin=$work/bin
mkdir -p "$bin"
$GO build -o "$bin/" ./apps/golomb ./apps/uts ./apps/knapsack

declare -A tried survived lost
for s in kill input mpi; do tried[$s]=0 survived[$s]=0 lost[$s]=0; done
record() { # record STAGE ok|lost MESSAGE
	tried[$1]=$((${tried[$1]} + 1))
	if [ "$2" = ok ]; then
		survived[$1]=$((${survived[$1]} + 1))
	else
		lost[$1]=$((${lost[$1]} + 1))
		echo "LOST [$1] $3"
	fi
}

# --- kill: SIGKILL at random instants, restart on another P ---------------

# The instances: a command line, and how to read its counts from --json.
golomb_args=(--count 75 10)
uts_args=(-- -t 1 -a 3 -d 11 -b 4 -r 19)
field() { # field NAME: the first value of "NAME":number in the JSON on stdin
	grep -o "\"$1\":[0-9]*" | head -1 | cut -d: -f2
}
counts() { # counts APP: the counts of a JSON record on stdin (the top-level ones come first)
	local j
	j=$(cat)
	case $1 in
	golomb)
		# The count's own nodes are exhaustive, the same under every
		# balancer and restart: the total less the shortest-ruler steps'
		# (branch-and-bound, which vary).
		echo "$(field rulers <<<"$j") $(grep -o '"nodes":[0-9]*' <<<"$j" | cut -d: -f2 | awk 'NR == 1 {t = $1; next} {t -= $1} END {print t}')"
		;;
	uts) echo "$(field nodes <<<"$j") $(field depth <<<"$j") $(field leaves <<<"$j")" ;;
	esac
}
args_of() { # args_of APP: the instance's arguments
	case $1 in
	golomb) echo "${golomb_args[@]}" ;;
	uts) echo "${uts_args[@]}" ;;
	esac
}
declare -A want runtime
for app in golomb uts; do
	t0=$(date +%s%N)
	# shellcheck disable=SC2046 # the instance's arguments are word-split on purpose
	want[$app]=$("$bin/$app" --np 2 --json $(args_of $app) | counts $app)
	runtime[$app]=$((($(date +%s%N) - t0) / 1000000))
	# A baseline that read no numbers (a renamed JSON field) would make
	# every run below agree with it.
	if ! [[ ${want[$app]} =~ ^[0-9]+( [0-9]+){1,2}$ ]]; then
		echo "faults.sh: the uninterrupted $app run gave no counts (\"${want[$app]}\")" >&2
		exit 1
	fi
	echo "uninterrupted $app $(args_of $app): ${want[$app]} (${runtime[$app]} ms on 2 ranks)"
done

balancers=(rp rp-local ps static hybrid koso-star)
from_disk=0 scratch=0 stale=0
for i in $(seq "$KILLS"); do
	app=$([ $((i % 2)) -eq 0 ] && echo golomb || echo uts)
	ck=$work/k$i.ckpt
	np=$((1 + RANDOM % 4))
	b=${balancers[$((RANDOM % ${#balancers[@]}))]}
	every=$((20 + RANDOM % 180))ms
	# The kill lands anywhere in the run, a checkpoint write included.
	at=$((RANDOM % (${runtime[$app]} + 200)))
	# shellcheck disable=SC2046
	"$bin/$app" --np "$np" -b "$b" --json --budget 2000 --checkpoint "$ck" --checkpoint-every "$every" $(args_of $app) >"$work/out" 2>"$work/err" &
	pid=$!
	sleep "$(awk "BEGIN {print $at / 1000}")"
	kill -KILL "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	ls -a "$work" | grep -q "^\.k$i\.ckpt\.tmp-" && stale=$((stale + 1))
	# Restart from what is on disk: on other ranks, in the embedded or
	# the simulated world, keeping on checkpointing into the same file.
	np2=$((1 + (np + RANDOM % 6) % 8))
	world=()
	[ $((RANDOM % 3)) -eq 0 ] && world=(--world sim)
	if [ -f "$ck" ]; then
		from_disk=$((from_disk + 1))
		got=$("$bin/$app" "${world[@]}" --np "$np2" --json --restart "$ck" --checkpoint "$ck" 2>"$work/err" | counts $app) || got="exit status $?: $(tail -1 "$work/err")"
		how="restart from the checkpoint on ${world[*]:-} --np $np2"
	else
		scratch=$((scratch + 1))
		# shellcheck disable=SC2046
		got=$("$bin/$app" "${world[@]}" --np "$np2" -b "$b" --json --checkpoint "$ck" $(args_of $app) 2>"$work/err" | counts $app) || got="exit status $?: $(tail -1 "$work/err")"
		how="rerun from scratch (killed before its first checkpoint) on ${world[*]:-} --np $np2"
	fi
	left=$(ls -a "$work" | grep -E "^\.?k$i\.ckpt\.(lock|tmp-)" || true)
	if [ "$got" = "${want[$app]}" ] && [ -z "$left" ]; then
		record kill ok
	else
		record kill lost "$app -b $b --np $np killed at ${at} ms, $how: got '$got', want '${want[$app]}'${left:+, left behind: $left}"
	fi
	rm -f "$ck"
done
echo "kill: $from_disk restarts from a checkpoint, $scratch reruns from scratch, $stale stale temporary files found after a kill (removed by the restart)"

# --- input: the bad-input table -----------------------------------------

expect() { # expect STATUS WANT CMD...: CMD must exit with STATUS saying WANT, within 10 s
	local status=$1 msg=$2 rc=0
	shift 2
	timeout -k 5 10 "$@" >"$work/out" 2>"$work/err" </dev/null || rc=$?
	if [ "$rc" -eq "$status" ] && grep -qF -- "$msg" "$work/err" && ! grep -q "goroutine " "$work/err"; then
		record input ok
	else
		record input lost "$*: exit status $rc, stderr $(head -c 300 "$work/err"); want $status and: $msg"
	fi
}
# The crafted header: the current format version (runner's checkpointVersion,
# read from the source) and a size of nearly 2^64 bytes.
version=$(sed -n 's/^[[:space:]]*checkpointVersion *= *\([0-9][0-9]*\)$/\1/p' runner/checkpoint.go)
[ -n "$version" ] && [ "$version" -lt 256 ] || { echo "faults.sh: no checkpointVersion in runner/checkpoint.go" >&2; exit 1; }
{
	printf 'TREELBCK'
	printf "\\$(printf %03o "$version")"
	printf '\000\000\000\340\377\377\377\377\377\377\377'
} >"$work/crafted.ckpt"
mkfifo "$work/fifo"
expect 2 "more than the" "$bin/golomb" --restart "$work/crafted.ckpt"
expect 2 "a character device" "$bin/golomb" --restart /dev/zero
expect 2 "a named pipe" "$bin/golomb" --restart "$work/fifo"
expect 2 "a character device" "$bin/golomb" --checkpoint /dev/full 8
expect 2 "a directory" "$bin/golomb" --checkpoint "$work" 8
expect 2 "--balancer" "$bin/golomb" --balancer '' 8
expect 2 "--levels 31" "$bin/golomb" -b static --levels 31 8
expect 2 "infinite expected size" "$bin/uts" --tree-type binomial --branching 2000 --prob 0.2 --children 8
expect 2 "infinite expected size" "$bin/uts" --depth -1
expect 4 "stopped at --max-nodes" "$bin/uts" --np 2 --depth -1 --max-nodes 100000
expect 74 "writing standard output" sh -c "exec \"$bin/golomb\" 8 >/dev/full"
expect 74 "writing standard output" sh -c "exec \"$bin/knapsack\" gen -m 50 >/dev/full"
if [ "$MODE" = full ]; then
	if $GO test -count=1 ./internal/reliability ./runner >"$work/log" 2>&1; then
		n=$(grep -c "^    --- PASS" "$work/log" || true)
		echo "input: the Go tables (internal/reliability, runner) passed"
		record input ok
	else
		tail -40 "$work/log"
		record input lost "the Go tables of internal/reliability and runner failed"
	fi
fi

# --- mpi: launcher faults under both MPIs (full form) --------------------

if [ "$MODE" = full ]; then
	if MPI_TESTS=faults bash scripts/mpi-test.sh >"$work/log" 2>&1; then
		cat "$work/log" | grep -E "^(ok|SKIPPED)" || true
	else
		grep -E "^(ok|FAIL|SKIPPED)" "$work/log" || true
	fi
	while read -r line; do record mpi ok; done < <(grep -E "^ok " "$work/log" || true)
	while read -r line; do record mpi lost "$line"; done < <(grep -E "^FAIL " "$work/log" | grep -v "^FAIL: MPI tests failed" || true)
fi

# --- the table -------------------------------------------------------------

echo
echo "fault campaign ($MODE form, seed $SEED, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(git rev-parse --short HEAD 2>/dev/null || echo unknown))"
echo "| stage | tried | survived | lost |"
echo "|---|---:|---:|---:|"
total_lost=0
for s in kill input mpi; do
	[ "${tried[$s]}" -eq 0 ] && continue
	echo "| $s | ${tried[$s]} | ${survived[$s]} | ${lost[$s]} |"
	total_lost=$((total_lost + ${lost[$s]}))
done
[ "$total_lost" -eq 0 ]
