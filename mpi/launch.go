package mpi

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// LauncherKind is the kind of program that started this process, as its
// environment tells. The zero value, LaunchNone, is a process started
// directly.
type LauncherKind int

// The launchers treelb recognises, in the order DetectLauncher tries them:
// an MPI launcher's own variables come first, because mpirun and Hydra run
// under Slurm too (their ranks then also see srun's variables, from the
// step that started the launcher's daemons).
const (
	LaunchNone    LauncherKind = iota
	LaunchOpenMPI              // Open MPI's mpirun, mpiexec or prterun: OMPI_COMM_WORLD_SIZE
	LaunchHydra                // MPICH's mpiexec.hydra (mpirun.mpich): PMI_SIZE with MPI_LOCALNRANKS or HYDI_CONTROL_FD
	LaunchSrun                 // Slurm's srun: SLURM_STEP_NUM_TASKS
	LaunchPMI                  // another PMI-1 or PMI-2 launcher: PMI_SIZE
	LaunchPMIx                 // another PMIx launcher: PMIX_RANK, with no size
)

var launcherNames = [...]string{"no launcher", "Open MPI's mpirun", "MPICH's mpiexec (Hydra)", "srun", "a PMI launcher", "a PMIx launcher"}

// String names the launcher for messages.
func (k LauncherKind) String() string {
	if k >= 0 && int(k) < len(launcherNames) {
		return launcherNames[k]
	}
	return fmt.Sprintf("LauncherKind(%d)", int(k))
}

// Launcher is what the environment says about the program that started this
// process. The zero value is a process started directly. Slurm's batch step
// (the sbatch script itself, or salloc's shell) is no launcher: it sets
// SLURM_NTASKS but starts one process, and only srun starts tasks.
type Launcher struct {
	Kind LauncherKind
	// Plugin is srun's MPI plugin (SLURM_MPI_TYPE: pmix, pmi2, ...), "none"
	// when srun was given none; empty for the other launchers.
	Plugin string
	// Tasks is the number of processes the launcher started, 0 if unknown.
	Tasks int
	// Rank is this process's number among them.
	Rank int
	// LocalTasks is the number of processes it started on this node, 0 if
	// unknown.
	LocalTasks int
	// CPUs is the number of CPUs of this node the launcher gave its tasks
	// (Slurm's SLURM_CPUS_ON_NODE), 0 if it does not say.
	CPUs int
}

// DetectLauncher reads the launcher from the environment through getenv
// (os.Getenv, or a map's lookup in tests). Variables that do not parse as
// numbers count as unset.
func DetectLauncher(getenv func(string) string) Launcher {
	num := func(name string) int {
		v, err := strconv.Atoi(strings.TrimSpace(getenv(name)))
		if err != nil || v < 0 {
			return 0
		}
		return v
	}
	switch {
	case num("OMPI_COMM_WORLD_SIZE") > 0:
		return Launcher{Kind: LaunchOpenMPI, Tasks: num("OMPI_COMM_WORLD_SIZE"), Rank: num("OMPI_COMM_WORLD_RANK"),
			LocalTasks: num("OMPI_COMM_WORLD_LOCAL_SIZE")}
	case num("PMI_SIZE") > 0 && (getenv("MPI_LOCALNRANKS") != "" || getenv("HYDI_CONTROL_FD") != ""):
		return Launcher{Kind: LaunchHydra, Tasks: num("PMI_SIZE"), Rank: num("PMI_RANK"), LocalTasks: num("MPI_LOCALNRANKS")}
	case num("SLURM_STEP_NUM_TASKS") > 0:
		l := Launcher{Kind: LaunchSrun, Plugin: getenv("SLURM_MPI_TYPE"), Tasks: num("SLURM_STEP_NUM_TASKS"),
			Rank: num("SLURM_PROCID"), CPUs: num("SLURM_CPUS_ON_NODE")}
		if l.Plugin == "" {
			l.Plugin = "none"
		}
		if num("SLURM_STEP_NUM_NODES") == 1 {
			l.LocalTasks = l.Tasks
		} else {
			l.LocalTasks = tasksOnNode(getenv("SLURM_STEP_TASKS_PER_NODE"), num("SLURM_NODEID"))
		}
		return l
	case num("PMI_SIZE") > 0:
		return Launcher{Kind: LaunchPMI, Tasks: num("PMI_SIZE"), Rank: num("PMI_RANK")}
	case getenv("PMIX_RANK") != "":
		return Launcher{Kind: LaunchPMIx, Rank: num("PMIX_RANK")}
	}
	return Launcher{}
}

