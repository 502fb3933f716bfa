#!/usr/bin/env bash
# sim-bench.sh: the simulated world against the sequential solver, measured
# in one run, on golomb's exhaustive count (13 marks up to length 106 by
# default, 1.5·10⁹ nodes).
#
# First the count alone, the same nodes in every run: golomb's
# BenchmarkSimulator (go test -bench, REPS runs of each: the sequential
# count, then random polling on 1024, 4096 and 16384 simulated ranks of the
# cluster machine); it prints the median CPU seconds and their ratio to the
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
cd "$(dirname "$0")/.."

GO=${GO:-go}
REPS=${REPS:-3}
MARKS=${MARKS:-13}
COUNT=${COUNT:-106}
PS=${PS:-1024 4096}
BIG=${BIG:-16384}
export GOFLAGS=${GOFLAGS:--buildvcs=false}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if [ "${GOBENCH:-1}" = 1 ]; then
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)  go test -bench BenchmarkSimulator, $MARKS marks" >&2
	TREELB_BENCH_MARKS=$MARKS "$GO" test -run '^$' -bench BenchmarkSimulator -benchtime 1x -count "$REPS" -timeout 0 \
		./apps/golomb/ruler/ | tee "$work/bench" | grep '^Benchmark' >&2
	echo "load $(cut -d' ' -f1-3 /proc/loadavg)  done" >&2
	awk '
	function median(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
		return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
	}
	/^BenchmarkSimulator/ {
		name = $1; sub(/^BenchmarkSimulator\//, "", name); sub(/-[0-9]+$/, "", name)
		for (i = 2; i < NF; i++) if ($(i+1) == "cpu-s/op") { n[name]++; v[name, n[name]] = $i }
		if (!(name in seen)) { seen[name] = 1; order[++k] = name }
	}
	END {
		print "count only (the same nodes in every run): median CPU seconds"
		for (j = 1; j <= n["seq"]; j++) s[j] = v["seq", j]
		base = median(s, n["seq"])
		for (i = 1; i <= k; i++) {
			c = order[i]
			for (j = 1; j <= n[c]; j++) a[j] = v[c, j]
			m = median(a, n[c])
			printf "  %-12s %8.2f  %6.3f\n", c, m, m / base
		}
	}' "$work/bench"
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

echo "the whole command (golomb --count $COUNT $MARKS):"
awk -v reps="$REPS" '
function median(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
{ r = $1; c = $2; wall[c, r] = $3; cpu[c, r] = $4; rss[c, r] = $5; eps[c, r] = $6; if (!(c in seen)) { seen[c] = 1; order[++nc] = c } }
END {
	printf "%-8s %10s %10s %10s %10s %12s %8s %12s\n", "config", "wall s", "cpu s", "wall/seq", "cpu/seq", "events/s", "rss MB", "bytes/rank"
	for (k = 1; k <= nc; k++) {
		c = order[k]; n = 0
		for (r = 1; r <= reps; r++) if ((c, r) in wall) {
			n++; w[n] = wall[c, r]; u[n] = cpu[c, r]; e[n] = eps[c, r]; m[n] = rss[c, r]
			rw[n] = wall[c, r] / wall["seq", r]; ru[n] = cpu[c, r] / cpu["seq", r]
		}
		mw = median(w, n); mu = median(u, n); me = median(e, n); mm = median(m, n)
		mrw = median(rw, n); mru = median(ru, n)
		p = substr(c, 3) + 0; bpr = (c == "seq") ? "" : sprintf("%.0f", (mm - rss["seq", 1]) * 1024 / p)
		printf "%-8s %10.2f %10.2f %10.3f %10.3f %12.0f %8.0f %12s\n", c, mw, mu, mrw, mru, me, mm / 1024, bpr
	}
}' "$raw"
