#!/usr/bin/env bash
# mpi-build.sh: build treelb's commands for the MPI world (-tags mpi)
# against whatever MPI library this machine has; `make mpi` runs it.
#
#   scripts/mpi-build.sh                        # Open MPI into bin/openmpi/
#   scripts/mpi-build.sh --mpi mpich            # MPICH into bin/mpich/
#   MPICC=mpiicc scripts/mpi-build.sh --mpi intel-mpi     # a site's MPI into bin/intel-mpi/
#   scripts/mpi-build.sh --mpi mpich --print-flags        # how it would build, no build
#   scripts/mpi-build.sh --out /tmp/b ./apps/golomb       # some commands, elsewhere
#
# Flags: --mpi NAME (default openmpi; the name of the build's directory and
# of the library expected: openmpi, mpich, or any other name, e.g.
# intel-mpi, mvapich, cray-mpich), --out DIR (default bin/NAME),
# --print-flags (print the tags and flags chosen and where they came from,
# build nothing), -h/--help. Arguments: the packages to build (default every
# command under apps/ and the campaign runner).
#
# The MPI library's compiler and linker flags come from the first of:
#   1. CGO_LDFLAGS (with CGO_CFLAGS) set by the caller: used as they are;
#   2. MPICC set by the caller: that compiler wrapper (below);
#   3. pkg-config: ompi-c for openmpi, mpich for mpich (the build's own
#      #cgo pkg-config directive, tags mpi or mpi,mpich), or for another
#      NAME the module MPI_PC names;
#   4. the MPI compiler wrapper on PATH: mpicc.NAME (Debian's names), then
#      mpicc.
# A wrapper is asked for its flags as Open MPI's answers (-showme:compile,
# -showme:link), as Cray's compiler wrappers answer (--cray-print-opts=cflags
# and libs), or as MPICH and its relatives (Intel MPI, MVAPICH) answer
# (-show: the whole compiler command line, whose -I/-D flags go to
# CGO_CFLAGS and -L/-l/-Wl flags to CGO_LDFLAGS). Routes 1, 2 and 4 build
# with -tags mpi,mpiflags (mpi/cgo_flags.go: no pkg-config directive).
#
# Afterwards each binary's --version names the library it loads (the
# "world:" line, read from MPI_Get_library_version); for --mpi openmpi or
# mpich a build whose library is another is an error (exit 1), since the
# directory's name would say the wrong thing. No MPI found: exit 1 with
# what was tried; bad flags: exit 2.
set -euo pipefail
. "$(dirname "$0")/args.sh"
cd "$(dirname "$0")/.."

GO=${GO:-go}
# Stamp the binaries with the commit (--version, every JSON record's
# provenance), as make does: -buildvcs=auto overrides a -buildvcs=false in
# `go env`, not a GOFLAGS the caller set.
export GOFLAGS=${GOFLAGS--buildvcs=auto}

name=openmpi
out=
print=no
pkgs=()
# value FLAG VALUE: VALUE, or exit 2 when the flag has none.
value() {
	if [ $# -lt 2 ] || [ -z "$2" ]; then
		echo "mpi-build.sh: $1 needs a value (--help lists the flags)" >&2
		exit 2
	fi
	printf '%s' "$2"
}
while [ $# -gt 0 ]; do
	case $1 in
	--mpi | -mpi) name=$(value "$@"); shift 2 ;;
	--mpi=*) name=${1#*=}; shift ;;
	--out | -out) out=$(value "$@"); shift 2 ;;
	--out=*) out=${1#*=}; shift ;;
	--print-flags) print=yes; shift ;;
	-h | --help) usage; exit 0 ;;
	-*) echo "mpi-build.sh: unknown flag $1 (--help lists them)" >&2; exit 2 ;;
	*) pkgs+=("$1"); shift ;;
	esac
