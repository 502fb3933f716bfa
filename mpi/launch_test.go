package mpi

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The environments below are the launchers' own variables as they were
// recorded on a Debian 12 machine (Open MPI 4.1.4, MPICH 4.0.2 with Hydra,
// Slurm 22.05) with `env` as the program, trimmed to what DetectLauncher
// reads plus some of the rest.
var (
	envOpenMPI = map[string]string{"OMPI_COMM_WORLD_SIZE": "2", "OMPI_COMM_WORLD_RANK": "1",
		"OMPI_COMM_WORLD_LOCAL_SIZE": "2", "OMPI_COMM_WORLD_LOCAL_RANK": "1", "OMPI_UNIVERSE_SIZE": "2",
		"PMIX_RANK": "1", "PMIX_NAMESPACE": "1968177153"}
	envHydra = map[string]string{"PMI_SIZE": "2", "PMI_RANK": "1", "PMI_FD": "8", "MPI_LOCALNRANKS": "2",
		"MPI_LOCALRANKID": "1", "HYDI_CONTROL_FD": "7"}
	envSrun = map[string]string{"SLURM_STEP_NUM_TASKS": "2", "SLURM_STEP_NUM_NODES": "1", "SLURM_STEP_ID": "0",
		"SLURM_STEP_TASKS_PER_NODE": "2", "SLURM_NTASKS": "2", "SLURM_PROCID": "1", "SLURM_LOCALID": "1",
		"SLURM_NODEID": "0", "SLURM_CPUS_ON_NODE": "2", "SLURM_JOB_ID": "3"}
	// The sbatch script itself: the allocation's variables, no step.
	envBatch = map[string]string{"SLURM_NTASKS": "4", "SLURM_NPROCS": "4", "SLURM_PROCID": "0",
		"SLURM_TASKS_PER_NODE": "4", "SLURM_CPUS_ON_NODE": "1", "SLURM_JOB_ID": "4"}
)

// with returns the union of environments, later ones winning.
func with(envs ...map[string]string) func(string) string {
	m := map[string]string{}
	for _, e := range envs {
		for k, v := range e {
			m[k] = v
		}
	}
	return func(k string) string { return m[k] }
}

