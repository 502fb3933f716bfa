#!/usr/bin/env bash
# cross-arch.sh: the invariants of docs/counts.md across processor
# architectures. It builds the apps for this machine and, statically, for
# other architectures (default arm64, little-endian, whose compiler fuses
# multiply-adds, and s390x, big-endian, which fuses them too), runs them
# under qemu-user, and compares with this machine's build: the nodes and
# certificates of exhaustive searches (and the integral's value, the
# α-tree's digest, the 15-puzzle's failing iterations and solution length,
# knapsack's generated instance and optimal profit), the simulated world's
# whole report (virtual seconds and events: a simulation is the same on
# every machine), and checkpoint chains that cross architectures: a run
# stopped by --max-nodes on one, restarted on the other, against the
# uninterrupted run. It exits 1 when anything differs.
#
#   scripts/cross-arch.sh                 # arm64 and s390x against this machine (amd64 for one of them on those)
#   scripts/cross-arch.sh --arch ppc64le  # another list (GOARCH names)
#
# qemu-user is installed with apt-get when missing and we are root (saying
# so); where it cannot be, the script fails as root with apt-get (the place
# where make test installs what it needs; TREELB_SKIP_MISSING=1 skips) and
# otherwise says it SKIPPED and exits 0. Flags: --arch LIST, -h/--help.
set -euo pipefail
. "$(dirname "$0")/args.sh"
cd "$(dirname "$0")/.."

