package runner

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
)

// BytesPerEmbeddedRank is what one goroutine rank of the embedded world
// costs at least, measured with golomb at 1024 and 4096 ranks (about 32 KiB
// each: its goroutine's stack, mailboxes, balancer and app), with a margin.
const BytesPerEmbeddedRank = 48 << 10

// MemoryLimit is what bounds the memory of this process, and by how much.
type MemoryLimit struct {
	Bytes uint64 // what the process may still take, as far as Source allows
	// Source says which limit it is: "MemAvailable" (the machine's free
	// memory), "cgroup memory.max" (v2) or "cgroup memory.limit_in_bytes"
	// (v1), "RLIMIT_AS (ulimit -v)".
	Source string
}

// Memory limits are read from these files (tests point them elsewhere).
type memoryFiles struct {
	meminfo, cgroup, cgroupRoot, status string
	rlimitAS                            func() (uint64, bool)
}

var systemFiles = memoryFiles{meminfo: "/proc/meminfo", cgroup: "/proc/self/cgroup", cgroupRoot: "/sys/fs/cgroup",
	status: "/proc/self/status", rlimitAS: rlimitAS}

// AvailableMemory returns the memory the kernel can give this process
// without swapping (MemAvailable of /proc/meminfo), and false where it
// cannot tell. MemoryLimits says what else bounds it.
func AvailableMemory() (uint64, bool) {
	v, ok := readMeminfo(systemFiles.meminfo, "MemAvailable:")
	return v, ok
}

// MemoryLimits returns every limit on the memory this process may still
// take that it can read: the machine's available memory, its cgroup's
// (v2 memory.max less memory.current; v1 memory.limit_in_bytes less
// memory.usage_in_bytes) and its address space (RLIMIT_AS, ulimit -v,
// less the address space already mapped, halved: the Go runtime reserves
// address space well ahead of the heap, and the heap grows to about twice
// what is live between two collections).
func MemoryLimits() []MemoryLimit { return systemFiles.limits() }

func (f memoryFiles) limits() []MemoryLimit {
	var out []MemoryLimit
	if v, ok := readMeminfo(f.meminfo, "MemAvailable:"); ok {
		out = append(out, MemoryLimit{v, "MemAvailable"})
	}
	if l, ok := f.cgroupLimit(); ok {
		out = append(out, l)
	}
	if lim, ok := f.rlimitAS(); ok {
		used, _ := readMeminfo(f.status, "VmSize:")
		free := uint64(0)
		if lim > used {
			free = (lim - used) / 2
		}
		out = append(out, MemoryLimit{free, "RLIMIT_AS (ulimit -v)"})
	}
	return out
}

// tightest returns the smallest of limits, and false for none.
func tightest(limits []MemoryLimit) (MemoryLimit, bool) {
	if len(limits) == 0 {
		return MemoryLimit{}, false
	}
	best := limits[0]
	for _, l := range limits[1:] {
		if l.Bytes < best.Bytes {
			best = l
		}
	}
	return best, true
}

// cgroupLimit returns what this process's memory cgroup leaves it: its
// limit less its usage, v2 or v1; false without a limit.
func (f memoryFiles) cgroupLimit() (MemoryLimit, bool) {
	file, err := os.Open(f.cgroup)
	if err != nil {
		return MemoryLimit{}, false
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	for sc.Scan() {
		// hierarchy-ID:controller-list:cgroup-path
		parts := strings.SplitN(sc.Text(), ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			dir := filepath.Join(f.cgroupRoot, parts[2])
			if l, ok := cgroupFiles(dir, "memory.max", "memory.current"); ok {
				return MemoryLimit{l, "cgroup memory.max"}, true
			}
		case hasController(parts[1], "memory"):
			dir := filepath.Join(f.cgroupRoot, "memory", parts[2])
			if l, ok := cgroupFiles(dir, "memory.limit_in_bytes", "memory.usage_in_bytes"); ok {
				return MemoryLimit{l, "cgroup memory.limit_in_bytes"}, true
			}
		}
	}
	return MemoryLimit{}, false
}

func hasController(list, name string) bool {
	for _, c := range strings.Split(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// cgroupFiles returns the limit in dir's file limit less the usage in its
// file usage; false when there is no limit ("max", or v1's huge value).
func cgroupFiles(dir, limit, usage string) (uint64, bool) {
	lim, ok := readNumber(filepath.Join(dir, limit))
	if !ok || lim >= 1<<62 {
		return 0, false
	}
	used, _ := readNumber(filepath.Join(dir, usage))
	if used >= lim {
		return 0, true
	}
	return lim - used, true
}

// readNumber reads a file holding one decimal number ("max" is none).
func readNumber(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	return v, err == nil
}

// readMeminfo reads the field key ("MemAvailable:") of a /proc file in the
// format of /proc/meminfo, in bytes.
func readMeminfo(path, key string) (uint64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == key && fields[2] == "kB" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// CheckMemory returns a usage error when a run that needs about need bytes
// for what it is (e.g. "4096 goroutine ranks") would not fit in the memory
// this process may take (the tightest of MemoryLimits), instead of letting
// it die of it. Where no limit can be read it accepts.
func CheckMemory(need float64, what string) error {
	return systemFiles.check(need, what)
}

func (f memoryFiles) check(need float64, what string) error {
	l, ok := tightest(f.limits())
	if !ok || need <= float64(l.Bytes) {
		return nil
	}
	return Usagef("%s need about %s of memory, and this process may take %s (%s)", what, FormatBytes(need), FormatBytes(float64(l.Bytes)), l.Source)
}

// setMemoryLimit makes the Go runtime collect harder as the process nears
// its cgroup's limit or its address-space limit (debug.SetMemoryLimit at
// nine tenths of it), rather than outgrow it between two collections.
// The machine's own available memory sets no limit: it changes with the
// other processes. GOMEMLIMIT in the environment wins, as in any Go program.
func setMemoryLimit() {
	if n, ok := softMemoryLimit(MemoryLimits(), os.Getenv); ok {
		debug.SetMemoryLimit(n)
	}
}

// softMemoryLimit returns setMemoryLimit's limit for the process's limits,
// false for none: GOMEMLIMIT is set (getenv), or no limit but the
// machine's available memory binds the process.
func softMemoryLimit(all []MemoryLimit, getenv func(string) string) (int64, bool) {
	if getenv("GOMEMLIMIT") != "" {
		return 0, false
	}
	var limits []MemoryLimit
	for _, l := range all {
		if l.Source != "MemAvailable" {
			limits = append(limits, l)
		}
	}
	if l, ok := tightest(limits); ok && l.Bytes < math.MaxInt64/10*9 {
		return int64(l.Bytes / 10 * 9), true
	}
	return 0, false
}

// FormatBytes formats a byte count with a binary unit (B, KiB … PiB) and
// three significant digits, four from 1000 to 1023 of a unit ("1023 B",
// not "1.02e+03 B").
func FormatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if b >= 1000 && b < 1024 {
		return fmt.Sprintf("%.0f %s", b, units[i])
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}
