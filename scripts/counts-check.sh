#!/usr/bin/env bash
# counts-check.sh: the invariants of docs/counts.md by hand, on the built
# commands. For each instance it prints the nodes and the certificate of a
# run under --balancer seq, under every balancer at --np 1, 2 and 7, in the
# simulated world at --np 64 and 1024 (and 4096 for rp and static), and of
# a run at --np 2 stopped by SIGUSR1 with --checkpoint, then restarted from
# the file at --np 3 and in the simulated world at --np 1024; it exits 1
# when any of them differs from the sequential run's.
#
#   scripts/counts-check.sh                      # the instances of docs/counts.md
#   scripts/counts-check.sh 'golomb --count 60 10' 'uts --tree T3'
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_flags "$@"
cd "$(dirname "$0")/.."

GO=${GO:-go}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$GO" build -o "$work/" ./apps/golomb ./apps/uts ./apps/integrate ./apps/fifteen

if [ $# -eq 0 ]; then
	set -- 'golomb --count 72 11' 'uts --tree T1' 'integrate poly --degree 10 --theta-a 1e-17' \
		'integrate alpha --alpha 0.98 --tree-seed 2'
fi
# The registered balancers, from the help of --balancer.
balancers=$("$work/golomb" --help | grep -o 'seq (sequential solver) or one of [^;]*' | sed 's/.*one of //; s/,//g')

# fingerprint: "NODES CERTIFICATE" of the JSON on stdin.
fingerprint() {
	local out
	out=$(cat)
	echo "$(grep -o '"nodes":[0-9]*' <<<"$out" | head -1 | cut -d: -f2) $(grep -o '"certificate":"[0-9a-f]*"' <<<"$out" | head -1 | cut -d'"' -f4)"
}

status=0
for instance in "$@"; do
	read -r -a cmd <<<"$instance"
	bin="$work/${cmd[0]}"
	args=("${cmd[@]:1}")
	echo "## $instance (load $(cut -d' ' -f1-3 /proc/loadavg))"
	want=$("$bin" "${args[@]}" --json -q -b seq | fingerprint)
	echo "| seq | $want |"
	if ! [[ $want =~ ^[0-9]+\ [0-9a-f]{16}$ ]]; then
		echo "counts-check.sh: $instance -b seq printed no nodes and certificate (\"$want\")" >&2
		exit 1
	fi
	check() { # label, then the extra arguments
		local label=$1 got
		shift
		got=$("$bin" "$@" --json -q | fingerprint)
		if [ "$got" = "$want" ]; then
			echo "| $label | $got |"
		else
			echo "| $label | $got | DIFFERS |"
			status=1
		fi
	}
	for b in $balancers; do
		for np in 1 2 7; do
			check "$b --np $np" "${args[@]}" -b "$b" --np "$np"
		done
		nps="64 1024"
		case $b in rp | static) nps="$nps 4096" ;; esac
		for np in $nps; do
			check "$b --world sim --np $np" "${args[@]}" -b "$b" --world sim --np "$np"
		done
	done
	# SIGUSR1 at --np 2: earlier and earlier until it comes before the end.
	ckpt="$work/check.ckpt"
	after=0.2
	for try in 1 2 3 4 5 6; do
		rm -f "$ckpt"
		"$bin" "${args[@]}" --json --np 2 --checkpoint "$ckpt" >/dev/null 2>"$work/err" &
		pid=$!
		sleep "$after"
		kill -USR1 "$pid" 2>/dev/null || true
		code=0
		wait "$pid" || code=$?
		[ "$code" -eq 3 ] && break
		after=$(echo "$after / 2" | bc -l)
	done
	if [ "$code" -ne 3 ]; then
		echo "| SIGUSR1 at --np 2 | exit $code: the run ended before the signal | DIFFERS |"
		status=1
		continue
	fi
	echo "| SIGUSR1 at --np 2 after $(printf %.3f "$after") s | exit 3: $(grep -o '[0-9]* open tasks\? after [0-9]* nodes' "$work/err") |"
	check "--restart at --np 3" --restart "$ckpt" --np 3
	check "--restart at --world sim --np 1024" --restart "$ckpt" --world sim --np 1024
done
exit $status
