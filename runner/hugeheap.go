package runner

import (
	"os"
	"runtime"
	"strings"
	"unsafe"
)

// An embedded world of tens of thousands of ranks keeps gigabytes of heap
// (about 33 KB a golomb rank: its goroutine's stack, engine, balancer, app
// and mailboxes), and the pool of workers touches it rank by rank, a few
// objects of each in every turn (docs/reliability.md). On 4-KiB pages each
// page's first touch is a fault and each turn misses the TLB. The Go
// runtime maps its heap 4 MiB at a time and does not ask the kernel for
// transparent huge pages, and many kernels give them only where a program
// asks (the mode "madvise": the development VM's, a Debian 12 guest on a
// 6.18 kernel; others default to "always", where nothing need be asked).
// So before an embedded
// world of hugeHeapRanks ranks or more starts, the runner has the runtime
// map the heap it will take in one allocation of hugeHeapPerRank bytes a
// rank, asks the kernel to back that range with huge pages (madvise
// MADV_HUGEPAGE: a property of the mapping, which outlives the
// allocation), and drops the allocation, so that the ranks' objects and
// stacks land in the advised range. `golomb --np 65536 10` on the 2-vCPU
// development VM took 0.85 times the time (30 thousand page faults against
// 600 thousand; docs/reliability.md has the runs), and 16384 ranks about
// 0.9 times; at 4096 ranks (140 MB) the time did not move.

// hugeHeapRanks is the smallest embedded world whose heap is advised, and
// hugeHeapPerRank the heap a rank is given (golomb's ranks take about 33 KB
// each; the range need not be exact: what the ranks do not use is only
// address space, and what they need beyond it comes on small pages).
const (
	hugeHeapRanks   = 16384
	hugeHeapPerRank = 32 << 10
)

// thpEnabled is the kernel's setting for transparent huge pages, whose
// bracketed word is the mode in force: "always [madvise] never".
const thpEnabled = "/sys/kernel/mm/transparent_hugepage/enabled"

// thpMode returns the mode in force of the kernel's transparent huge pages
// ("always", "madvise" or "never"), "" where the setting cannot be read.
func thpMode(read func(string) ([]byte, error)) string {
	b, err := read(thpEnabled)
	if err != nil {
		return ""
	}
	_, rest, ok := strings.Cut(string(b), "[")
	mode, _, ok2 := strings.Cut(rest, "]")
	if !ok || !ok2 {
		return ""
	}
	return mode
}

// hugeHeapBytes returns the heap to advise for an embedded world of n
// ranks, 0 for none: none below hugeHeapRanks, none unless the kernel
// gives huge pages where advised and only there (mode "madvise": with
// "always" every mapping has them already), and none when GODEBUG holds
// disablethp=1, the Go runtime's own switch against huge pages on its heap.
func hugeHeapBytes(n int, mode string, getenv func(string) string) uint64 {
	if n < hugeHeapRanks || mode != "madvise" {
		return 0
	}
	for _, kv := range strings.Split(getenv("GODEBUG"), ",") {
		if strings.TrimSpace(kv) == "disablethp=1" {
			return 0
		}
	}
	return uint64(n) * hugeHeapPerRank
}

// hugeHeapFor advises the heap of an embedded world of n ranks when Main
// said the process is the command's (metaProcess) and hugeHeapBytes gives
// some. Advice is a hint: where the kernel refuses it, the ranks run on
// small pages.
func hugeHeapFor(meta map[string]any, n int) {
	if on, _ := meta[metaProcess].(bool); !on {
		return
	}
	if size := hugeHeapBytes(n, thpMode(os.ReadFile), os.Getenv); size > 0 {
		adviseHugeHeap(size)
		runtime.GC() // the allocation is garbage: its pages go back to the heap, advised
	}
}

// adviseHugeHeap allocates size bytes of heap, which the runtime maps
// fresh (its pages untouched), advises the kernel to back their range with
// huge pages, and returns the range's start; the caller collects the
// allocation, whose range stays advised. The error is madvise's.
func adviseHugeHeap(size uint64) (start uintptr, err error) {
	b := make([]byte, size)
	return uintptr(unsafe.Pointer(unsafe.SliceData(b))), madviseHuge(b)
}