func TestDetectLauncher(t *testing.T) {
	tests := []struct {
		name string
		env  func(string) string
		want Launcher
	}{
		{"direct", with(), Launcher{}},
		{"open mpi mpirun", with(envOpenMPI), Launcher{Kind: LaunchOpenMPI, Tasks: 2, Rank: 1, LocalTasks: 2}},
		{"hydra", with(envHydra), Launcher{Kind: LaunchHydra, Tasks: 2, Rank: 1, LocalTasks: 2}},
		{"srun --mpi=none", with(envSrun),
			Launcher{Kind: LaunchSrun, Plugin: "none", Tasks: 2, Rank: 1, LocalTasks: 2, CPUs: 2}},
		{"srun --mpi=pmix", with(envSrun, map[string]string{"SLURM_MPI_TYPE": "pmix", "PMIX_RANK": "1"}),
			Launcher{Kind: LaunchSrun, Plugin: "pmix", Tasks: 2, Rank: 1, LocalTasks: 2, CPUs: 2}},
		// srun's PMI-2 sets PMI_SIZE too, but not Hydra's MPI_LOCALNRANKS.
		{"srun --mpi=pmi2", with(envSrun, map[string]string{"SLURM_MPI_TYPE": "pmi2", "PMI_SIZE": "2", "PMI_RANK": "1", "PMI_FD": "11"}),
			Launcher{Kind: LaunchSrun, Plugin: "pmi2", Tasks: 2, Rank: 1, LocalTasks: 2, CPUs: 2}},
		{"sbatch script", with(envBatch), Launcher{}},
		{"mpirun in an sbatch script", with(envBatch, envOpenMPI), Launcher{Kind: LaunchOpenMPI, Tasks: 2, Rank: 1, LocalTasks: 2}},
		// Hydra on three nodes under Slurm starts its proxies with srun.
		{"hydra over srun", with(envSrun, map[string]string{"SLURM_STEP_NUM_TASKS": "3", "SLURM_STEP_NUM_NODES": "3",
			"PMI_SIZE": "12", "PMI_RANK": "5", "MPI_LOCALNRANKS": "4"}),
			Launcher{Kind: LaunchHydra, Tasks: 12, Rank: 5, LocalTasks: 4}},
		{"srun on three nodes", with(envSrun, map[string]string{"SLURM_STEP_NUM_TASKS": "10", "SLURM_STEP_NUM_NODES": "3",
			"SLURM_STEP_TASKS_PER_NODE": "4(x2),2", "SLURM_NODEID": "2", "SLURM_PROCID": "9", "SLURM_MPI_TYPE": "pmix"}),
			Launcher{Kind: LaunchSrun, Plugin: "pmix", Tasks: 10, Rank: 9, LocalTasks: 2, CPUs: 2}},
		{"pmi launcher", with(map[string]string{"PMI_SIZE": "4", "PMI_RANK": "3"}), Launcher{Kind: LaunchPMI, Tasks: 4, Rank: 3}},
		{"pmix launcher", with(map[string]string{"PMIX_RANK": "3"}), Launcher{Kind: LaunchPMIx, Rank: 3}},
		{"garbage", with(map[string]string{"OMPI_COMM_WORLD_SIZE": "two", "SLURM_STEP_NUM_TASKS": "-3"}), Launcher{}},
	}
	for _, tt := range tests {
		if got := DetectLauncher(tt.env); got != tt.want {
			t.Errorf("%s: DetectLauncher = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestLauncherCommand: the words that start the same launch again, as a
// checkpointed run's resume line prints them.
func TestLauncherCommand(t *testing.T) {
	for _, tt := range []struct {
		env  func(string) string
		want string
	}{
		{with(), ""},
		{with(envOpenMPI), "mpirun -np 2"},
		{with(envHydra), "mpiexec.hydra -np 2"},
		{with(envSrun, map[string]string{"SLURM_MPI_TYPE": "pmix"}), "srun --mpi=pmix -n 2"},
		{with(envSrun), "srun --mpi=none -n 2"},
		{with(map[string]string{"PMI_SIZE": "4", "PMI_RANK": "3"}), "(your launcher)"},
		{with(map[string]string{"PMIX_RANK": "3"}), "(your launcher)"},
	} {
		l := DetectLauncher(tt.env)
		if got := l.Command(); got != tt.want {
			t.Errorf("%+v: Command() = %q, want %q", l, got, tt.want)
		}
	}
}

func TestTasksOnNode(t *testing.T) {
	tests := []struct {
		list string
		i    int
		want int
	}{
		{"2(x3),1", 0, 2}, {"2(x3),1", 2, 2}, {"2(x3),1", 3, 1}, {"2(x3),1", 4, 0},
		{"16", 0, 16}, {"", 0, 0}, {"2(x0)", 0, 0}, {"a,1", 1, 0}, {"2(x3", 0, 0},
	}
	for _, tt := range tests {
		if got := tasksOnNode(tt.list, tt.i); got != tt.want {
			t.Errorf("tasksOnNode(%q, %d) = %d, want %d", tt.list, tt.i, got, tt.want)
		}
	}
}

func TestCheckLaunch(t *testing.T) {
	openmpi := DetectLauncher(with(envOpenMPI))
	hydra := DetectLauncher(with(envHydra))
	srun := func(plugin string) Launcher {
		l := DetectLauncher(with(envSrun))
		l.Plugin = plugin
		return l
	}
	tests := []struct {
		name       string
		l          Launcher
		impl       string
		size, n    int
		want       []string // in the message; nil: no error
		wantAbsent string
	}{
		{"mpich under srun --mpi=pmix", srun("pmix"), "mpich", 1, 0,
			[]string{"an MPICH build, started by srun --mpi=pmix -n 2", "run 2 times", "use srun --mpi=pmi2"}, ""},
		{"mpich under srun --mpi=none", srun("none"), "mpich", 1, 0, []string{"use srun --mpi=pmi2"}, ""},
		{"mpich under open mpi's mpirun", openmpi, "mpich", 1, 0,
			[]string{"an MPICH build, started by Open MPI's mpirun -np 2", "mpirun.mpich", "bin/openmpi/"}, "srun --mpi=pmi2 (SRUN"},
		{"open mpi under hydra", hydra, "openmpi", 1, 0,
			[]string{"an Open MPI build, started by MPICH's mpiexec (Hydra) -np 2", "mpirun.openmpi", "bin/mpich/"}, ""},
		{"open mpi under srun --mpi=pmi2", srun("pmi2"), "openmpi", 1, 0, []string{"use srun --mpi=pmix"}, ""},
		{"mpich under srun --mpi=pmi2 alone", srun("pmi2"), "mpich", 1, 0, []string{"does not fit the build's MPI library"}, ""},
		{"mpich under another hydra", hydra, "mpich", 1, 0, []string{"another installation"}, ""},
		{"embedded under srun", srun("pmix"), "embedded", 1, 0, []string{"the embedded build", "--np", "make mpi"}, "pmi2"},
		{"embedded under mpirun", openmpi, "embedded", 1, 0, []string{"the embedded build", "Open MPI's mpirun -np 2"}, ""},
		{"embedded alone", Launcher{}, "embedded", 1, 0, nil, ""},
		{"embedded under mpirun -np 1", Launcher{Kind: LaunchOpenMPI, Tasks: 1}, "embedded", 1, 0, nil, ""},
		{"embedded in a pmix launcher of unknown size", Launcher{Kind: LaunchPMIx}, "embedded", 1, 0, nil, ""},
		{"right launch", openmpi, "openmpi", 2, 0, nil, ""},
		{"right launch, right n", srun("pmi2"), "mpich", 2, 2, nil, ""},
		{"singleton", Launcher{}, "mpich", 1, 0, nil, ""},
		{"n differs under srun", srun("pmix"), "openmpi", 2, 4,
			[]string{"4 ranks were asked for, but the world has 2 (srun --mpi=pmix -n 2)", "ask for 2"}, "mpirun gave"},
		{"n differs under mpirun", hydra, "mpich", 2, 3, []string{"(MPICH's mpiexec (Hydra) -np 2)"}, ""},
		{"n differs, no launcher", Launcher{}, "openmpi", 1, 2, []string{"the world has 1 (started without mpirun or srun)"}, ""},
		{"embedded ignores n", Launcher{}, "embedded", 1, 8, nil, ""},
	}
	for _, tt := range tests {
		err := checkLaunch(tt.l, tt.impl, tt.size, tt.n)
		if tt.want == nil {
			if err != nil {
				t.Errorf("%s: %v, want no error", tt.name, err)
			}
			continue
		}
		var le *LaunchError
		if !errors.As(err, &le) || le.ExitCode() != 2 {
			t.Errorf("%s: %v, want a *LaunchError with exit code 2", tt.name, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", tt.name, err, w)
			}
		}
		if tt.wantAbsent != "" && strings.Contains(err.Error(), tt.wantAbsent) {
			t.Errorf("%s: %q says %q", tt.name, err, tt.wantAbsent)
		}
	}
}

func TestParseIdle(t *testing.T) {
	for _, p := range []Idle{IdleDefault, IdleAuto, IdleSpin, IdleYield} {
		if got, err := ParseIdle(p.String()); err != nil || got != p {
			t.Errorf("ParseIdle(%q) = %v, %v", p.String(), got, err)
		}
	}
	if got, err := ParseIdle(""); err != nil || got != IdleDefault {
		t.Errorf(`ParseIdle("") = %v, %v`, got, err)
	}
	if _, err := ParseIdle("busy"); err == nil {
		t.Error(`ParseIdle("busy") succeeded`)
	}
	_, err := envIdle(with(map[string]string{IdleEnv: "Spin"}))
	var le *LaunchError
	if !errors.As(err, &le) || le.ExitCode() != 2 || !strings.Contains(err.Error(), "TREELB_IDLE=Spin") {
		t.Errorf("envIdle with TREELB_IDLE=Spin: %v, want a *LaunchError naming it", err)
	}
	if p, err := envIdle(with(map[string]string{IdleEnv: "yield"})); err != nil || p != IdleYield {
		t.Errorf("envIdle with TREELB_IDLE=yield: %v, %v", p, err)
	}
}

func TestResolveIdle(t *testing.T) {
	crowded := Launcher{Kind: LaunchHydra, Tasks: 64, LocalTasks: 64}
	fits := Launcher{Kind: LaunchOpenMPI, Tasks: 2, LocalTasks: 2}
	tests := []struct {
		name   string
		p, env Idle
		l      Launcher
		cpus   int
		want   Idle
	}{
		{"spin asked", IdleSpin, IdleYield, crowded, 2, IdleSpin},
		{"yield asked", IdleYield, IdleSpin, fits, 2, IdleYield},
		{"environment's", IdleDefault, IdleYield, fits, 2, IdleYield},
		{"auto asked beats the environment", IdleAuto, IdleSpin, crowded, 2, IdleYield},
		{"auto, crowded", IdleDefault, IdleDefault, crowded, 2, IdleYield},
		{"auto, ranks fit", IdleDefault, IdleAuto, fits, 2, IdleSpin},
		{"auto, as many ranks as cpus", IdleAuto, IdleDefault, Launcher{LocalTasks: 8}, 8, IdleSpin},
		{"auto, no launcher", IdleAuto, IdleDefault, Launcher{}, 2, IdleSpin},
		{"auto, unknown cpus", IdleAuto, IdleDefault, crowded, 0, IdleSpin},
		{"auto, slurm's cpus", IdleAuto, IdleDefault, Launcher{Kind: LaunchSrun, Tasks: 4, LocalTasks: 4, CPUs: 2}, 64, IdleYield},
		{"auto, slurm declares more cpus than the node has", IdleAuto, IdleDefault, Launcher{Kind: LaunchSrun, Tasks: 8, LocalTasks: 8, CPUs: 64}, 2, IdleYield},
		{"auto, slurm's cpus, the node's unknown", IdleAuto, IdleDefault, Launcher{Kind: LaunchSrun, Tasks: 4, LocalTasks: 4, CPUs: 2}, 0, IdleYield},
		{"no policy acts as auto", Idle(17), IdleSpin, crowded, 2, IdleYield},
	}
	for _, tt := range tests {
		if got := resolveIdle(tt.p, tt.env, tt.l, tt.cpus); got != tt.want {
			t.Errorf("%s: resolveIdle(%v, %v, %+v, %d) = %v, want %v", tt.name, tt.p, tt.env, tt.l, tt.cpus, got, tt.want)
		}
	}
}

// TestBackoff: an idle wait polls back to back at first, then sleeps twice
// as long each time up to idleMaxSleep, and never longer.
func TestBackoff(t *testing.T) {
	var b backoff
	var prev time.Duration
	var total time.Duration
	for i := 1; i <= 1000; i++ {
		d := b.next()
		switch {
		case i <= idleSpinPolls && d != 0:
			t.Fatalf("poll %d: sleep %v, want none during the first %d polls", i, d, idleSpinPolls)
		case i == idleSpinPolls+1 && d != idleMinSleep:
			t.Fatalf("poll %d: sleep %v, want %v", i, d, idleMinSleep)
		case i > idleSpinPolls+1 && d != min(2*prev, idleMaxSleep):
			t.Fatalf("poll %d: sleep %v after %v, want it doubled up to %v", i, d, prev, idleMaxSleep)
		}
		prev = d
		total += d
	}
	if prev != idleMaxSleep || total < 900*idleMaxSleep {
		t.Fatalf("after 1000 polls: last sleep %v, %v in all", prev, total)
	}
}

// TestSpeaks: of the tasks a launcher started, the one it numbers 0 speaks
// for all, even where the launcher does not say how many it started; a
// process started alone speaks for itself.
func TestSpeaks(t *testing.T) {
	tests := []struct {
		name string
		env  func(string) string
		want bool
	}{
		{"direct", with(), true},
		{"mpirun task 1", with(envOpenMPI), false},
		{"mpirun task 0", with(envOpenMPI, map[string]string{"OMPI_COMM_WORLD_RANK": "0"}), true},
		{"hydra task 1", with(envHydra), false},
		{"hydra task 0", with(envHydra, map[string]string{"PMI_RANK": "0"}), true},
		{"srun task 1", with(envSrun), false},
		{"srun task 0", with(envSrun, map[string]string{"SLURM_PROCID": "0"}), true},
		{"sbatch script", with(envBatch), true},
		{"mpirun -np 1", with(map[string]string{"OMPI_COMM_WORLD_SIZE": "1", "OMPI_COMM_WORLD_RANK": "0"}), true},
		{"pmix task 3 of unknown many", with(map[string]string{"PMIX_RANK": "3"}), false},
		{"pmix task 0 of unknown many", with(map[string]string{"PMIX_RANK": "0"}), true},
	}
	for _, tt := range tests {
		if got := DetectLauncher(tt.env).Speaks(); got != tt.want {
			t.Errorf("%s: Speaks() = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestCheckLaunchEnv: --check's launch check, from the environment alone,
// refuses what a run's start refuses when it needs no world to tell: the
// embedded build under a launcher of two tasks, a build under the other
// MPI family's launcher, an --np that is not the launcher's size (it said
// "good" to each, which the run then refused with exit 2).
func TestCheckLaunchEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  map[string]string
		impl string
		n    int
		want string // "" for no error
	}{
		{"embedded under mpirun", envOpenMPI, "embedded", 0, "this is the embedded build"},
		{"embedded alone", nil, "embedded", 0, ""},
		{"open mpi under hydra", envHydra, "openmpi", 0, "this is an Open MPI build, started by MPICH's mpiexec (Hydra) -np 2"},
		{"mpich under mpirun", envOpenMPI, "mpich", 0, "this is an MPICH build, started by Open MPI's mpirun -np 2"},
		{"open mpi under mpirun", envOpenMPI, "openmpi", 0, ""},
		{"mpich under hydra", envHydra, "mpich", 0, ""},
		{"--np 4 under mpirun -np 2", envOpenMPI, "openmpi", 4, "4 ranks were asked for, but the world has 2"},
		{"--np 2 under mpirun -np 2", envOpenMPI, "openmpi", 2, ""},
		{"--np 4 without a launcher", nil, "mpich", 4, "4 ranks were asked for, but the world has 1 (started without mpirun or srun)"},
	} {
		err := checkLaunchEnv(with(tc.env), tc.impl, tc.n)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}
