#!/usr/bin/env bash
# validate.sh: the simulator against real runs (docs/simulator.md,
# "Validation against real runs"). For each real world (the embedded world,
# and mpirun with Open MPI and with MPICH), each instance and each budget
# Δt, it runs that configuration of the campaign preset `validate`: the
# instance at every P, --repeats times in the real world, each repeat right
# after a calibration of a model on this machine (the command's
# --calibrate --budget Δt, 2 ranks of that world: the loop's cost per slice
# depends on Δt); then once simulated with the median of those models, cost
# by cost (campaign --median-machine), so that the model samples the
# machine's speed over the minute its runs take (it drifts by up to 2× within
# minutes), and the drift over longer times falls between configurations,
# not between a model and its runs. Then the preset, over every configuration (all its runs are in
# the CSV by then: nothing runs again), writes the comparison (measured
# median seconds with their spread, the load before and after, simulated
# virtual seconds, the error, and the counters that say which cost explains
# a miss).
#
#   scripts/validate.sh                                  # P = 1,2, 3 worlds, 4 apps: about 40 min on 2 idle cores
#   scripts/validate.sh --np 4,8,16                      # on a 16-core machine, unchanged otherwise
#   scripts/validate.sh --np 4,8,16 --bin-dir BINS       # there, with commands built here (no Go there)
#   scripts/validate.sh --worlds embedded,openmpi --apps golomb,uts --out /tmp/v   # a short run
#   scripts/validate.sh --instance 'golomb --count 50 10' --repeats 1 --out /tmp/v # tiny, for debugging
#
# Flags: --np LIST (default 1,2), --worlds LIST (embedded, openmpi, mpich;
# default all three), --apps LIST (golomb, fifteen, uts, knapsack: which of
# the default instances; default all), --instance SPEC (repeatable: replaces
# the default instances, a campaign instance spec), --budgets LIST (default
# 10,100,1000,10000), --repeats N (default 5), --out DIR (default
# results/validate), --bin-dir DIR (prebuilt commands instead of building
# them: DIR/campaign, DIR/embedded/APP and DIR/WORLD/APP for each MPI world,
# as `CGO_ENABLED=0 go build -buildvcs=auto -trimpath -o DIR/ ./scripts/campaign`,
# the same into DIR/embedded/ with ./apps/..., and `scripts/mpi-build.sh
# --mpi WORLD --out DIR/WORLD` make them; the commit is then the campaign
# command's), -h/--help.
#
# Writes into DIR: machines/WORLD-APP-bΔt.json (the calibrated models),
# WORLD-runs.csv (every run: the campaign runner's CSV, with each run's
# command line, load, and provenance), WORLD.csv (the comparison,
# campaign.ValidationColumns) and validate.md (this command line, the
# commit, the machine and its load, then a table per world). The runs of a
# world start afresh (its old CSVs and models are removed).
set -euo pipefail
. "$(dirname "$0")/args.sh"
cd "$(dirname "$0")/.."

cmdline=scripts/validate.sh
[ $# -eq 0 ] || cmdline="$cmdline$(printf ' %q' "$@")"
np=1,2
worlds=embedded,openmpi,mpich
apps=golomb,fifteen,uts,knapsack
budgets=10,100,1000,10000
repeats=5
out=results/validate
prebuilt=
instances=()
while [ $# -gt 0 ]; do
	case $1 in
	--np) np=${2:?--np needs a list}; shift 2 ;;
	--worlds) worlds=${2:?--worlds needs a list}; shift 2 ;;
	--apps) apps=${2:?--apps needs a list}; shift 2 ;;
	--instance) instances+=("${2:?--instance needs a spec}"); shift 2 ;;
	--budgets) budgets=${2:?--budgets needs a list}; shift 2 ;;
	--repeats) repeats=${2:?--repeats needs a number}; shift 2 ;;
	--out) out=${2:?--out needs a directory}; shift 2 ;;
	--bin-dir) prebuilt=${2:?--bin-dir needs a directory}; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "validate.sh: unknown argument $1 (--help lists the flags)" >&2; exit 2 ;;
	esac
