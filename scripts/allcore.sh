#!/usr/bin/env bash
# allcore.sh: what a machine's cores give when all are busy. For each
# instance, round after round, the sequential solver runs alone, then N
# copies of it run at once (no balancer, nothing shared between them), and
# each run's own time (the JSON's "seconds") is printed. The summary gives
# per instance the median of the lone runs, the median of the copies, and
# their ratio: how much longer a core takes when all N are busy (shared
# physical cores, a frequency budget, caches, memory). Efficiency against one
# lone run cannot exceed 1/ratio on such a machine, so the scaling preset's
# figures are read against it (docs/scaling.md, "Measured on 16 cores").
#
#   scripts/allcore.sh                                    # golomb 12 and UTS T3L, N = nproc, 2 rounds
#   scripts/allcore.sh --copies 16 --rounds 3 'golomb 13' 'fifteen --korf 60'
#   scripts/allcore.sh --bin-dir emb/ 'uts --tree T1L'    # prebuilt commands (and emb/campaign), no Go needed
#
# Flags: --copies N (default: nproc), --rounds N (default 2), --bin-dir DIR
# (the commands, and campaign for the medians; default: built from this
# tree), -h/--help. Arguments: instances as the campaign runner writes them
# (APP ARG...; <(...) generators run with DIR on PATH); default 'golomb 12'
# and 'uts --tree T3L'. Each run's output must hold "seconds".
set -euo pipefail
. "$(dirname "$0")/args.sh"

copies=$(nproc) rounds=2 bindir=
while [ $# -gt 0 ]; do
	case $1 in
	--copies) copies=${2:?--copies needs a number}; shift 2 ;;
	--rounds) rounds=${2:?--rounds needs a number}; shift 2 ;;
	--bin-dir) bindir=${2:?--bin-dir needs a directory}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) echo "allcore.sh: unknown flag $1 (--help lists the flags)" >&2; exit 2 ;;
	*) break ;;
	esac
done
for v in "$copies" "$rounds"; do
	case $v in '' | *[!0-9]* | 0) echo "allcore.sh: $v: want a number ≥ 1" >&2; exit 2 ;; esac
done
[ $# -gt 0 ] || set -- 'golomb 12' 'uts --tree T3L'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bindir" ]; then
	bindir=$tmp/bin
	# From the repository, wherever this runs (the instances' files stay
	# relative to the caller's directory).
	repo=$(cd "$(dirname "$0")/.." && pwd)
	(cd "$repo" && go build -o "$bindir/" ./apps/golomb ./apps/uts ./apps/fifteen ./apps/knapsack ./apps/integrate ./scripts/campaign)
	echo "# build: $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)$(git -C "$repo" status --porcelain 2>/dev/null | grep -qv '^??' && echo ' (with uncommitted changes)' || true)"
else
	[ -x "$bindir/campaign" ] || { echo "allcore.sh: $bindir/campaign: not found (build ./scripts/campaign there)" >&2; exit 2; }
	bindir=$(cd "$bindir" && pwd)
	echo "# build: $bindir"
fi
echo "# $(hostname), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# round, instance, lone or copies, seconds"

# one OUTFILE INSTANCE: the sequential solver on the instance, through bash
# so that <(...) works; the commands of bindir first on PATH.
one() {
	PATH=$bindir:$PATH bash -c "exec ${2%% *} --json --balancer seq ${2#* }" >"$1" 2>"$1.err" || {
		echo "allcore.sh: ${2%% *} --balancer seq ${2#* } failed:" >&2
		cat "$1.err" >&2
		return 1
	}
}
seconds() { # the command's first "seconds" in file $1
	local s
	s=$(grep -o '"seconds": *[0-9.eE+-]*' "$1" | head -1 | sed 's/.*: *//')
	[ -n "$s" ] || { echo "allcore.sh: no \"seconds\" in the output of $2" >&2; exit 1; }
	echo "$s"
}
runs=$tmp/runs.txt
: >"$runs"
for r in $(seq "$rounds"); do
	for in in "$@"; do
		one "$tmp/lone" "$in" || exit 1
		s=$(seconds "$tmp/lone" "$in")
		echo "$r	$in	lone	$s"
		echo "$in|lone $s" >>"$runs"
		pids=()
		for c in $(seq "$copies"); do
			one "$tmp/copy$c" "$in" &
			pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p" || exit 1; done
		for c in $(seq "$copies"); do
			s=$(seconds "$tmp/copy$c" "$in")
			echo "$r	$in	copies	$s"
			echo "$in|copies $s" >>"$runs"
		done
	done
done

# Medians as every measurement takes them (campaign --spread: gonum's, the
# lower middle of an even number; a key may hold blanks, the value is the
# last field).
"$bindir/campaign" --spread <"$runs" >"$tmp/spread"
echo "# summary: $copies copies at once against one alone, medians (min-max) of the runs' seconds"
awk -F'\t' '
{ split($1, k, "|"); in_ = k[1]; if (!(in_ in seen)) { seen[in_] = 1; order[++n] = in_ }
  m[in_, k[2]] = $3; lo[in_, k[2]] = $4; hi[in_, k[2]] = $5; c[in_, k[2]] = $2 }
END { for (i = 1; i <= n; i++) { x = order[i]
	printf "%s: lone %.4g s (%.4g-%.4g, %d runs); copies %.4g s (%.4g-%.4g, %d runs): %.2fx\n", x,
		m[x, "lone"], lo[x, "lone"], hi[x, "lone"], c[x, "lone"], m[x, "copies"], lo[x, "copies"], hi[x, "copies"], c[x, "copies"], m[x, "copies"] / m[x, "lone"] } }' "$tmp/spread"
