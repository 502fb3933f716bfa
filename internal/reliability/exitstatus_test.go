package reliability

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestExitStatusesInHelp: the "Exit status" paragraph of every search
// command's --help names every status of docs/reliability.md's table
// (golomb alone named 3 and none named 4, 69, 70, 74 or 75). dht, which
// neither checkpoints nor stops early, points to the table instead.
func TestExitStatusesInHelp(t *testing.T) {
	bin := build(t)
	doc, err := os.ReadFile(filepath.Join(root, "docs", "reliability.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(doc), "## Exit statuses")
	table, _, _ = strings.Cut(table, "\n## ")
	var statuses []string
	for _, m := range regexp.MustCompile(`(?m)^\| *(\d+) *\|`).FindAllStringSubmatch(table, -1) {
		statuses = append(statuses, m[1])
	}
	if len(statuses) < 8 {
		t.Fatalf("docs/reliability.md: %d exit statuses found (%v): has its table changed?", len(statuses), statuses)
	}
	for _, c := range commands {
		res := run(t, t.TempDir(), nil, filepath.Join(bin, c), "--help")
		_, para, ok := strings.Cut(res.stdout, "Exit status:")
		para, _, _ = strings.Cut(para, "\n\n")
		if res.code != 0 || !ok {
			t.Errorf("%s --help: exit %d, no Exit status paragraph", c, res.code)
			continue
		}
		want := statuses
		if c == "dht" {
			want = []string{"0", "1", "2", "docs/reliability.md"}
		}
		words := regexp.MustCompile(`[\w/.]*\w`).FindAllString(para, -1)
		for _, s := range want {
			if !slices.Contains(words, s) {
				t.Errorf("%s --help: its Exit status paragraph does not name %s:\n%s", c, s, para)
			}
		}
	}
}
