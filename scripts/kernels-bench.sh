#!/usr/bin/env bash
# kernels-bench.sh: the sequential kernels' CPU time against a base
# revision, measured in one run. Issue 22 asks that the sequential kernels
# be no slower than on the day it was filed: BASE defaults to ab02e68, the
# commit before its first change (docs/scaling.md has the figures); with
# BASE=97a8d6b it measures what the digests of the certificates
# (docs/counts.md) cost the hot loops, the commit before them.
#
# It builds the test binaries of the kernels' packages from BASE and from
# the working tree, then runs each benchmark below ROUNDS times in each
# build, alternating the order of the builds from round to round, and
# records the CPU seconds (user + system) of every benchmark process, which
# a shared machine disturbs less than the wall time. It writes the two
# series as Go benchmark lines (one line per round, sec/op the CPU seconds)
# to OUT/base.txt and OUT/new.txt, with the 1-minute load average before each
# round in OUT/load.txt, and compares them with benchstat when it is
# installed (go install golang.org/x/perf/cmd/benchstat@latest).
#
#   scripts/kernels-bench.sh                    # BASE=ab02e68 ROUNDS=13
#   BASE=97a8d6b scripts/kernels-bench.sh       # what the digests cost
#   BASE=HEAD~3 ROUNDS=5 OUT=/tmp/kb scripts/kernels-bench.sh
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_args "$@"
cd "$(dirname "$0")/.."

GO=${GO:-go}
BASE=${BASE:-ab02e68}
ROUNDS=${ROUNDS:-13}
OUT=${OUT:-$(mktemp -d)}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The benchmarks: name, package, -test.bench pattern, -test.benchtime, each
# about a second of CPU on the development VM. The golomb count runs 11
# marks (TREELB_BENCH_MARKS): --count 72 11; knapsack solves seed 002's
# class, m = 2000, seed 9 (7·10⁷ nodes by core, 6.9·10⁶ by hs).
benches=(
	"FifteenSolveID5 apps/fifteen/puzzle Solve/id5$ 30x"
	"FifteenSearchWorkID5 apps/fifteen/puzzle SearchWork/id5/budget10000$ 30x"
	"GolombCount72x11 apps/golomb/ruler Simulator/seq$ 3x"
	"UTSWorkT1L apps/uts/tree Work/T1L/avx512 30000000x"
	"QuadWorkPoly57 apps/integrate/quad Work/poly57$ 1500x"
	"QuadWorkExp apps/integrate/quad Work/exp$ 8000x"
	"KnapsackCoreSeed9 apps/knapsack/knap Solve/core/seed=9$ 3x"
	"KnapsackHSSeed9 apps/knapsack/knap Solve/hs/seed=9$ 15x"
)

mkdir -p "$work/base"
git archive "$BASE" | tar -x -C "$work/base"
declare -A root=([base]="$work/base" [new]="$PWD")
for v in base new; do
	for p in $(printf '%s\n' "${benches[@]}" | cut -d' ' -f2 | sort -u); do
		(cd "${root[$v]}" && "$GO" test -c -o "$work/$v-${p//\//_}.test" "./$p")
	done
done

: >"$OUT/base.txt"
: >"$OUT/new.txt"
: >"$OUT/load.txt"
for round in $(seq "$ROUNDS"); do
	load=$(cut -d' ' -f1 /proc/loadavg)
	echo "$round $load" >>"$OUT/load.txt"
	echo "round $round of $ROUNDS, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	order="base new"
	[ $((round % 2)) -eq 0 ] && order="new base"
	for v in $order; do
		for b in "${benches[@]}"; do
			read -r name pkg pattern benchtime <<<"$b"
			# The package's directory: the benchmarks read its testdata.
			(cd "${root[$v]}/$pkg" && TREELB_BENCH_MARKS=11 /usr/bin/time -f '%U %S' -o "$work/time" \
				"$work/$v-${pkg//\//_}.test" -test.run '^$' -test.bench "$pattern" -test.benchtime "$benchtime" >"$work/out")
			# A revision without the benchmark runs none and exits 0.
			grep -q '^Benchmark' "$work/out" || { echo "kernels-bench.sh: $pkg at ${v/base/$BASE} has no benchmark $pattern" >&2; exit 1; }
			read -r user sys <"$work/time"
			echo "Benchmark$name 1 $(echo "($user + $sys) * 1000000000" | bc -l | cut -d. -f1) ns/op" >>"$OUT/$v.txt"
		done
	done
done
echo "CPU seconds per benchmark process: $OUT/base.txt ($BASE), $OUT/new.txt (working tree); load averages: $OUT/load.txt" >&2
if command -v benchstat >/dev/null; then
	benchstat "$OUT/base.txt" "$OUT/new.txt"
fi
