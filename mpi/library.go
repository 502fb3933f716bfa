package mpi

import "strings"

// A library is an MPI implementation as this package knows it: the name
// Implementation returns, its family (the launchers and srun plugin its
// relatives share), and what the launch checks say about it.
type library struct {
	name   string // as Implementation returns it
	family string // "openmpi", "mpich" or "" (none the checks know)
	build  string // "an Open MPI build", for messages
	// marks are substrings of MPI_Get_library_version's string that name
	// it; the first library whose mark is found wins, so derived
	// libraries, whose strings often name their parent too, come first.
	marks []string
	// plugin is srun's --mpi plugin for it, "" when it depends on the
	// site.
	plugin string
	// advice says which launchers start a build for it.
	advice string
}

// libraries are the MPI libraries Implementation tells apart, in the order
// it tries them. The version strings quoted are the libraries' own
// MPI_Get_library_version strings (their first line).
var libraries = [...]library{
	// "MPI VERSION    : CRAY MPICH version 8.1.26.5 (ANL base 3.4a2)"
	{name: "cray-mpich", family: "mpich", build: "a Cray MPICH build", marks: []string{"CRAY MPICH"},
		advice: "Start it with srun using the site's MPI plugin for Cray MPICH (srun --mpi=list; usually the default, cray_shasta on HPE Cray EX)"},
	// "Intel(R) MPI Library 2021.10 for Linux* OS"
	{name: "intel-mpi", family: "mpich", build: "an Intel MPI build", marks: []string{"Intel(R) MPI", "Intel MPI"}, plugin: "pmi2",
		advice: "Start it with Intel MPI's mpirun (mpiexec.hydra), or srun --mpi=pmi2 with I_MPI_PMI_LIBRARY set to Slurm's libpmi2.so"},
	// "MVAPICH2 Version      :	2.3.7"
	{name: "mvapich", family: "mpich", build: "an MVAPICH build", marks: []string{"MVAPICH"}, plugin: "pmi2",
		advice: "Start it with MVAPICH's mpirun_rsh or mpiexec, or srun with the plugin the site's MVAPICH was configured for (usually --mpi=pmi2)"},
	// "HPE MPT 2.23  11/24/20 03:34:46"
	{name: "hpe-mpt", build: "an HPE MPT build", marks: []string{"HPE MPT", "SGI MPT"},
		advice: "Start it with MPT's mpiexec_mpt (or mpirun), or srun with the site's plugin for MPT"},
	// "IBM Spectrum MPI 10.4.0.03, package: ..." (an Open MPI)
	{name: "spectrum-mpi", family: "openmpi", build: "an IBM Spectrum MPI build", marks: []string{"Spectrum MPI"}, plugin: "pmix",
		advice: "Start it with Spectrum MPI's mpirun, or srun --mpi=pmix"},
	// "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"
	{name: "openmpi", family: "openmpi", build: "an Open MPI build", marks: []string{"Open MPI"}, plugin: "pmix",
		advice: "Start it with Open MPI's mpirun (mpirun.openmpi) or srun --mpi=pmix, or use the MPICH build (bin/mpich/) with this launcher"},
	// "MPICH Version:	4.0.2"
	{name: "mpich", family: "mpich", build: "an MPICH build", marks: []string{"MPICH"}, plugin: "pmi2",
		advice: "Start it with MPICH's mpirun (mpirun.mpich, mpiexec.hydra) or srun --mpi=pmi2, or use the Open MPI build (bin/openmpi/) with this launcher"},
}

// Unknown is what Implementation returns for an MPI library that none of
// its names fits.
const Unknown = "unknown"

// LibraryName names the MPI library of a version string (LibraryVersion's):
// "openmpi", "mpich", "intel-mpi", "mvapich", "cray-mpich", "hpe-mpt",
// "spectrum-mpi", "embedded" for the embedded world's, or Unknown.
func LibraryName(version string) string {
	if version == "embedded" {
		return "embedded"
	}
	return lookupLibrary(version).name
}

// lookupLibrary finds the library whose version string is v.
func lookupLibrary(v string) library {
	for _, l := range libraries {
		for _, m := range l.marks {
			if strings.Contains(v, m) {
				return l
			}
		}
	}
	return library{name: Unknown, build: "an MPI build (a library this version of treelb does not know)",
		advice: "Start it with the mpirun or mpiexec of the MPI library it was built with (--version names it), or srun with that library's plugin (srun --mpi=list)"}
}

// libraryNamed returns the library called name (Implementation's names).
func libraryNamed(name string) library {
	for _, l := range libraries {
		if l.name == name {
			return l
		}
	}
	return lookupLibrary("")
}