done
case $repeats in '' | *[!0-9]* | 0) echo "validate.sh: --repeats $repeats: want a number ≥ 1" >&2; exit 2 ;; esac
# The default instances are the preset's (campaign.ValidateInstances), by app.
declare -A default=(
	[golomb]='golomb --count 85 12'
	[fifteen]='fifteen --korf 7'
	[uts]='uts --tree T1 --depth 11 --granularity 2'
	[knapsack]='knapsack --search core <(knapsack gen --class sanders -m 2000 --seed 20)'
)
if [ ${#instances[@]} -eq 0 ]; then
	IFS=, read -ra as <<<"$apps"
	for a in "${as[@]}"; do
		[ -n "${default[$a]:-}" ] || { echo "validate.sh: --apps: unknown app $a (golomb, fifteen, uts, knapsack)" >&2; exit 2; }
		instances+=("${default[$a]}")
	done
fi
IFS=, read -ra ws <<<"$worlds"
for w in "${ws[@]}"; do
	case $w in embedded | openmpi | mpich) ;; *) echo "validate.sh: --worlds: unknown world $w (embedded, openmpi, mpich)" >&2; exit 2 ;; esac
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
load() { cut -d' ' -f1-3 /proc/loadavg; }
load_start=$(load)
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)

# The commands: the campaign runner, the embedded build, each MPI build,
# all stamped with the commit (-buildvcs=auto through GOFLAGS, so that
# mpi-build.sh's go build gets it too: a `go env -w GOFLAGS=-buildvcs=false`
# left the MPI rows' provenance.commit "unknown").
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-buildvcs=auto"
campaign_bin=$tmp/campaign
pkgs=()
for in in "${instances[@]}"; do
	p=./apps/${in%% *}
	[[ " ${pkgs[*]} " == *" $p "* ]] || pkgs+=("$p")
done
[[ " ${pkgs[*]} " == *" ./apps/knapsack "* ]] || ! [[ "${instances[*]}" == *"<(knapsack"* ]] || pkgs+=(./apps/knapsack)
bindir() { echo "$tmp/bin/$1"; }
if [ -n "$prebuilt" ]; then
	prebuilt=$(cd "$prebuilt" && pwd) || exit 2
	campaign_bin=$prebuilt/campaign
	bindir() { echo "$prebuilt/$1"; }
	for c in "$campaign_bin" $(for w in "${ws[@]}"; do for p in "${pkgs[@]}"; do echo "$(bindir "$w")/${p##*/}"; done; done); do
		[ -x "$c" ] || { echo "validate.sh: --bin-dir: no command $c (--help says what the directory holds)" >&2; exit 2; }
	done
else
	go build -o "$campaign_bin" ./scripts/campaign
	for w in "${ws[@]}"; do
		if [ "$w" = embedded ]; then
			go build -o "$(bindir embedded)/" "${pkgs[@]}"
		else
			scripts/mpi-build.sh --mpi "$w" --out "$(bindir "$w")" "${pkgs[@]}" >&2
		fi
	done
fi
mkdir -p "$out/machines" # once the commands are there: a refused --bin-dir makes nothing
# knapsack gen for the inputs, from whichever build there is.
gen_bin=$(bindir "${ws[0]}")

# launcher WORLD: the launcher's words for the campaign ({np}: P).
launcher() {
	case $1 in
	embedded) echo "" ;;
	openmpi)
		local root=""
		[ "$(id -u)" = 0 ] && root="--allow-run-as-root"
		echo "mpirun.openmpi $root --oversubscribe -np {np}" ;;
	mpich) echo "mpirun.mpich -np {np}" ;;
	esac
}

