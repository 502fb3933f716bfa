package runner

import (
	"bufio"
	"errors"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestThpMode(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{"always [madvise] never\n", "madvise"},
		{"[always] madvise never\n", "always"},
		{"always madvise [never]\n", "never"},
		{"always madvise never\n", ""},
		{"[madvise\n", ""},
	} {
		read := func(string) ([]byte, error) { return []byte(c.file), nil }
		if got := thpMode(read); got != c.want {
			t.Errorf("%q: mode %q, want %q", c.file, got, c.want)
		}
	}
	missing := func(string) ([]byte, error) { return nil, os.ErrNotExist }
	if got := thpMode(missing); got != "" {
		t.Errorf("no setting: mode %q, want none", got)
	}
}

func TestHugeHeapBytes(t *testing.T) {
	env := func(godebug string) func(string) string {
		return func(k string) string {
			if k == "GODEBUG" {
				return godebug
			}
			return ""
		}
	}
	for _, c := range []struct {
		n       int
		mode    string
		godebug string
		want    uint64
	}{
		{65536, "madvise", "", 65536 * hugeHeapPerRank},
		{hugeHeapRanks, "madvise", "gctrace=1", hugeHeapRanks * hugeHeapPerRank},
		{hugeHeapRanks - 1, "madvise", "", 0},
		{65536, "always", "", 0}, // the kernel gives them anyway
		{65536, "never", "", 0},
		{65536, "", "", 0}, // no transparent huge pages, or not Linux
		{65536, "madvise", "gctrace=1, disablethp=1", 0},
		{65536, "madvise", "disablethp=0", 65536 * hugeHeapPerRank},
	} {
		if got := hugeHeapBytes(c.n, c.mode, env(c.godebug)); got != c.want {
			t.Errorf("%d ranks, mode %q, GODEBUG=%q: %d bytes, want %d", c.n, c.mode, c.godebug, got, c.want)
		}
	}
}

// TestAdviseHugeHeap advises 16 MiB of heap and finds the mapping that
// holds it marked for huge pages ("hg" among its VmFlags in
// /proc/self/smaps) after the allocation is collected.
func TestAdviseHugeHeap(t *testing.T) {
	if thpMode(os.ReadFile) == "" {
		t.Skip("no transparent huge pages here")
	}
	start, err := adviseHugeHeap(16 << 20)
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no madvise here")
	}
	if err != nil {
		t.Fatalf("madvise: %v", err)
	}
	runtime.GC()
	flags, err := vmFlagsAt(start)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(" "+flags+" ", " hg ") {
		t.Errorf("the mapping at %#x has VmFlags %q: want hg (MADV_HUGEPAGE)", start, flags)
	}
}

// vmFlagsAt returns the VmFlags line of /proc/self/smaps for the mapping
// that holds address a.
func vmFlagsAt(a uintptr) (string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return "", err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if flags, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.TrimSpace(flags), nil
		}
		lo, rest, ok := strings.Cut(line, "-")
		if !ok {
			continue
		}
		hi, _, _ := strings.Cut(rest, " ")
		l, err1 := strconv.ParseUint(lo, 16, 64)
		h, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 == nil && err2 == nil {
			in = uint64(a) >= l && uint64(a) < h
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New("no mapping holds the address in /proc/self/smaps")
}
