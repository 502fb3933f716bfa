# plugin.sh, sourced by the batch scripts: srun_mpi BINARY prints the MPI
# plugin srun must use to start BINARY, $SRUN_MPI if set, else the build's
# own from the "world:" line of BINARY --version: pmix for Open MPI, pmi2
# for MPICH. An embedded build, or a binary that does not say, is an error
# (status 2) with a message.
srun_mpi() {
	if [ -n "${SRUN_MPI:-}" ]; then
		echo "$SRUN_MPI"
		return
	fi
	local world
	world=$("$1" --version 2>/dev/null | sed -n 's/^world: //p')
	case $world in
	openmpi) echo pmix ;;
	mpich) echo pmi2 ;;
	embedded)
		echo "$1 is the embedded build (no MPI): make mpi builds bin/openmpi/, make mpi MPI=mpich bin/mpich/" >&2
		return 2
		;;
	*)
		echo "$1 --version names no MPI (world: '$world'): set SRUN_MPI=pmix or pmi2" >&2
		return 2
		;;
	esac
}
