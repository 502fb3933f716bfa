#!/usr/bin/env bash
# mpi-bench.sh: the mpi benchmarks of the Go binding beside the same
# measurements in C (mpi/cbench/cbench.c), for Open MPI and MPICH, measured
# in one run, plus the embedded world's figures.
#
# For each implementation it builds cbench with that implementation's mpicc
# and the Go benchmarks with go test -c -tags mpi[,mpich], then runs C and Go
# alternately REPS times under mpirun -np 2 (N iterations each) and prints
# the medians side by side with Go−C and Go/C. The machine is shared and
# noisy: read the ratios, and the load averages printed with them.
#
#   scripts/mpi-bench.sh                     # REPS=5 N=20000
#   REPS=3 MPI_IMPLS=mpich scripts/mpi-bench.sh
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_args "$@"
cd "$(dirname "$0")/.."

GO=${GO:-go}
IMPLS=${MPI_IMPLS:-openmpi mpich}
REPS=${REPS:-5}
N=${N:-20000}
EMBEDDED_BENCHTIME=${EMBEDDED_BENCHTIME:-0.5s}
TIMEOUT=${MPI_BENCH_TIMEOUT:-300}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "${KEEP_RAW:-}" ] && trap 'cp "$work/raw" "$KEEP_RAW"; rm -rf "$work"' EXIT
raw="$work/raw" # lines: source benchmark unit value
: >"$raw"

impl_tags() { case $1 in openmpi) echo mpi ;; mpich) echo mpi,mpich ;; esac; }
impl_mpirun() {
	case $1 in
	openmpi) echo mpirun.openmpi --oversubscribe --allow-run-as-root ;;
	mpich) echo mpirun.mpich ;;
	esac
}

# collect SOURCE < go-bench-format output: appends its figures to $raw.
collect() {
	awk -v src="$1" '/^Benchmark/ {
		name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
		for (i = 3; i < NF; i += 2) print src, name, $(i + 1), $i
	}' >>"$raw"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) (2 cores)"
impls=""
for impl in $IMPLS; do
	mpicc=mpicc.$impl
	run=$(impl_mpirun "$impl")
	if ! command -v "$mpicc" >/dev/null || ! command -v "${run%% *}" >/dev/null; then
		echo "SKIPPED: $impl benchmarks: $mpicc or ${run%% *} missing (run scripts/mpi-test.sh as root to install)"
		continue
	fi
	impls="$impls $impl"
	$mpicc -O2 -o "$work/cbench.$impl" mpi/cbench/cbench.c
	$GO test -c -tags "$(impl_tags "$impl")" -o "$work/mpi.$impl.test" ./mpi
	echo "--- $impl: C and Go alternately, $REPS times, mpirun -np 2, $N iterations"
	for rep in $(seq "$REPS"); do
		timeout "$TIMEOUT" $run -np 2 "$work/cbench.$impl" "$N" | collect "C.$impl"
		(cd mpi && timeout "$TIMEOUT" $run -np 2 "$work/mpi.$impl.test" -quiet-ranks -test.run '^$' \
			-test.bench 'PingPong|Iprobe|Allreduce' -test.benchtime "${N}x") | collect "Go.$impl"
		echo -n "$rep "
	done
	echo
done

echo "--- embedded: go test -bench . -benchtime $EMBEDDED_BENCHTIME -count $REPS ./mpi"
$GO test -run '^$' -bench . -benchtime "$EMBEDDED_BENCHTIME" -count "$REPS" ./mpi | collect embedded
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# Per source, benchmark and unit: the median (gonum's, by the campaign
# tool: scripts/campaign --spread), and the best run (the smallest time, the
# largest rate), which noise from other jobs cannot improve. Then one table
# of each.
$GO run ./scripts/campaign --spread <"$raw" | awk -F'\t' '{ print $1, $3, ($1 ~ /\/s$/ ? $5 : $4) }' >"$work/stats"

table() { # table COLUMN TITLE: COLUMN 4 is the median, 5 the best run
	awk -v impls="$impls" -v col="$1" -v title="$2" '
	{ m[$1, $2, $3] = $col }
	function cell(x) { return x == "" ? "-" : sprintf("%.1f", x) }
	function row(name, unit,   i, c, g, line) {
		line = sprintf("%-24s %-10s", name, unit)
		for (i = 1; i <= ni; i++) {
			c = m["C." im[i], name, unit]; g = m["Go." im[i], name, unit]
			line = line sprintf(" | %9s %9s %9s %6s", cell(c), cell(g),
				(c == "" || g == "") ? "-" : sprintf("%+.1f", g - c),
				(c == "" || g == "" || c == 0) ? "-" : sprintf("%.2fx", g / c))
		}
		printf "%s | %9s\n", line, cell(m["embedded", name, unit])
	}
	END {
		ni = split(impls, im, " ")
		head = sprintf("%-24s %-10s", title, "unit")
		for (i = 1; i <= ni; i++) head = head sprintf(" | %9s %9s %9s %6s", "C " im[i], "Go " im[i], "Go-C", "Go/C")
		print head " | " sprintf("%9s", "embedded")
		row("PingPong8", "ns/oneway")
		row("PingPong64K", "ns/oneway")
		row("PingPongWithin8", "ns/oneway")
		row("IprobeEmpty", "ns/op")
		row("AllreduceInt64", "ns/op")
		for (r = 2; r <= 64; r *= 2) if (("embedded", "MessageRate/ranks=" r, "msgs/s") in m)
			printf "%-24s %-10s   %.2f M in total (embedded)\n", "MessageRate/ranks=" r, "msgs/s", m["embedded", "MessageRate/ranks=" r, "msgs/s"] / 1e6
	}' "$work/stats"
}

echo
table 4 "median of $REPS"
echo
table 5 "best of $REPS"
echo
echo "targets: cgo adds <= 300 ns over C per Send/Recv (PingPong8 Go-C) and <= 2x C per Iprobe (IprobeEmpty Go/C);"
echo "         embedded <= 1000 ns one-way for 8 B and >= 2 M msgs/s in total across 2 ranks"