// Speaks reports whether this process prints the messages that every task
// of the launch would print alike (help, --version, the launch checks'
// errors) where the tasks share no MPI world to elect a rank 0: it is the
// task the launcher numbers 0 (OMPI_COMM_WORLD_RANK, PMI_RANK,
// SLURM_PROCID, PMIX_RANK), or a process that no launcher started.
func (l Launcher) Speaks() bool { return l.Rank == 0 }

// tasksOnNode returns the tasks of node i of Slurm's compressed per-node
// list ("2(x3),1": two tasks on each of three nodes, then one), 0 if the
// list does not say.
func tasksOnNode(list string, i int) int {
	for _, item := range strings.Split(list, ",") {
		n, rep := item, 1
		if j := strings.Index(item, "(x"); j >= 0 && strings.HasSuffix(item, ")") {
			r, err := strconv.Atoi(item[j+2 : len(item)-1])
			if err != nil || r < 1 {
				return 0
			}
			n, rep = item[:j], r
		}
		v, err := strconv.Atoi(n)
		if err != nil || v < 0 {
			return 0
		}
		if i < rep {
			return v
		}
		i -= rep
	}
	return 0
}

// String describes the launch as a command line would, e.g. "srun
// --mpi=pmix -n 4" or "Open MPI's mpirun -np 4".
func (l Launcher) String() string {
	switch l.Kind {
	case LaunchNone:
		return "no launcher"
	case LaunchSrun:
		return l.Command()
	case LaunchPMIx:
		return l.Kind.String()
	}
	return fmt.Sprintf("%v -np %d", l.Kind, l.Tasks)
}

// Command is the launcher's part of a command line that starts the same
// launch again, e.g. "mpirun -np 4", "mpiexec.hydra -np 4" (MPICH's Hydra,
// by the name MPICH installs it under beside mpiexec, which on a machine
// with Open MPI too may be Open MPI's: Debian's alternatives) or
// "srun --mpi=pmi2 -n 8"; "" for no launcher, and "(your launcher)" for
// one whose command is not known (another PMI or PMIx launcher).
func (l Launcher) Command() string {
	switch l.Kind {
	case LaunchNone:
		return ""
	case LaunchOpenMPI:
		return fmt.Sprintf("mpirun -np %d", l.Tasks)
	case LaunchHydra:
		return fmt.Sprintf("mpiexec.hydra -np %d", l.Tasks)
	case LaunchSrun:
		return fmt.Sprintf("srun --mpi=%s -n %d", l.Plugin, l.Tasks)
	}
	return "(your launcher)"
}

// LaunchError says that the launcher and this binary's world disagree: a
// binary built for another MPI, or for none, started by mpirun or srun; a
// number of ranks other than the launcher's; a bad TREELB_ setting. Its exit
// code is 2, as for bad input: nothing ran.
type LaunchError struct {
	Msg string
}

func (e *LaunchError) Error() string { return "mpi: " + e.Msg }

// ExitCode is 2.
func (e *LaunchError) ExitCode() int { return 2 }

// buildName names a build of this package (Implementation) for messages.
func buildName(impl string) string {
	if impl == "embedded" {
		return "the embedded build (goroutine ranks, no MPI)"
	}
	return libraryNamed(impl).build
}

