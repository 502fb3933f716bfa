package runner

import (
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/treelb/treelb/mpi"
)

// mpiProcs returns the GOMAXPROCS for one process of an MPI launch l, or 0
// to keep the runtime's choice, procs. An MPI rank searches on one thread;
// the runtime's default gives each process every CPU it may run on, and a
// launcher that does not bind (Open MPI binds to a socket beyond two ranks,
// Hydra and srun with task/none not at all) leaves every one of the node's
// processes with all the node's CPUs: on 16 cores, 16 runtimes of 16 Ps
// each, whose collectors and schedulers may run threads on the cores the
// other ranks search on (UTS T3L under mpirun -np 16 on 16 cores took
// 1.285 times the embedded world's time with 16 Ps a process, 1.155 with
// one: results/scaling-16). So a process whose affinity covers all online
// CPUs (affinity == online: not bound to a share) gets its share of them:
// procs (the runtime's default, which counts a cgroup's CPU limit) or
// Slurm's CPUs on the node, whichever is fewer, divided by the launcher's
// tasks on this node, at least 1. A process bound to fewer CPUs than the
// node's keeps the runtime's count of them, and GOMAXPROCS in the
// environment (getenv) always wins.
func mpiProcs(l mpi.Launcher, procs, affinity, online int, getenv func(string) string) int {
	if getenv("GOMAXPROCS") != "" || l.LocalTasks < 2 || online <= 0 || affinity < online {
		return 0
	}
	cpus := procs
	if l.CPUs > 0 {
		cpus = min(cpus, l.CPUs)
	}
	if n := max(cpus/l.LocalTasks, 1); n < procs {
		return n
	}
	return 0
}

// onlineCPUs returns the number of the node's online CPUs, from
// /sys/devices/system/cpu/online ("0-15", "0,2-5"), 0 where that file is
// missing or does not parse.
func onlineCPUs(read func(string) ([]byte, error)) int {
	b, err := read("/sys/devices/system/cpu/online")
	if err != nil {
		return 0
	}
	n := 0
	for _, r := range strings.Split(strings.TrimSpace(string(b)), ",") {
		lo, hi, found := strings.Cut(r, "-")
		a, err := strconv.Atoi(lo)
		if err != nil {
			return 0
		}
		z := a
		if found {
			if z, err = strconv.Atoi(hi); err != nil || z < a {
				return 0
			}
		}
		n += z - a + 1
	}
	return n
}

// setMPIProcs sizes GOMAXPROCS for this process of an MPI launch
// (mpiProcs); Main calls it in the MPI build.
func setMPIProcs() {
	l := mpi.DetectLauncher(os.Getenv)
	if n := mpiProcs(l, runtime.GOMAXPROCS(0), runtime.NumCPU(), onlineCPUs(os.ReadFile), os.Getenv); n > 0 {
		runtime.GOMAXPROCS(n)
	}
}