arches=""
while [ $# -gt 0 ]; do
	case $1 in
	--arch) arches=${2:?--arch needs a list}; arches=${arches//,/ }; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	*) echo "cross-arch.sh: unknown argument $1 (--help lists the flags)" >&2; exit 2 ;;
	esac
done

GO=${GO:-go}
export GOFLAGS=${GOFLAGS:--buildvcs=false} CGO_ENABLED=0
host=$("$GO" env GOARCH)
if [ -z "$arches" ]; then # two of arm64, s390x, amd64 that are not this machine
	arches=$(printf '%s\n' arm64 s390x amd64 | grep -vx "$host" | head -2 | tr '\n' ' ')
	arches=${arches% }
fi

# qemu's name for an architecture.
qemu_of() {
	case $1 in
	arm64) echo qemu-aarch64 ;; amd64) echo qemu-x86_64 ;; 386) echo qemu-i386 ;;
	ppc64le) echo qemu-ppc64le ;; riscv64) echo qemu-riscv64 ;; s390x) echo qemu-s390x ;;
	*) echo "qemu-$1" ;;
	esac
}
missing() {
	local a
	for a in $arches; do command -v "$(qemu_of "$a")" >/dev/null || echo "$(qemu_of "$a")"; done
}
if [ -n "$(missing)" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
	echo "installing qemu-user with apt-get (missing: $(missing | tr '\n' ' '))"
	apt-get update -qq && apt-get install -y -qq qemu-user >/dev/null || echo "apt-get install qemu-user failed"
	if [ -n "$(missing)" ] && [ -z "${TREELB_SKIP_MISSING:-}" ]; then
		echo "FAIL: the cross-architecture checks cannot run: still missing $(missing | tr '\n' ' ')(TREELB_SKIP_MISSING=1 skips them instead)"
		exit 1
	fi
fi
if [ -n "$(missing)" ]; then
	echo "SKIPPED: the cross-architecture checks need $(missing | tr '\n' ' ')(Debian: apt-get install qemu-user)"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
apps="golomb uts integrate fifteen knapsack"
for a in $host $arches; do
	mkdir -p "$work/$a"
	for app in $apps; do
		GOARCH=$a "$GO" build -trimpath -o "$work/$a/$app" "./apps/$app"
	done
done

# run ARCH APP ARGS...: the app built for ARCH, under qemu unless native.
run() {
	local a=$1 app=$2
	shift 2
	if [ "$a" = "$host" ]; then
		"$work/$a/$app" "$@"
	else
		"$(qemu_of "$a")" "$work/$a/$app" "$@"
	fi
}
# fingerprint ARCH APP ARGS...: what must agree, from the run's JSON (the
# first nodes and certificate are the run's; the rest are per step or
# iteration), or the run's exit status and first line of error when it
# failed: a failure differs from any fingerprint and stops nothing.
fingerprint() {
	local out code=0
	out=$(run "$@" 2>"$work/fp.err") || code=$?
	if [ "$code" -ne 0 ]; then
		echo "exit $code: $(head -1 "$work/fp.err")"
		return 0
	fi
	grep -o '"\(nodes\|certificate\|value\|digest\|failing_nodes\|length\|rulers\|profit\|virtual_seconds\|events\)":[^,}]*' <<<"$out" |
		tr '\n' ' ' || true
}

echo "# this machine: $host ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')); $arches under qemu-user $(
	"$(qemu_of "${arches%% *}")" --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')"
run "$host" knapsack gen --class sanders -m 300 --seed 42 >"$work/knap.txt"
cp "$work/knap.txt" "$work/knap-$host.txt"
status=0
differs() { echo "DIFFERS: $*"; status=1; }

# Exhaustive searches in the embedded world; branch-and-bound (golomb's
# shortest ruler, fifteen's last iteration, knapsack) under the sequential
# solver, whose nodes do not depend on a schedule; and the simulated world,
# whose schedule is the same on every machine.
instances=(
	'golomb --count 60 10'
	'golomb 9 -b seq'
	'uts --tree T1'
	'integrate func osc --theta-a 1e-10'
	'integrate poly --degree 10 --theta-a 1e-12'
	'integrate alpha --alpha 0.98 --tree-seed 2'
	'fifteen --korf 86 -b seq'
	"knapsack -b seq $work/knap.txt"
	'golomb 9 --world sim --np 64'
	'uts --tree T3 --world sim --np 64'
	'integrate func gauss --theta-a 1e-10 --world sim --np 64'
	'fifteen --korf 86 --world sim --np 64'
	"knapsack $work/knap.txt --world sim --np 64"
)
for a in $arches; do
	echo "## $a against $host"
	run "$a" knapsack gen --class sanders -m 300 --seed 42 >"$work/knap-$a.txt"
	if cmp -s "$work/knap-$host.txt" "$work/knap-$a.txt"; then
		echo "same: knapsack gen --class sanders -m 300 --seed 42 ($(wc -c <"$work/knap.txt") bytes)"
	else
		differs "knapsack gen --class sanders -m 300 --seed 42"
	fi
	for inst in "${instances[@]}"; do
		read -r -a cmd <<<"$inst"
		want=$(fingerprint "$host" "${cmd[@]}" --json)
		got=$(fingerprint "$a" "${cmd[@]}" --json)
		if [ -z "$want" ] || [[ $want == exit* ]]; then
			differs "$inst: no fingerprint on $host (${want:-nothing printed})"
		elif [ "$got" = "$want" ]; then
			echo "same: $inst: ${want:0:100}"
		else
			differs "$inst: $host $want; $a $got"
		fi
	done
	# Checkpoints across architectures, both ways.
	for chain in "$host $a" "$a $host"; do
		read -r from to <<<"$chain"
		for inst in 'golomb --count 75 11 --max-nodes 5000000' 'uts --tree T1 --depth 11 --max-nodes 4000000'; do
			read -r -a cmd <<<"$inst"
			ck="$work/$from-$to.ckpt"
			rm -f "$ck"
			code=0
			run "$from" "${cmd[@]}" --checkpoint "$ck" --json >/dev/null 2>"$work/err" || code=$?
			if [ "$code" -ne 4 ] || [ ! -s "$ck" ]; then
				differs "$inst on $from: exit $code, no checkpoint: $(head -2 "$work/err")"
				continue
			fi
			want=$(fingerprint "$host" "${cmd[@]:0:${#cmd[@]}-2}" --json)
			got=$(fingerprint "$to" "${cmd[0]}" --restart "$ck" --np 3 --json)
			if [ "$got" = "$want" ]; then
				echo "same: $inst on $from, restarted on $to: ${want:0:60}"
			else
				differs "$inst on $from, restarted on $to: $got; uninterrupted $want"
			fi
		done
	done
done
[ $status -eq 0 ] && echo "cross-arch.sh: every check agreed ($host against $arches)"
exit $status