done
case $name in
'' | */* | .*) echo "mpi-build.sh: --mpi '$name': want a name such as openmpi, mpich, intel-mpi" >&2; exit 2 ;;
esac
out=${out:-bin/$name}

# quote WORD...: the words as one CGO_*FLAGS string, which the go command
# splits at spaces outside quotes.
quote() {
	local w s=
	for w in "$@"; do
		case $w in
		*[[:space:]]*) s+=" '$w'" ;;
		*) s+=" $w" ;;
		esac
	done
	echo "${s# }"
}

# words STRING: the words of a command line printed by a wrapper, one a
# line, with its quotes removed (xargs splits as the shell would, and runs
# nothing).
words() { xargs -n 1 printf '%s\n' <<<"$1"; }

# split_command LINE: the flags of a compiler command line (mpicc -show),
# its first word dropped, into the arrays cf (compiling) and lf (linking).
split_command() {
	local -a ws
	mapfile -t ws < <(words "$1")
	cf=() lf=()
	local i=1 w
	while [ "$i" -lt "${#ws[@]}" ]; do
		w=${ws[i]}
		case $w in
		-I?* | -D?* | -U?*) cf+=("$w") ;;
		-I | -D | -U | -isystem | -idirafter | -include) cf+=("$w" "${ws[i + 1]:-}"); i=$((i + 1)) ;;
		-L?* | -l?* | -Wl,* | -rdynamic | *.so | *.so.* | *.a) lf+=("$w") ;;
		-L | -l | -Xlinker) lf+=("$w" "${ws[i + 1]:-}"); i=$((i + 1)) ;;
		-c | -E | -S) ;; # never in a wrapper's answer; no part of the flags
		*) cf+=("$w") lf+=("$w") ;; # -pthread, -m64, -fopenmp and the like: both
		esac
		i=$((i + 1))
	done
}

# wrapper_flags WRAPPER: sets cflags and ldflags from a compiler wrapper,
# and how, in via; fails when it answers none of the three ways.
wrapper_flags() {
	local w=$1 a b
	if a=$("$w" -showme:compile 2>/dev/null) && b=$("$w" -showme:link 2>/dev/null); then
		mapfile -t cf < <(words "$a")
		mapfile -t lf < <(words "$b")
		via="$w -showme:compile, -showme:link"
	elif a=$("$w" --cray-print-opts=cflags 2>/dev/null) && b=$("$w" --cray-print-opts=libs 2>/dev/null); then
		mapfile -t cf < <(words "$a")
		mapfile -t lf < <(words "$b")
		via="$w --cray-print-opts=cflags, libs"
	elif a=$("$w" -show 2>/dev/null) && [ -n "$a" ]; then
		split_command "$a"
		via="$w -show"
	else
		return 1
	fi
	cflags="$($GO env CGO_CFLAGS) $(quote "${cf[@]}")"
	ldflags=$(quote "${lf[@]}")
}

pc=
case $name in
openmpi) pc=ompi-c tags=mpi ;;
mpich) pc=mpich tags=mpi,mpich ;;
*) pc=${MPI_PC:-} tags= ;;
esac
tried=()
cflags= ldflags= via=
if [ -n "${CGO_LDFLAGS:-}" ]; then
	tags=mpi,mpiflags cflags=${CGO_CFLAGS:-$($GO env CGO_CFLAGS)} ldflags=$CGO_LDFLAGS via="CGO_CFLAGS and CGO_LDFLAGS of the environment"
elif [ -n "${MPICC:-}" ]; then
	if ! command -v "$MPICC" >/dev/null; then
		echo "mpi-build.sh: MPICC=$MPICC: no such command" >&2
		exit 1
	fi
	wrapper_flags "$MPICC" || {
		echo "mpi-build.sh: MPICC=$MPICC answers neither -showme:compile nor --cray-print-opts nor -show; set CGO_CFLAGS and CGO_LDFLAGS instead" >&2
		exit 1
	}
	tags=mpi,mpiflags
elif [ -n "$pc" ] && pkg-config --exists "$pc" 2>/dev/null; then
	if [ -n "$tags" ]; then
		via="pkg-config $pc (#cgo pkg-config in mpi/cgo_$name.go)"
	else
		tags=mpi,mpiflags cflags="$($GO env CGO_CFLAGS) $(pkg-config --cflags "$pc")" ldflags=$(pkg-config --libs "$pc") via="pkg-config $pc"
	fi
else
	[ -z "$pc" ] || tried+=("pkg-config $pc")
	found=
	for w in "mpicc.$name" mpicc; do
		if command -v "$w" >/dev/null; then
			tried+=("$w")
			if wrapper_flags "$w"; then
				found=$w
				break
			fi
		else
			tried+=("$w (not on PATH)")
		fi
	done
	if [ -z "$found" ]; then
		echo "mpi-build.sh: no MPI found for --mpi $name (tried: $(
			IFS=,
			echo "${tried[*]}"
		)). Load the site's MPI (module load openmpi, spack load mpich) so that pkg-config or mpicc finds it, or name its wrapper (MPICC=mpiicc), or set CGO_CFLAGS and CGO_LDFLAGS; see docs/cluster.md" >&2
		exit 1
	fi
	tags=mpi,mpiflags
fi

if [ "$print" = yes ]; then
	echo "tags: $tags"
	echo "from: $via"
	if [ "$tags" = mpi,mpiflags ]; then
		echo "CGO_CFLAGS: $cflags"
		echo "CGO_LDFLAGS: $ldflags"
	fi
	exit 0
fi

if [ "${#pkgs[@]}" -eq 0 ]; then
	mapfile -t pkgs < <($GO list -tags "$tags" -f '{{if eq .Name "main"}}{{.ImportPath}}{{end}}' ./apps/... | grep -v /internal/)
	pkgs+=(./scripts/campaign)
fi
mkdir -p "$out"
echo "mpi-build.sh: -tags $tags, flags from $via, into $out/"
if [ "$tags" = mpi,mpiflags ]; then
	export CGO_CFLAGS="$cflags" CGO_LDFLAGS="$ldflags"
fi
# The commands are built into a directory beside $out and moved into it
# only once the check below passed: a build against the wrong library
# must not replace good binaries.
stage=$(mktemp -d "$out/.mpi-build.XXXXXX")
trap 'rm -rf "$stage"' EXIT
echo "$GO build -tags $tags -o $out/ ${pkgs[*]}"
$GO build -tags "$tags" -o "$stage/" "${pkgs[@]}"

# The library the binaries load, as the first command built says itself
# (the campaign runner has no MPI).
for p in "${pkgs[@]}"; do
	b=$stage/$(basename "$p")
	[ "$(basename "$p")" != campaign ] && [ -x "$b" ] || continue
	if ! v=$("$b" --version 2>&1); then
		echo "mpi-build.sh: warning: $out/$(basename "$p") --version failed (is the MPI library on LD_LIBRARY_PATH?):" >&2
		echo "$v" >&2
		continue
	fi
	world=$(sed -n 's/^world: //p' <<<"$v")
	case $name in
	openmpi | mpich)
		if [ "$world" != "$name" ]; then
			echo "mpi-build.sh: $out/$(basename "$p") would load $(sed -n 's/^mpi library: //p' <<<"$v" | head -1) (world: $world), not $name: build it with --mpi $world (make mpi MPI=$world), or make $name's mpicc the one found; nothing was written to $out/" >&2
			exit 1
		fi
		;;
	esac
	echo "$out/$(basename "$p"): world: $world, $(sed -n 's/^mpi library: //p' <<<"$v" | head -1)"
	break
done
mv -f "$stage"/* "$out/"
