#!/usr/bin/env bash
# calibrate.sh: the loop's costs under Open MPI on this machine, as this
# directory's machines/openmpi-APP-b10.json were measured: for each app,
# five runs of `mpirun -np 2 APP --calibrate --budget 10` on the validation's
# instance (scripts/validate.sh's defaults), in rounds over the apps, and
# the median of the five, cost by cost (`campaign --median-machine`).
#
#   results/scaling-sim/calibrated/calibrate.sh            # into machines/ here
#   results/scaling-sim/calibrated/calibrate.sh --out DIR
#
# Needs Open MPI (scripts/mpi-build.sh builds against it); about two
# minutes of the 2-vCPU VM. Run it with nothing else on the machine: the
# costs are wall-clock times.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../../.."
out=$here/machines
case ${1:-} in
--out) out=${2:?--out needs a directory} ;;
-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
'') ;;
*) echo "calibrate.sh: unknown argument $1" >&2; exit 2 ;;
esac
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=auto" # the models name the commit
scripts/mpi-build.sh --mpi openmpi --out "$tmp/bin" ./apps/golomb ./apps/fifteen ./apps/uts ./apps/knapsack >&2
go build -o "$tmp/campaign" ./scripts/campaign
"$tmp/bin/knapsack" gen --class sanders -m 2000 --seed 20 >"$tmp/knapsack-20.txt"
declare -A inst=([golomb]='--count 85 12' [fifteen]='--korf 7' [uts]='--tree T1 --depth 11 --granularity 2'
	[knapsack]="--search core $tmp/knapsack-20.txt")
root=()
[ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
for r in 1 2 3 4 5; do
	echo "calibrate.sh: round $r of 5, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	for a in fifteen uts golomb knapsack; do
		# shellcheck disable=SC2086
		mpirun.openmpi "${root[@]}" --oversubscribe -np 2 "$tmp/bin/$a" --calibrate --budget 10 ${inst[$a]} >"$tmp/$a-$r.json"
	done
done
for a in fifteen uts golomb knapsack; do
	"$tmp/campaign" --median-machine "$tmp/$a-"{1,2,3,4,5}.json >"$out/openmpi-$a-b10.json"
done
echo "calibrate.sh: the models are in $out" >&2
