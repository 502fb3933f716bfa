package tree

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// stepText lists, for depths 0..maxDepth (the geometric ones of a hybrid
// tree), the least 31-bit number whose count is negative ("d over h", 2³¹
// when none) and the least giving at least k children for k = 1..100
// ("d k h"), found by bisection on Tree.children as a black box.
func stepText(t *Tree, maxDepth int) string {
	var b strings.Builder
	cnt := func(d int, h uint32) int32 { return t.children(h, d) }
	bisect := func(d int, hi uint32, ok func(uint32) bool) uint32 {
		lo := uint32(0)
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if ok(mid) {
				hi = mid
			} else {
				lo = mid
			}
		}
		return hi
	}
	for d := 0; d <= maxDepth; d++ {
		if t.p.Type == Hybrid && !(float64(d) < t.p.Shift*float64(t.p.Depth)) {
			break
		}
		over := uint32(1 << 31)
		if cnt(d, 1<<31-1) < 0 {
			if cnt(d, 0) < 0 {
				over = 0
			} else {
				over = bisect(d, 1<<31-1, func(h uint32) bool { return cnt(d, h) < 0 })
			}
		}
		fmt.Fprintf(&b, "%d over %d\n", d, over)
		if over == 0 {
			continue
		}
		top := over - 1
		for k := int32(1); k <= 100; k++ {
			if cnt(d, top) < k {
				break
			}
			h := uint32(0)
			if cnt(d, 0) < k {
				h = bisect(d, top, func(h uint32) bool { return cnt(d, h) >= k })
			}
			fmt.Fprintf(&b, "%d %d %d\n", d, k, h)
		}
	}
	return b.String()
}

// TestStepsMatchReference compares every geometric child count of some
// trees, in the form of their steps, with the reference's: the digests are
// SHA-256 of the same text printed by a harness that bisects the
// reference's own uts_numChildren (uts.c of UTS 1.1, built with gcc 12.2
// -O2 and glibc 2.36 on x86-64) over the node's bytes 16–19. The sample
// trees cover the fixed, linear and cyclic shapes and the hybrid family;
// the others cover expdec and the reference's NaN, infinite and overflowing
// quotients.
func TestStepsMatchReference(t *testing.T) {
	cases := []struct {
		args     string
		maxDepth int
		lines    int
		digest   string
	}{
		{"-t 1 -a 3 -d 10 -b 4 -r 19", 10, 971, "af673b44bcfc0abb5d4272aab36f563a104eb3946897c773a6f859bd3a505ae3"},                     // T1
		{"-t 1 -a 0 -d 20 -b 4 -r 34", 20, 1109, "c352a4d94dddd7a6281e1155060fda06b72644820a7fc12b09b0627194f88ed6"},                    // T5
		{"-t 1 -a 2 -d 16 -b 6 -r 502", 81, 3862, "8100983d3ff231bd8fef5a2ef611cc61ea4605de0e7118c9c310777ee89ae460"},                   // T2
		{"-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4 -r 1", 8, 778, "cd1afd9a4cf4445a2f4443211904be585d06f128dc431a17987a4c53ac8418ec"}, // T4
		{"-t 1 -a 3 -d 13 -b 4 -r 29", 13, 1262, "031b23943188ed473dbe8b56a93023ac3e0d640397082a951afc16c41760211e"},                    // T1L
		{"-t 1 -a 2 -d 23 -b 7 -r 220", 67, 3357, "6b4522ef6ed784e18742077246769ad1232ef76e9abfcc90a78128fdc0daf88c"},                   // T2L
		{"-t 1 -a 3 -d 15 -b 4 -r 29", 15, 1456, "78b319e3e10fa5ad8382c5068902c3f255755952db2d49d1b3e6559bc9537f7c"},                    // T1XL
		{"-t 1 -a 3 -d 18 -b 4 -r 19", 18, 1747, "77cf47eb26f42c12b6c8bed4c1d913e78b9eba6dca675d84007ea7f0b843a6b3"},                    // T1WL
		{"-t 1 -a 1 -d 20 -b 6 -r 1", 55, 1971, "efa53a02289b3382087ac5dd0d4f6dd7dcbe25657271920b0c0c655e97d17ad7"},
		{"-t 1 -a 1 -d 6 -b 4 -r 0", 17, 659, "bd8eec296507c85adba53eb65e99e16c9bca964d5259e7da192456edcd1db00b"},
		{"-t 2 -a 1 -d 10 -b 5 -q 0.2 -m 4 -f 0.3 -r 11", 17, 279, "27d58084e00fc106e0649cc53cf3160872d5b092c12a75e9eff1007aad57f770"},
		{"-t 1 -a 2 -d 7 -b 100 -r 3", 40, 1886, "e2f1a1c164c2362db9eb7afb2f9029ce069d4487a4b951c01521911ecb842a10"},
		{"-t 1 -a 0 -d 3 -b 1e9 -r 1", 3, 304, "7335e7ede2529f42dca20c5279e17adc7a20afd7b0452de28bc44da060bf1e87"}, // (int) overflows
		{"-t 1 -a 1 -d 1 -b 1 -r 1", 3, 66, "a07237288f8c5bf1a3ff30db2929d2ad23522f3a71d969b7e3de88a306c43ccc"},    // NaN exponent
		{"-t 1 -a 0 -d 0 -b 3 -r 1", 2, 77, "5f6ce48b33ecb370c8b6ce40b39b6c14ae65a998432f5ef30c38a2a00055fecd"},    // b_i = −∞
		{"-t 1 -a 1 -d 0 -b 3 -r 1", 2, 225, "25001e9683ea41a0ba5f88cdf90a867c7795e82f654572a158170223509c0e3f"},   // ln 0 = −∞
	}
	for _, c := range cases {
		p, err := ParseArgs(strings.Fields(c.args))
		if err != nil {
			t.Fatal(err)
		}
		txt := stepText(MustNew(p), c.maxDepth)
		sum := sha256.Sum256([]byte(txt))
		if got := hex.EncodeToString(sum[:]); got != c.digest || strings.Count(txt, "\n") != c.lines {
			t.Errorf("%s: %d lines, digest %s; the reference gives %d lines, %s", c.args, strings.Count(txt, "\n"), got, c.lines, c.digest)
		}
	}
}
