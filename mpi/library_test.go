package mpi

import (
	"strings"
	"testing"
)

// TestLibraryName: the first lines of the libraries' own
// MPI_Get_library_version strings, as their releases print them, name the
// library; the derived ones (Cray MPICH, Spectrum MPI) are not taken for
// their parents.
func TestLibraryName(t *testing.T) {
	tests := []struct{ version, want string }{
		{"Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022", "openmpi"},
		{"Open MPI v5.0.3, package: Open MPI spack@host Distribution, ident: 5.0.3, repo rev: v5.0.3, Apr 08, 2024", "openmpi"},
		{"MPICH Version:\t4.0.2\nMPICH Release date:\tThu May 19 12:29:09 CDT 2022\nMPICH ABI:\t14:2:2", "mpich"},
		{"Intel(R) MPI Library 2021.10 for Linux* OS\n", "intel-mpi"},
		{"MVAPICH2 Version      :\t2.3.7\nMVAPICH2 Release date :\tWed March 02 22:00:00 EST 2022", "mvapich"},
		{"MVAPICH Version      :\t3.0\n", "mvapich"},
		{"MPI VERSION    : CRAY MPICH version 8.1.26.5 (ANL base 3.4a2)\nMPI BUILD INFO : Sun Feb 26 19:27 2023 (git hash aecd99f)", "cray-mpich"},
		{"HPE MPT 2.23  11/24/20 03:34:46", "hpe-mpt"},
		{"IBM Spectrum MPI 10.4.0.03, package: IBM Spectrum MPI, ident: 10.4.0.03, repo rev: IBM_SPECTRUM_MPI_10.04.00.03", "spectrum-mpi"},
		{"embedded", "embedded"},
		{"FooMPI 1.0", Unknown},
		{"", Unknown},
	}
	for _, tt := range tests {
		if got := LibraryName(tt.version); got != tt.want {
			t.Errorf("LibraryName(%q) = %q, want %q", tt.version, got, tt.want)
		}
	}
}

// TestCheckLaunchLibraries: builds against the MPICH-derived libraries get
// the launch checks' messages of their own: their names, srun's plugin
// where it is fixed, and where it depends on the site, a pointer to srun
// --mpi=list.
func TestCheckLaunchLibraries(t *testing.T) {
	srun := func(plugin string) Launcher {
		l := DetectLauncher(with(envSrun))
		l.Plugin = plugin
		return l
	}
	openmpi := DetectLauncher(with(envOpenMPI))
	hydra := DetectLauncher(with(envHydra))
	tests := []struct {
		name string
		l    Launcher
		impl string
		want []string
	}{
		{"intel mpi under srun --mpi=pmix", srun("pmix"), "intel-mpi",
			[]string{"this is an Intel MPI build, started by srun --mpi=pmix -n 2", "use srun --mpi=pmi2", "I_MPI_PMI_LIBRARY"}},
		{"mvapich under open mpi's mpirun", openmpi, "mvapich", []string{"this is an MVAPICH build, started by Open MPI's mpirun -np 2", "mpirun_rsh"}},
		{"intel mpi under another hydra", hydra, "intel-mpi", []string{"another installation"}},
		{"cray mpich under srun --mpi=none", srun("none"), "cray-mpich",
			[]string{"this is a Cray MPICH build, started by srun --mpi=none -n 2", "srun's plugin none may not be", "srun --mpi=list"}},
		{"spectrum mpi under srun --mpi=pmi2", srun("pmi2"), "spectrum-mpi", []string{"an IBM Spectrum MPI build", "use srun --mpi=pmix"}},
		{"spectrum mpi under another mpirun", openmpi, "spectrum-mpi", []string{"another installation"}},
		{"unknown library under srun", srun("pmix"), Unknown, []string{"an MPI build (a library", "--version names it"}},
	}
	for _, tt := range tests {
		err := checkLaunch(tt.l, tt.impl, 1, 0)
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tt.name, err, w)
			}
		}
	}
}
