package cmdutil

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// BytesPerEmbeddedRank is what one goroutine rank of the embedded world
// costs at least, measured with golomb at 1024 and 4096 ranks (about 32 KiB
// each: its goroutine's stack, mailboxes, balancer and app), with a margin.
const BytesPerEmbeddedRank = 48 << 10

// AvailableMemory returns the memory the kernel can give this process
// without swapping (MemAvailable of /proc/meminfo), and false where it
// cannot tell.
func AvailableMemory() (uint64, bool) {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 3 && fields[0] == "MemAvailable:" && fields[2] == "kB" {
			kb, err := strconv.ParseUint(fields[1], 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// CheckMemory returns a usage error when a run that needs about need bytes
// for what it is (e.g. "4096 goroutine ranks") would not fit in the
// machine's available memory, instead of letting it die of it. Where the
// available memory is unknown it accepts.
func CheckMemory(need float64, what string) error {
	avail, ok := AvailableMemory()
	if !ok || need <= float64(avail) {
		return nil
	}
	return Usagef("%s need about %s of memory, and this machine has %s available", what, FormatBytes(need), FormatBytes(float64(avail)))
}

// FormatBytes formats a byte count with a binary unit (KiB … TiB).
func FormatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	return fmt.Sprintf("%.3g %s", b, units[i])
}
