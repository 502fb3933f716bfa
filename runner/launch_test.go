package runner

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/treelb/treelb/mpi"
)

// TestLaunchedTasksSpeakOnce: the embedded build started as 8 tasks by
// mpirun (Open MPI's environment) or srun stops every task with status 2,
// but only the task the launcher numbers 0 says why; --version too is
// printed by that task alone. scripts/mpi-test.sh checks the same for both
// MPIs under real mpirun -np 8, MPI builds included.
func TestLaunchedTasksSpeakOnce(t *testing.T) {
	if mpi.WorldName != "embedded" {
		t.Skip("the embedded build's launch check")
	}
	spec := Spec[int]{App: "t", Read: func(*cli.Context, Common) (int, error) { return 1, nil },
		Solve: func(*Run, int) error { return nil }}
	launchers := []struct{ name, sizeVar, rankVar string }{
		{"mpirun", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
		{"srun", "SLURM_STEP_NUM_TASKS", "SLURM_PROCID"},
	}
	for _, l := range launchers {
		for _, rank := range []string{"0", "3"} {
			t.Setenv(l.sizeVar, "8")
			t.Setenv(l.rankVar, rank)
			code, out := runArgs(spec, "9")
			n := strings.Count(out, "this is the embedded build")
			if code != 2 || (rank == "0") != (n == 1) || n > 1 || (rank != "0" && out != "") {
				t.Errorf("%s, task %s of 8: status %d, output %q; want status 2, and the message once from task 0 alone", l.name, rank, code, out)
			}
			code, out = runArgs(spec, "--version")
			if code != 0 || (rank == "0") != strings.Contains(out, "world: embedded") || (rank != "0" && out != "") {
				t.Errorf("%s, task %s of 8, --version: status %d, output %q; want it from task 0 alone", l.name, rank, code, out)
			}
		}
		t.Setenv(l.sizeVar, "")
		t.Setenv(l.rankVar, "")
	}
}
