package reliability

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScriptsHelp: every shell script under scripts/ answers --help with
// its usage and exit status 0 (the Slurm batch scripts too), and refuses a flag it does not know with
// one message and exit status 2, before it builds or starts anything (ten
// of them once ignored both and started their whole job: slurm-test.sh
// --help started a Slurm).
func TestScriptsHelp(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every script")
	}
	dir, err := filepath.Abs(filepath.Join(root, "scripts"))
	if err != nil {
		t.Fatal(err)
	}
	scripts, err := filepath.Glob(filepath.Join(dir, "*.sh"))
	if err != nil || len(scripts) < 10 {
		t.Fatalf("scripts: %v %v", scripts, err)
	}
	for _, s := range scripts {
		name := filepath.Base(s)
		if name == "args.sh" { // sourced, not run
			continue
		}
		t.Run(name, func(t *testing.T) {
			// From scripts/, by a relative path: usage read "$0" after the
			// script's cd to the repository (five scripts failed so).
			res := run(t, dir, nil, "bash", "./"+name, "--help")
			if res.code != 0 || !strings.Contains(res.stdout, strings.TrimSuffix(name, ".sh")) {
				t.Errorf("--help: exit %d, stdout %q, stderr %q; want the usage and exit 0", res.code, res.stdout, res.stderr)
			}
			res = run(t, t.TempDir(), nil, "bash", s, "--no-such-flag")
			if res.code != 2 || !strings.Contains(res.stderr, "--no-such-flag") || strings.Count(strings.TrimSpace(res.stderr), "\n") > 0 {
				t.Errorf("--no-such-flag: exit %d, stderr %q; want one line naming it and exit 2", res.code, res.stderr)
			}
		})
	}
	// The batch scripts pass their arguments on to the command they run,
	// so only --help is theirs: their header, without the #SBATCH lines.
	batch, err := filepath.Glob(filepath.Join(dir, "slurm", "*.sbatch"))
	if err != nil || len(batch) < 3 {
		t.Fatalf("batch scripts: %v %v", batch, err)
	}
	for _, s := range batch {
		res := run(t, t.TempDir(), nil, "bash", s, "--help")
		if res.code != 0 || !strings.HasPrefix(res.stdout, "Slurm batch job") || strings.Contains(res.stdout, "#SBATCH") || res.stderr != "" {
			t.Errorf("%s --help: exit %d, stdout %q, stderr %q; want its header and exit 0", filepath.Base(s), res.code, res.stdout, res.stderr)
		}
	}
	if _, err := exec.LookPath("python3"); err == nil {
		res := run(t, t.TempDir(), nil, "python3", filepath.Join(dir, "isoefficiency-table.py"), "--no-such-flag")
		if res.code != 2 {
			t.Errorf("isoefficiency-table.py --no-such-flag: exit %d", res.code)
		}
	}
}
