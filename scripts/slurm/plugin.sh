# plugin.sh, sourced by the batch scripts: srun_mpi BINARY prints the MPI
# plugin srun must use to start BINARY: $SRUN_MPI if set, else the one for
# the library named by the "world:" line of BINARY --version (which the
# binary reads from the MPI library it loads): pmix for Open MPI and IBM
# Spectrum MPI, pmi2 for MPICH, Intel MPI and MVAPICH; for Cray MPICH, HPE
# MPT and libraries treelb does not know it prints nothing, and the scripts
# then leave srun's --mpi out, for the site's default (MpiDefault). An
# embedded build, a missing binary, or a binary that does not run, is an
# error (status 2) with a message.
srun_mpi() {
	if [ -n "${SRUN_MPI:-}" ]; then
		echo "$SRUN_MPI"
		return
	fi
	local world
	if [ ! -x "$1" ]; then
		# BIN or the command's name is wrong: say so, rather than that it names no MPI.
		echo "$1: no such command (BIN=${BIN:-} names the directory of the commands: make mpi builds bin/openmpi/, make mpi MPI=mpich bin/mpich/)" >&2
		return 2
	fi
	world=$("$1" --version 2>/dev/null | sed -n 's/^world: //p')
	case $world in
	openmpi | spectrum-mpi) echo pmix ;;
	mpich | intel-mpi | mvapich) echo pmi2 ;;
	cray-mpich | hpe-mpt | unknown)
		echo "$1 is a $world build: srun starts it with the site's default --mpi plugin (SRUN_MPI=... sets another)" >&2
		;;
	embedded)
		echo "$1 is the embedded build (no MPI): make mpi builds bin/openmpi/, make mpi MPI=mpich bin/mpich/" >&2
		return 2
		;;
	*)
		echo "$1 --version names no MPI (world: '$world'): is it a treelb command built with make mpi? Set SRUN_MPI=pmix or pmi2 to choose srun's plugin" >&2
		return 2
		;;
	esac
}
