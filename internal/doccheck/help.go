package doccheck

import (
	"regexp"
	"strings"
)

var (
	helpLine    = regexp.MustCompile(`^\s+(--?[A-Za-z0-9][A-Za-z0-9-]*)`)
	helpAlias   = regexp.MustCompile(`,\s+(--?[A-Za-z0-9][A-Za-z0-9-]*)`)
	commandLine = regexp.MustCompile(`^\s+([a-z][a-z0-9-]*)(, [a-z]+)?\s{2,}\S`)
)

// Help returns the flags (-x, --name, their aliases) and the subcommands
// that a command's --help lists, in order, each once: urfave/cli's flags
// under OPTIONS: or GLOBAL OPTIONS:, its commands under COMMANDS: (help
// aside), and the flag package's flags under a line "flags:". Indented
// lines elsewhere (a description that shows another program's flags) are
// not the command's.
func Help(text string) (flags, commands []string) {
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			flags = append(flags, f)
		}
	}
	section := ""
	for _, l := range strings.Split(text, "\n") {
		if l != "" && l[0] != ' ' && l[0] != '\t' {
			section = l
			continue
		}
		switch {
		case section == "COMMANDS:":
			if m := commandLine.FindStringSubmatch(l); m != nil && m[1] != "help" {
				commands = append(commands, m[1])
			}
		case strings.HasSuffix(section, "OPTIONS:") || section == "flags:":
			m := helpLine.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			add(m[1])
			head, _, _ := strings.Cut(strings.TrimSpace(l), "  ")
			for _, a := range helpAlias.FindAllStringSubmatch(head, -1) {
				add(a[1])
			}
		}
	}
	return flags, commands
}
