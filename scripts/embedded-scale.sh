#!/usr/bin/env bash
# embedded-scale.sh: issue 23's measure of the embedded world at scale, the
# time of `golomb --np 65536 10` against `golomb --np 1024 10` (target: at
# most 70×; linear is 64×), in one run on this machine. Each of ROUNDS
# rounds runs the small world REPS times, the large world once, and the
# small world REPS times again, each under /usr/bin/time, printing every
# run's wall and CPU seconds (user + system), maximum resident set and the
# load average before it. The summary gives, for wall and CPU time, the
# medians of the small and the large runs, their ratio, and each round's
# ratio (its large run against the median of the small runs around it;
# medians as every measurement takes them, scripts/campaign --spread):
# the spread of those is how far the machine's speed moved during the
# measurement. docs/reliability.md ("Scale: 65 536 ranks in one process")
# has the figures measured so far.
#
#   scripts/embedded-scale.sh                          # ROUNDS=2 REPS=3, 1024 against 65536 ranks, golomb 10
#   scripts/embedded-scale.sh --small 1024 --large 16384 --rounds 3
#   scripts/embedded-scale.sh --bin /tmp/golomb-other  # another build
#
# Flags: --small P (default 1024), --large P (default 65536), --rounds N
# (default 2), --reps N (default 3), --marks N (default 10), --bin PATH (a
# golomb binary; default: built from this tree), -h/--help.
set -euo pipefail
. "$(dirname "$0")/args.sh"
cd "$(dirname "$0")/.."

small=1024 large=65536 rounds=2 reps=3 marks=10 bin=""
while [ $# -gt 0 ]; do
	case $1 in
	--small) small=${2:?--small needs a number}; shift 2 ;;
	--large) large=${2:?--large needs a number}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
	--reps) reps=${2:?--reps needs a number}; shift 2 ;;
	--marks) marks=${2:?--marks needs a number}; shift 2 ;;
	--bin) bin=${2:?--bin needs a path}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "embedded-scale.sh: unknown argument $1 (--help lists the flags)" >&2; exit 2 ;;
	esac
done
for v in "$small" "$large" "$rounds" "$reps" "$marks"; do
	case $v in '' | *[!0-9]* | 0) echo "embedded-scale.sh: $v: want a number ≥ 1" >&2; exit 2 ;; esac
done
[ "$marks" -ge 2 ] && [ "$marks" -le 19 ] || { echo "embedded-scale.sh: --marks $marks: want 2 to 19 (golomb's MARKS)" >&2; exit 2; }
[ -z "$bin" ] || [ -x "$bin" ] || { echo "embedded-scale.sh: --bin $bin: no such executable" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "embedded-scale.sh: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/campaign" ./scripts/campaign
if [ -z "$bin" ]; then
	go build -o "$tmp/golomb" ./apps/golomb
	bin=$tmp/golomb
	echo "# build: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git status --porcelain 2>/dev/null | grep -qv '^??' && echo ' (with uncommitted changes)' || true)"
else
	echo "# build: $bin"
fi
echo "# $(hostname), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), transparent huge pages: $(sed 's/.*\[\(.*\)\].*/\1/' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo unknown)"
echo "# golomb --np P $marks; round, P, wall s, CPU s, max RSS KB, load before"

runs=$tmp/runs.txt
: >"$runs"
one() { # one ROUND P
	local load out
	load=$(cut -d' ' -f1 /proc/loadavg)
	/usr/bin/time -o "$tmp/t" -f '%e %U %S %M' "$bin" --np "$2" "$marks" >"$tmp/out" 2>"$tmp/err" || {
		echo "embedded-scale.sh: golomb --np $2 $marks failed:" >&2
		cat "$tmp/err" >&2
		exit 1
	}
	grep -q "optimal length" "$tmp/out" || { echo "embedded-scale.sh: golomb --np $2 $marks printed no optimal ruler" >&2; exit 1; }
	out=$(awk -v r="$1" -v p="$2" -v l="$load" '{printf "%s %s %.2f %.2f %s %s", r, p, $1, $2 + $3, $4, l}' "$tmp/t")
	echo "$out" | tee -a "$runs"
}
for r in $(seq "$rounds"); do
	for _ in $(seq "$reps"); do one "$r" "$small"; done
	one "$r" "$large"
	for _ in $(seq "$reps"); do one "$r" "$small"; done
done

# The medians are gonum's, the one every measurement uses (scripts/campaign
# --spread: lines "KEY VALUE" in, "KEY n median min max" out; of an even
# number of runs, the lower middle one).
awk -v small="$small" '{
	size = $2 == small ? "small" : "large"
	printf "%s.wall %s\n%s.cpu %s\nround%d.%s.wall %s\nround%d.%s.cpu %s\n", size, $3, size, $4, $1, size, $3, $1, size, $4
}' "$runs" | "$tmp/campaign" --spread >"$tmp/spread"
awk -F'\t' -v small="$small" -v large="$large" -v rounds="$rounds" '
{ n[$1] = $2; m[$1] = $3; lo[$1] = $4; hi[$1] = $5 }
# A ratio of times below the hundredths that /usr/bin/time gives is none.
function ratio(a, b) { return b > 0 ? sprintf("%.1fx", a / b) : "n/a (times under 0.01 s: give larger --small and --marks)" }
function line(what, k) {
	printf "%-5s %d ranks: median %.3f s (%.3f-%.3f, %d runs); %d ranks: median %.2f s (%.2f-%.2f, %d runs): %s\n", what,
		small, m["small." k], lo["small." k], hi["small." k], n["small." k],
		large, m["large." k], lo["large." k], hi["large." k], n["large." k], ratio(m["large." k], m["small." k])
}
END {
	printf "# summary: %d against %d ranks; linear is %.0fx (issue 23: 65536 against 1024 at most 70x)\n", large, small, large / small
	line("wall:", "wall")
	line("CPU:", "cpu")
	for (r = 1; r <= rounds; r++)
		printf "round %d: wall %s, CPU %s\n", r, ratio(m["round" r ".large.wall"], m["round" r ".small.wall"]), ratio(m["round" r ".large.cpu"], m["round" r ".small.cpu"])
}' "$tmp/spread"