// launchAdvice says which launchers start a build of this package.
func launchAdvice(impl string) string {
	if impl == "embedded" {
		return "Start it once, without mpirun or srun, and choose the ranks with --np; for mpirun or srun use an MPI build (make mpi: bin/openmpi/; make mpi MPI=mpich: bin/mpich/)"
	}
	return libraryNamed(impl).advice
}

// mismatchCause names the likely cause of a launch whose tasks each found
// a world of one rank, with its fix; empty when there is nothing to add.
func mismatchCause(l Launcher, impl string) string {
	if impl == "embedded" {
		return ""
	}
	lib := libraryNamed(impl)
	switch {
	case l.Kind == LaunchSrun && lib.plugin != "" && l.Plugin != lib.plugin:
		return fmt.Sprintf("; use srun --mpi=%s (SRUN_MPI=%[1]s for the batch scripts)", lib.plugin)
	case l.Kind == LaunchSrun && lib.plugin == "":
		return fmt.Sprintf("; srun's plugin %s may not be the one %s needs (srun --mpi=list lists this Slurm's; SRUN_MPI sets it for the batch scripts)", l.Plugin, lib.build)
	case l.Kind == LaunchSrun:
		return "; srun's plugin is the usual one, so this Slurm's MPI support does not fit the build's MPI library"
	case l.Kind == LaunchHydra && lib.family == "mpich", l.Kind == LaunchOpenMPI && lib.family == "openmpi":
		return "; the launcher comes from another installation than the build's MPI library (check PATH and --version)"
	}
	return ""
}

// CheckLaunch returns what Run would refuse about this process's launch,
// told from the environment alone, without a world (the commands'
// --check): the embedded build under a launcher of several tasks; an MPI
// build under the launcher of the other MPI family (Open MPI's mpirun and
// MPICH's Hydra), whose tasks would each find a world of one; and n ranks
// asked for (0: the launcher's) where the launcher starts another number.
// What only MPI_Init shows (srun with a plugin that does not fit the
// library) passes.
func CheckLaunch(n int) error { return checkLaunchEnv(os.Getenv, Implementation(), n) }

// checkLaunchEnv is CheckLaunch with the environment read through getenv
// and the build impl.
func checkLaunchEnv(getenv func(string) string, impl string, n int) error {
	l := DetectLauncher(getenv)
	size := max(l.Tasks, 1)
	if fam := libraryNamed(impl).family; impl == "embedded" ||
		l.Kind == LaunchHydra && fam == "openmpi" || l.Kind == LaunchOpenMPI && fam == "mpich" {
		size = 1
	}
	return checkLaunch(l, impl, size, n)
}

// checkLaunch compares the launch l with the world this process joined:
// impl is the build (Implementation's name), size the world's size (1 in the
// embedded world: the process is alone), n the size the caller asked Run
// for (0: the launcher's). A launcher that started several tasks of which
// each found itself alone in a world of one runs as many independent copies
// of the job; that, and a size other than n, is a *LaunchError.
func checkLaunch(l Launcher, impl string, size, n int) error {
	if l.Tasks > 1 && size == 1 {
		what := "each of its tasks is a world of one rank"
		if impl == "embedded" {
			what = "each task would start ranks of its own"
		}
		return &LaunchError{Msg: fmt.Sprintf("this is %s, started by %s: %s, and the job would run %d times%s. %s",
			buildName(impl), l, what, l.Tasks, mismatchCause(l, impl), launchAdvice(impl))}
	}
	if impl != "embedded" && n != 0 && n != size {
		by := "started without mpirun or srun"
		if l.Kind != LaunchNone {
			by = l.String()
		}
		return &LaunchError{Msg: fmt.Sprintf("%d ranks were asked for, but the world has %d (%s): under MPI the launcher sets the number of ranks; ask for %d or leave it unset",
			n, size, by, size)}
	}
	return nil
}
