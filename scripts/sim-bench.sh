#!/usr/bin/env bash
# sim-bench.sh: the simulated world against the sequential solver, measured
# in one run, on golomb's exhaustive count (13 marks up to length 106 by
# default, 1.5·10⁹ nodes).
#
# First the count alone, the same nodes in every run: golomb's
# BenchmarkSimulator (go test -bench, REPS runs of each: the sequential
# count, then random polling on 1024, 4096 and 16384 simulated ranks of the
# cluster machine); it prints the median CPU seconds (with min and max) and their ratio to the
# sequential count. Then the whole command (golomb --count, the same
# counting search; before issue 20 it first solved the shortest rulers with
# one mark less by branch-and-bound, whose parallel search expands more
# nodes than the sequential one): REPS rounds
# of -b seq and --world sim at P = 1024 and 4096, each under /usr/bin/time,
# with per configuration the medians of wall and CPU time (user + system),
# the ratios to the sequential run of the same round (median over rounds),
# the simulator's events per second (real work included), the maximum
# resident set size and the bytes per rank ((RSS − RSS of seq) / P); then
# one run at P = 16384 for the memory. The machine is shared and noisy:
# read the CPU-time ratios, and the load averages printed with every run.
#
#   scripts/sim-bench.sh                        # REPS=3 MARKS=13 COUNT=106
#   REPS=1 MARKS=12 COUNT=85 scripts/sim-bench.sh
#   GOBENCH=0 scripts/sim-bench.sh              # the whole command only
set -euo pipefail
. "$(dirname "$0")/args.sh"
no_args "$@"
cd "$(dirname "$0")/.."

GO=${GO:-go}
REPS=${REPS:-3}
MARKS=${MARKS:-13}
COUNT=${COUNT:-106}
PS=${PS:-1024 4096}
BIG=${BIG:-16384}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# spread: lines "KEY VALUE" in, "KEY<tab>n<tab>median<tab>min<tab>max" out
# (scripts/campaign --spread: gonum's median, the one every measurement uses).
"$GO" build -o "$work/campaign" ./scripts/campaign
spread() { "$work/campaign" -spread; }

if [ "${GOBENCH:-1}" = 1 ]; then
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)  go test -bench BenchmarkSimulator, $MARKS marks" >&2
	TREELB_BENCH_MARKS=$MARKS "$GO" test -run '^$' -bench BenchmarkSimulator -benchtime 1x -count "$REPS" -timeout 0 \
		./apps/golomb/ruler/ | tee "$work/bench" | grep '^Benchmark' >&2
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)  done" >&2
	# The medians (gonum's, by the campaign tool) and their ratio to seq.
	awk '/^BenchmarkSimulator/ {
		name = $1; sub(/^BenchmarkSimulator\//, "", name); sub(/-[0-9]+$/, "", name)
		for (i = 2; i < NF; i++) if ($(i+1) == "cpu-s/op") print name, $i
	}' "$work/bench" | spread >"$work/bench.spread"
	echo "count only (the same nodes in every run): median CPU seconds (min-max), ratio of the medians to seq"
	awk -F'\t' '{ name[NR] = $1; m[NR] = $3; lo[NR] = $4; hi[NR] = $5; if ($1 == "seq") base = $3 }
	END { for (i = 1; i <= NR; i++) printf "  %-12s %8.2f (%.2f-%.2f)  %6.3f\n", name[i], m[i], lo[i], hi[i], m[i] / base }' "$work/bench.spread"
fi

"$GO" build -o "$work/golomb" ./apps/golomb
raw="$work/raw" # lines: round config wall cpu rss_kb events_per_s
: >"$raw"

# run ROUND CONFIG ARGS...: one timed run, its line appended to raw.
run() {
	local round=$1 config=$2
	shift 2
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)  $config ($round)" >&2
	/usr/bin/time -f '%e %U %S %M' -o "$work/time" "$work/golomb" --json "$@" >"$work/out"
	local eps
	eps=$(grep -o '"events_per_second":[0-9.e+]*' "$work/out" | cut -d: -f2 || true)
	read -r wall user sys rss <"$work/time"
	echo "$round $config $wall $(echo "$user + $sys" | bc -l) $rss ${eps:-0}" >>"$raw"
}

for round in $(seq "$REPS"); do
	run "$round" seq -b seq --count "$COUNT" "$MARKS"
	for p in $PS; do
		run "$round" "P=$p" --world sim --np "$p" --count "$COUNT" "$MARKS"
	done
done
[ -n "$BIG" ] && run 1 "P=$BIG" --world sim --np "$BIG" --count "$COUNT" "$MARKS"
echo "load $(cut -d' ' -f1-3 /proc/loadavg)  done" >&2

echo "the whole command (golomb --count $COUNT $MARKS): medians over the rounds (gonum's, by the campaign tool)"
# Per configuration and round its figures, and its wall and CPU time over
# the sequential run's of the same round; then their medians.
awk '{ r = $1; c = $2; wall[c, r] = $3; cpu[c, r] = $4; rss[c, r] = $5; eps[c, r] = $6; round[NR] = r; conf[NR] = c }
END {
	for (i = 1; i <= NR; i++) {
		c = conf[i]; r = round[i]
		print c " wall", wall[c, r]; print c " cpu", cpu[c, r]; print c " eps", eps[c, r]; print c " rss", rss[c, r]
		if (("seq", r) in wall) { print c " wall/seq", wall[c, r] / wall["seq", r]; print c " cpu/seq", cpu[c, r] / cpu["seq", r] }
	}
}' "$raw" | spread >"$work/raw.spread"
awk -F'\t' '{ split($1, k, " "); c = k[1]; med[c, k[2]] = $3; if (!(c in seen)) { seen[c] = 1; order[++nc] = c } }
END {
	printf "%-8s %10s %10s %10s %10s %12s %8s %12s\n", "config", "wall s", "cpu s", "wall/seq", "cpu/seq", "events/s", "rss MB", "bytes/rank"
	for (i = 1; i <= nc; i++) {
		c = order[i]; p = substr(c, 3) + 0
		bpr = (c == "seq") ? "" : sprintf("%.0f", (med[c, "rss"] - med["seq", "rss"]) * 1024 / p)
		printf "%-8s %10.2f %10.2f %10.3f %10.3f %12.0f %8.0f %12s\n", c, med[c, "wall"], med[c, "cpu"], med[c, "wall/seq"], med[c, "cpu/seq"],
			med[c, "eps"], med[c, "rss"] / 1024, bpr
	}
}' "$work/raw.spread"