# args SPEC: the instance's arguments, each <(APP ARG...) made into a file.
n_inputs=0
args() {
	local spec=${1#* } words=() w gen="" in_gen=no
	read -ra ws_ <<<"$spec"
	for w in "${ws_[@]}"; do
		if [ $in_gen = no ] && [[ $w == "<("* ]]; then
			in_gen=yes gen=${w#"<("}
		elif [ $in_gen = yes ]; then
			gen="$gen $w"
		else
			words+=("$w")
		fi
		if [ $in_gen = yes ] && [[ $w == *")" ]]; then
			gen=${gen%)}
			n_inputs=$((n_inputs + 1))
			local f="$tmp/input-$n_inputs.txt"
			# shellcheck disable=SC2086
			"$gen_bin/${gen%% *}" ${gen#* } >"$f"
			words+=("$f")
			in_gen=no
		fi
	done
	printf '%s\n' "${words[@]}"
}

if [ -n "$prebuilt" ]; then
	commit=$("$campaign_bin" --version | sed -n 's/^commit: \([0-9a-f]\{7\}\).*/\1/p')
	dirty=" (the commands of --bin-dir $prebuilt)"
else
	commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
	dirty=$(git status --porcelain 2>/dev/null | grep -qv '^??' && echo " (with uncommitted changes)" || true)
fi
md="$out/validate.md"
body="$tmp/body.md"
: >"$body"
for w in "${ws[@]}"; do
	bin=$(bindir "$w")
	read -ra launch <<<"$(launcher "$w" | sed 's/{np}/2/')"
	rm -f "$out/machines/$w-"*.json "$out/$w-runs.csv" "$out/$w.csv" # the world's models and runs start afresh
	prov="$cmdline at $commit$dirty on $(hostname), $(nproc) cores, $started"
	# campaign ARG...: the preset in this world, its report on stdout.
	campaign() {
		"$campaign_bin" --preset validate --set world="$w" --set machines="$out/machines" \
			--set provenance="$prov" --np "$np" --repeats "$repeats" --bin-dir "$bin" --launcher "$(launcher "$w")" \
			--csv "$out/$w-runs.csv" --plots none --timeout 600s "$@"
	}
	for in in "${instances[@]}"; do
		app=${in%% *}
		mapfile -t a < <(args "$in")
		IFS=, read -ra bs <<<"$budgets"
		for b in "${bs[@]}"; do
			m=$out/machines/$w-$app-b$b.json
			cals=()
			for r in $(seq "$repeats"); do
				echo "validate.sh: $w: $app, Δt = $b: calibration $r of $repeats, then repeat $r of the runs (load $(load))" >&2
				cals+=("$tmp/calibration-$r.json")
				if [ "$w" = embedded ]; then
					"$bin/$app" --calibrate --np 2 --budget "$b" "${a[@]}" >"${cals[-1]}"
				else
					"${launch[@]}" "$bin/$app" --calibrate --budget "$b" "${a[@]}" >"${cals[-1]}"
				fi
				if [ "$r" -lt "$repeats" ]; then
					campaign --repeats "$r" --set simulate=no --set budgets="$b" --instance "$in" >/dev/null
				fi
			done
			"$campaign_bin" --median-machine "${cals[@]}" >"$m"
			campaign --set budgets="$b" --instance "$in" >/dev/null # the last repeat, then the simulated runs
		done
	done
	ins=()
	for in in "${instances[@]}"; do ins+=(--instance "$in"); done
	campaign --set budgets="$budgets" --set table="$out/$w.csv" "${ins[@]}" >"$tmp/$w.out"
	# The preset's report is what follows its heading; the runner's generic
	# speedup summary before it is left out.
	{ echo; sed -n '/^### The simulator against/,$p' "$tmp/$w.out"; } >>"$body"
	rm -f "$out/$w-runs-summary.csv"
done

{
	echo "# The simulator against real runs"
	echo
	echo "Written by \`$cmdline\` at commit $commit$dirty, $started to $(date -u +%Y-%m-%dT%H:%M:%SZ),"
	echo "on $(hostname) ($(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //'))."
	echo "Load average (1, 5, 15 min) at the start: $load_start; at the end: $(load)."
	echo "Worlds: ${ws[*]}; P = $np; Δt = $budgets; $repeats repeats of every real run, one simulated run each"
	echo "(the simulator is deterministic); balancer rp. The calibrated models are machines/WORLD-APP-bΔt.json;"
	echo "every run, with its command line, load and provenance, is in WORLD-runs.csv; the tables below are WORLD.csv."
	cat "$body"
} >"$md"
echo "validate.sh: wrote $md" >&2
