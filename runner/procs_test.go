package runner

import (
	"errors"
	"testing"

	"github.com/treelb/treelb/mpi"
)

func TestMPIProcs(t *testing.T) {
	unset := func(string) string { return "" }
	set := func(k string) string {
		if k == "GOMAXPROCS" {
			return "16"
		}
		return ""
	}
	ompi16 := mpi.Launcher{Kind: mpi.LaunchOpenMPI, Tasks: 16, LocalTasks: 16}
	for _, c := range []struct {
		name                    string
		l                       mpi.Launcher
		procs, affinity, online int
		getenv                  func(string) string
		want                    int
	}{
		{"16 unbound ranks on 16 CPUs", ompi16, 16, 16, 16, unset, 1},
		{"4 unbound ranks on 16 CPUs", mpi.Launcher{Kind: mpi.LaunchHydra, Tasks: 8, LocalTasks: 4}, 16, 16, 16, unset, 4},
		{"oversubscribed: still one", mpi.Launcher{Kind: mpi.LaunchOpenMPI, Tasks: 64, LocalTasks: 64}, 16, 16, 16, unset, 1},
		{"a cgroup's limit of 8 CPUs", ompi16, 8, 16, 16, unset, 1},
		{"Slurm's 8 CPUs for 2 tasks", mpi.Launcher{Kind: mpi.LaunchSrun, Tasks: 2, LocalTasks: 2, CPUs: 8}, 16, 16, 16, unset, 4},
		{"bound to one core", ompi16, 1, 1, 16, unset, 0},
		{"bound to a 4-core share", ompi16, 4, 4, 16, unset, 0},
		{"GOMAXPROCS set", ompi16, 16, 16, 16, set, 0},
		{"one task on the node", mpi.Launcher{Kind: mpi.LaunchOpenMPI, Tasks: 4, LocalTasks: 1}, 16, 16, 16, unset, 0},
		{"no launcher", mpi.Launcher{}, 16, 16, 16, unset, 0},
		{"online CPUs unknown", ompi16, 16, 16, 0, unset, 0},
		{"a cgroup of one CPU: already one", mpi.Launcher{Kind: mpi.LaunchOpenMPI, Tasks: 2, LocalTasks: 2}, 1, 4, 4, unset, 0},
		{"a cgroup of 2 CPUs for 2 tasks", mpi.Launcher{Kind: mpi.LaunchOpenMPI, Tasks: 2, LocalTasks: 2}, 2, 4, 4, unset, 1},
	} {
		if got := mpiProcs(c.l, c.procs, c.affinity, c.online, c.getenv); got != c.want {
			t.Errorf("%s: mpiProcs = %d, want %d", c.name, got, c.want)
		}
	}
}

func TestOnlineCPUs(t *testing.T) {
	for in, want := range map[string]int{"0-15\n": 16, "0\n": 1, "0,2-5\n": 5, "0-1,4-7,9": 7, "": 0, "x": 0, "3-1": 0, "0-": 0} {
		read := func(string) ([]byte, error) { return []byte(in), nil }
		if got := onlineCPUs(read); got != want {
			t.Errorf("onlineCPUs(%q) = %d, want %d", in, got, want)
		}
	}
	if got := onlineCPUs(func(string) ([]byte, error) { return nil, errors.New("no sysfs") }); got != 0 {
		t.Errorf("onlineCPUs without the file = %d, want 0", got)
	}
}
