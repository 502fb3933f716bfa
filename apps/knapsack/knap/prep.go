package knap

import (
	"cmp"
	"math"
	"slices"
)

// item is an item of the search, in ratio order.
type item struct {
	p, w int64
	// u bounds every solution in which this item is flipped relative to
	// the break solution (left out if it is before the break item, packed
	// if it is the break item or after): Pisinger's reduction bound with
	// the break item's ratio as Lagrange multiplier,
	// u = ⌊Σ_{i<b} p_i ∓ p + (c − Σ_{i<b} w_i ± w)·p_b/w_b⌋.
	u int64
}

// problem is an instance prepared for search. It is built the same way on
// every rank and never modified afterwards, so several Apps may share it.
type problem struct {
	in   *Instance
	n    int     // items of the search
	item []item  // the items of the search, highest profit/weight first, ties by input index
	orig []int32 // orig[k]: input index of item[k]
	P, W []int64 // prefix sums: P[k] = Σ_{i<k} item[i].p, likewise W
	c    int64   // capacity for the items of the search, at most W[n]

	always  []int // input indices of the items packed in every solution: w = 0 < p
	alwaysP int64 // their profit

	// narrow says that the products the bounds compare fit in int64:
	// (Σp + 1)·max w and Σw·max p do.
	narrow bool

	b        int   // break item: W[b] ≤ c < W[b+1], or n when everything fits
	psb, wsb int64 // P[b], W[b]: the break solution

	greedy    int64  // profit of the start incumbent (search items only)
	greedySet []bool // its items, by position in item
}

// prepare builds the search problem of a valid instance in O(n log n) time.
func prepare(in *Instance) *problem {
	pr := &problem{in: in}
	type keyed struct {
		p, w int64
		i    int32
	}
	items := make([]keyed, 0, len(in.Profit))
	var sp, sw, maxP, maxW int64
	for i, p := range in.Profit {
		w := in.Weight[i]
		switch {
		case w == 0 && p > 0:
			pr.always = append(pr.always, i)
			pr.alwaysP += p
		case p > 0 && w <= in.Capacity:
			items = append(items, keyed{p: p, w: w, i: int32(i)})
			sp, sw = sp+p, sw+w
			maxP, maxW = max(maxP, p), max(maxW, w)
		}
	}
	narrow := fitsProduct(sp+1, maxW) && fitsProduct(sw, maxP)
	slices.SortFunc(items, func(x, y keyed) int {
		switch {
		case less(narrow, y.p, x.w, x.p, y.w): // p_x/w_x > p_y/w_y
			return -1
		case less(narrow, x.p, y.w, y.p, x.w):
			return 1
		}
		return cmp.Compare(x.i, y.i)
	})
	n := len(items)
	pr.n, pr.narrow = n, narrow
	pr.item, pr.orig = make([]item, n), make([]int32, n)
	pr.P, pr.W = make([]int64, n+1), make([]int64, n+1)
	for k, it := range items {
		pr.item[k], pr.orig[k] = item{p: it.p, w: it.w}, it.i
		pr.P[k+1], pr.W[k+1] = pr.P[k]+it.p, pr.W[k]+it.w
	}
	pr.c = min(in.Capacity, pr.W[n])
	b := 0
	for b < n && pr.W[b+1] <= pr.c {
		b++
	}
	pr.b, pr.psb, pr.wsb = b, pr.P[b], pr.W[b]
	pr.reductionBounds()
	pr.startIncumbent()
	return pr
}

// reductionBounds fills in item[k].u.
func (pr *problem) reductionBounds() {
	b := pr.b
	if b == pr.n {
		for k := range pr.item {
			pr.item[k].u = math.MaxInt64 // nothing to search
		}
		return
	}
	pb, wb, r := pr.item[b].p, pr.item[b].w, pr.c-pr.wsb // 0 ≤ r < wb
	for k := range pr.item {
		it := &pr.item[k]
		if k < b {
			it.u = addSat(pr.psb-it.p, floorMulDiv(r+it.w, pb, wb)) // r + w_k < w_b + w_k ≤ Σw
		} else {
			it.u = addSat(pr.psb+it.p, floorMulDiv(r-it.w, pb, wb))
		}
	}
}

// addSat returns a + b saturated to the int64 range.
func addSat(a, b int64) int64 {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// startIncumbent sets the greedy start solution: the best of the full
// greedy (the break solution, then every later item that still fits), the
// best single item, and expknap's two neighbours of the break solution: one
// more item after the break item, or the break item in and one item
// before it out.
func (pr *problem) startIncumbent() {
	n, b, it := pr.n, pr.b, pr.item
	set := make([]bool, n)
	for k := range b {
		set[k] = true
	}
	var best int64
	kind, arg := 0, -1 // kind 0: full greedy, 1: single, 2: forward, 3: backward
	{
		r, g := pr.c-pr.wsb, pr.psb
		for k := b; k < n; k++ {
			if it[k].w <= r {
				r -= it[k].w
				g += it[k].p
			}
		}
		best = g
	}
	for k := range n {
		if it[k].p > best {
			best, kind, arg = it[k].p, 1, k
		}
	}
	for k := b + 1; k < n; k++ {
		if it[k].w <= pr.c-pr.wsb && pr.psb+it[k].p > best {
			best, kind, arg = pr.psb+it[k].p, 2, k
		}
	}
	if b < n {
		need := pr.wsb + it[b].w - pr.c // weight to remove to fit the break item
		for k := range b {
			if it[k].w >= need && pr.psb+it[b].p-it[k].p > best {
				best, kind, arg = pr.psb+it[b].p-it[k].p, 3, k
			}
		}
	}
	switch kind {
	case 0:
		r := pr.c - pr.wsb
		for k := b; k < n; k++ {
			if it[k].w <= r {
				r -= it[k].w
				set[k] = true
			}
		}
	case 1:
		clear(set)
		set[arg] = true
	case 2:
		set[arg] = true
	case 3:
		set[b], set[arg] = true, false
	}
	pr.greedy, pr.greedySet = best, set
}

// items returns the input indices of a solution given by position in
// pr.item, with the items packed in every solution, in ascending order,
// and its profit and weight.
func (pr *problem) items(set []bool) (items []int, profit, weight int64) {
	items = slices.Clone(pr.always)
	profit = pr.alwaysP
	for k, in := range set {
		if in {
			items = append(items, int(pr.orig[k]))
			profit += pr.item[k].p
			weight += pr.item[k].w
		}
	}
	slices.Sort(items)
	return items, profit, weight
}
