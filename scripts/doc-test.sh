#!/usr/bin/env bash
# doc-test.sh: run every command of a guide's ```sh blocks (default
# docs/cluster.md) in order, in one shell, in a copy of the working tree,
# as a user would type them: against the real mpirun of Open MPI and MPICH
# and a local Slurm that the guide itself starts (make slurm-up) and stops.
#
#   scripts/doc-test.sh                       # docs/cluster.md
#   scripts/doc-test.sh --doc docs/other.md
#
# A command is a line of a ```sh block (with its continuation lines ending
# in \); blank lines and lines of comments alone are skipped. A command
# must exit 0, unless its comment says "exit status N"; a comment
# "=> TEXT" says its output contains TEXT. Blocks fenced ```text are
# examples for other sites, not run.
#
# The machine differs from a cluster's login node in three ways, which the
# runner bridges and nothing else: it has no environment modules, so
# `module load openmpi` and `module load mpich` put that MPI's mpirun,
# mpiexec and mpicc first on PATH, as Lmod would (replacing the other MPI,
# as Lmod's family "mpi" does); as root, Open MPI's mpirun needs
# OMPI_ALLOW_RUN_AS_ROOT, and with more ranks than cores
# OMPI_MCA_rmaps_base_oversubscribe; and the local Slurm goes into a
# directory of the run's own (TREELB_SLURM_DIR), without linking
# /etc/slurm/slurm.conf. Without root, Linux, Slurm or either MPI it says
# that it SKIPPED the guide and why, and exits 0.
set -euo pipefail
. "$(dirname "$0")/args.sh"
cd "$(dirname "$0")/.."
repo=$PWD

doc=docs/cluster.md
while [ $# -gt 0 ]; do
	case $1 in
	--doc | -doc) doc=${2:?--doc needs a file}; shift 2 ;;
	--doc=*) doc=${1#*=}; shift ;;
	-h | --help) usage; exit 0 ;;
	*) echo "doc-test.sh: unknown flag $1 (--help)" >&2; exit 2 ;;
	esac
done
[ -f "$doc" ] || { echo "doc-test.sh: no file $doc" >&2; exit 2; }
TIMEOUT=${DOC_TEST_TIMEOUT:-600} # seconds for the whole guide

skip() {
	echo "SKIPPED: the commands of $doc: $*"
	exit 0
}
[ "$(uname -s)" = Linux ] || skip "not Linux"
[ "$(id -u)" -eq 0 ] || skip "the local Slurm needs root"
missing=
for c in munged slurmctld slurmd sbatch srun mpirun.openmpi mpicc.openmpi mpiexec.openmpi mpirun.mpich mpicc.mpich mpiexec.mpich pkg-config; do
	command -v "$c" >/dev/null || missing+="$c "
done
[ -z "$missing" ] || skip "missing $missing(make test-mpi and make test-slurm install them as root)"

# commands FILE: the guide's commands, one a line, with continuation lines
# joined.
commands() {
	awk '
		/^```/ { if (inblock) { inblock = 0; next } if ($0 ~ /^```sh[[:space:]]*$/) inblock = 1; next }
		!inblock { next }
		{
			line = cont $0
			if (line ~ /\\$/) { cont = substr(line, 1, length(line) - 1); next }
			cont = ""
			if (line ~ /^[[:space:]]*(#.*)?$/) next
			print line
		}' "$1"
}

work=$(mktemp -d /tmp/treelb-doc-test.XXXXXX)
chmod 755 "$work"
tree=$work/treelb
export TREELB_SLURM_DIR=$work/slurm TREELB_SLURM_SYSTEM_CONF=no
cleanup() {
	bash "$repo/scripts/slurm.sh" down --dir "$TREELB_SLURM_DIR" >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT

# The working tree as it is (tracked files and new ones git does not
# ignore), without bin/ and results' outputs.
mkdir -p "$tree"
git ls-files -z -co --exclude-standard | tar -cf - --null -T - | tar -xf - -C "$tree"

# module load openmpi|mpich, as Lmod would.
for m in openmpi mpich; do
	mkdir -p "$work/modules/$m"
	for c in mpirun mpiexec mpicc; do
		# A script, not a link: Hydra finds its proxy next to its own path.
		printf '#!/bin/sh\nexec %q "$@"\n' "$(command -v "$c.$m")" >"$work/modules/$m/$c"
		chmod +x "$work/modules/$m/$c"
	done
done

mapfile -t cmds < <(commands "$doc")
[ "${#cmds[@]}" -gt 0 ] || { echo "FAIL $doc: no commands in \`\`\`sh blocks"; exit 1; }

# The script that runs them: each command eval'ed in one shell (so that
# cd, export and variables carry over), its status and output checked.
{
	printf 'doc=%q work=%q\ncd %q\n' "$doc" "$work" "$tree"
	cat <<'EOF'
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
unset SLURM_CONF BIN RESULTS SRUN_MPI MPI MPICC CGO_CFLAGS CGO_LDFLAGS
module() {
	if [ "$1" != load ] || [ ! -d "$work/modules/${2:-}" ]; then
		echo "module: this machine has no environment modules; doc-test.sh emulates 'module load openmpi|mpich' alone" >&2
		return 1
	fi
	PATH=$(tr : '\n' <<<"$PATH" | grep -v "^$work/modules/" | paste -sd:)
	PATH="$work/modules/$2:$PATH"
}
__n=0
__re_status='#.*exit status ([0-9]+)'
__re_output='#.*=> *(.*[^ ]) *$'
run() { # run COMMAND: eval it, check its status and output against its comment
	local __c=$1 __want=0 __expect= __rc=0
	__n=$((__n + 1))
	[[ $__c =~ $__re_status ]] && __want=${BASH_REMATCH[1]}
	[[ $__c =~ $__re_output ]] && __expect=${BASH_REMATCH[1]}
	eval "$__c" </dev/null >"$work/out" 2>&1 || __rc=$?
	if [ "$__rc" -ne "$__want" ] || { [ -n "$__expect" ] && ! grep -qF -- "$__expect" "$work/out"; }; then
		tail -n 40 "$work/out"
		echo "FAIL $doc, command $__n: $__c"
		echo "     exit status $__rc, want $__want${__expect:+, and output with: $__expect}"
		exit 1
	fi
	echo "ok   $__c"
}
EOF
	for c in "${cmds[@]}"; do
		printf 'run %q\n' "$c"
	done
} >"$work/run.sh"

start=$SECONDS
rc=0
timeout -k 10 "$TIMEOUT" bash "$work/run.sh" || rc=$?
if [ "$rc" -ne 0 ]; then
	[ "$rc" -ne 124 ] || echo "FAIL $doc: the commands took more than ${TIMEOUT}s"
	exit 1
fi
echo "ok   $doc: ${#cmds[@]} commands in $((SECONDS - start))s"
