package hashtable

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The counting model of seed 004 §4.5: the load balance of the essential
// work without running p ranks. A run draws the occupancies X_ij, Y_ij of
// the p·q buckets, sums W_ij over the q buckets of each processor and keeps
// the maximum; the experimental load balance factor is
//
//	η̄(p,q) = E(Σ_j W_1j) / mean over runs of max_i Σ_j W_ij
//
// for W ∈ {X, XY, X^(2)} (X^(2) = X(X−1), the second falling power).

// SimModel is how the simulation draws bucket occupancies. The zero value is
// SimBernoulli, the seed's.
type SimModel int

const (
	// SimBernoulli throws n = α·p·q elements into the p·q buckets uniformly
	// at random (the seed's simulation): occupancies are multinomial.
	SimBernoulli SimModel = iota
	// SimPoisson draws every occupancy independently from Poisson(α) (the
	// seed's analytical model); ten times faster.
	SimPoisson
)

// String returns the model's name.
func (m SimModel) String() string {
	if m == SimPoisson {
		return "poisson"
	}
	return "bernoulli"
}

// ParseSimModel returns the model named s ("bernoulli" or "poisson").
func ParseSimModel(s string) (SimModel, error) {
	switch s {
	case "bernoulli":
		return SimBernoulli, nil
	case "poisson":
		return SimPoisson, nil
	}
	return 0, fmt.Errorf("unknown model %q (want bernoulli or poisson)", s)
}

// Load is the per-bucket work W_ij of the simulation.
type Load int

// The loads of Fig. 1 (a), (b) and (c).
const (
	LoadX  Load = iota // X: the generate and dispatch work
	LoadXY             // X·Y: the search work
	LoadX2             // X^(2) = X(X−1): the insert work
	NumLoads
)

// String returns "X", "XY" or "X2".
func (w Load) String() string {
	switch w {
	case LoadX:
		return "X"
	case LoadXY:
		return "XY"
	case LoadX2:
		return "X2"
	}
	return fmt.Sprintf("Load(%d)", int(w))
}

// SimPoint is the simulated load balance of one (p, q, W).
type SimPoint struct {
	Model string `json:"model"`
	P     int    `json:"p"`
	Q     int    `json:"q"`
	// QLabel is q as a function of p in Fig. 1: "1", "lg p", "lg^2 p" or
	// "lg^3 p"; empty for other q.
	QLabel string `json:"q_label"`
	W      string `json:"w"`
	Runs   int    `json:"runs"`
	// Mean is E(Σ_j W_1j), the expected load of one processor, exact for the
	// model (for the Bernoulli model E(X^(2)) = n(n−1)/m², not α²).
	Mean float64 `json:"mean_load"`
	// MeanMax and SDMax are the mean and sample standard deviation over runs
	// of the maximum load max_i Σ_j W_ij.
	MeanMax float64 `json:"mean_max"`
	SDMax   float64 `json:"sd_max"`
	// Eta is Mean/MeanMax, the experimental load balance factor η̄(p,q).
	Eta float64 `json:"eta"`
	// CV is SDMax/MeanMax, the coefficient of variation of Table 1.
	CV float64 `json:"cv"`
	// CVSE is the standard error of the CV measured with Block runs, as the
	// seed did with 50: the standard deviation of the CVs of the Runs/Block
	// disjoint blocks of runs. Zero when Runs < 2·Block.
	CVSE float64 `json:"cv_se,omitempty"`
	// CVBlock is the mean of those block CVs: what a Block-run experiment
	// measures on average (below CV, since a sample standard deviation is
	// biased low for few runs of a skewed distribution).
	CVBlock float64 `json:"cv_block,omitempty"`
	// Theory is, for W = X, the exact η of the Poisson model,
	// qα / E(max of p Poisson(qα)) (Kolchin's setting); zero otherwise.
	Theory float64 `json:"eta_theory,omitempty"`
}

// SimParams configures Simulate. The zero value is invalid.
type SimParams struct {
	Alpha, Beta float64 // load factors of X and Y (the seed: 4 and 4)
	Runs        int     // runs per (p, q) (the seed: 50)
	Seed        uint64
	Model       SimModel
	// Workers is the number of goroutines; 0 means GOMAXPROCS. Results do not
	// depend on it.
	Workers int
	// Block, if > 0, is the size of the blocks of runs whose CVs give
	// SimPoint.CVSE (50 to match the seed).
	Block int
	// Progress, if set, is called from Simulate's goroutine about every
	// ProgressEvery (and once at the end) with the runs done and the runs
	// in all.
	Progress func(done, total int)
}

// MaxWorkers bounds SimParams.Workers and MeshParams.Workers: each worker
// holds tables of its own, and a worker more than the runs to share has
// nothing to do (--workers 9223372036854775807 grew to 9 GB in 30 s).
const MaxWorkers = 4096

// ProgressEvery is how often Simulate reports progress.
const ProgressEvery = time.Second

// runJobs runs a job for every configuration i < n and round r < rounds
// on workers goroutines (GOMAXPROCS when 0, never more than the jobs), each
// with a function of its own from newWorker (and so scratch space of its
// own), and calls progress, when set, about every ProgressEvery and once at
// the end with the jobs done and all of them.
func runJobs(n, rounds, workers int, progress func(done, total int), newWorker func() func(i, r int)) {
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	total := n * rounds
	workers = min(workers, total)
	jobs := make(chan [2]int)
	var wg sync.WaitGroup
	var done atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			do := newWorker()
			for j := range jobs {
				do(j[0], j[1])
				done.Add(1)
			}
		}()
	}
	next := time.Now().Add(ProgressEvery)
	for i := range n {
		for r := range rounds {
			jobs <- [2]int{i, r}
			if now := time.Now(); progress != nil && now.After(next) {
				next = now.Add(ProgressEvery)
				progress(int(done.Load()), total)
			}
		}
	}
	close(jobs)
	wg.Wait()
	if progress != nil {
		progress(total, total)
	}
}

// ErrNoLoad is Simulate's error when no run of a point put any load on
// any processor (load factors too small for the runs: --alpha 0.001 at p =
// 4): its η and CV are 0/0.
var ErrNoLoad = errors.New("no processor got any load")

// Validate reports the first invalid parameter, named by the flag of the
// dht command that sets it.
func (sp SimParams) Validate() error {
	switch {
	case !(sp.Alpha > 0):
		return fmt.Errorf("--alpha %g: need a load factor above 0, at most %d (with alpha = 0 every load of Fig. 1 is 0 and η is 0/0)", sp.Alpha, MaxLoadFactor)
	case !(sp.Beta > 0):
		return fmt.Errorf("--beta %g: need a load factor above 0, at most %d (with beta = 0 the load XY is 0 and its η is 0/0)", sp.Beta, MaxLoadFactor)
	case sp.Alpha > MaxLoadFactor || sp.Beta > MaxLoadFactor:
		return fmt.Errorf("--alpha %g, --beta %g: need load factors of at most %d, as every dht command", sp.Alpha, sp.Beta, MaxLoadFactor)
	case sp.Runs < 2:
		return fmt.Errorf("--runs %d: need at least 2", sp.Runs)
	case sp.Model != SimBernoulli && sp.Model != SimPoisson:
		return fmt.Errorf("unknown model %d", int(sp.Model))
	case sp.Workers < 0 || sp.Workers > MaxWorkers:
		return fmt.Errorf("--workers %d: need 0 (GOMAXPROCS) to %d goroutines", sp.Workers, MaxWorkers)
	case sp.Block < 0 || sp.Block == 1:
		return fmt.Errorf("blocks of %d runs, need 0 (none) or at least 2", sp.Block)
	}
	return nil
}

// PQ is one configuration of the simulation.
type PQ struct {
	P, Q   int
	QLabel string
}

// Fig1Configs returns the configurations of Fig. 1 for p = 4^k up to maxP:
// q ∈ {1, lg p, lg² p, lg³ p}.
func Fig1Configs(maxP int) []PQ {
	var cs []PQ
	for p := 4; p <= maxP; p *= 4 {
		l := bits.Len(uint(p)) - 1
		cs = append(cs, PQ{p, 1, "1"}, PQ{p, l, "lg p"}, PQ{p, l * l, "lg^2 p"}, PQ{p, l * l * l, "lg^3 p"})
	}
	return cs
}

// Table1Configs returns the configurations of Table 1.
func Table1Configs() []PQ {
	return []PQ{{64, 1, "1"}, {64, 6, "lg p"}, {64, 36, "lg^2 p"},
		{4096, 1, "1"}, {4096, 12, "lg p"}, {4096, 144, "lg^2 p"}}
}

// Simulate runs sp.Runs runs of every configuration and returns one point
// per configuration and load, in the order of cs and then X, XY, X2. Safe
// for concurrent use; it costs O(runs · Σ p·q·(α+β)) time for the Bernoulli
// model, O(runs · Σ p·q) for the Poisson model, and O(max p·q) memory per
// worker.
func Simulate(cs []PQ, sp SimParams) ([]SimPoint, error) {
	if err := sp.Validate(); err != nil {
		return nil, fmt.Errorf("hashtable: simulate: %w", err)
	}
	maxM := 0
	for _, c := range cs {
		if c.P < 1 || c.Q < 1 {
			return nil, fmt.Errorf("hashtable: simulate: p = %d, q = %d, need both ≥ 1", c.P, c.Q)
		}
		if c.P*c.Q > 1<<28 || c.P*c.Q/c.Q != c.P {
			return nil, fmt.Errorf("hashtable: simulate: p·q = %d·%d is too large", c.P, c.Q)
		}
		maxM = max(maxM, c.P*c.Q)
	}
	// maxima[c][w][run]
	maxima := make([][NumLoads][]float64, len(cs))
	for i := range maxima {
		for w := range maxima[i] {
			maxima[i][w] = make([]float64, sp.Runs)
		}
	}
	runJobs(len(cs), sp.Runs, sp.Workers, sp.Progress, func() func(i, r int) {
		s := newSimScratch(maxM, sp)
		return func(i, r int) {
			c := cs[i]
			mx := s.run(c.P, c.Q, StreamSeed(sp.Seed, uint64(c.P), uint64(c.Q), uint64(r)))
			for w := range NumLoads {
				maxima[i][w][r] = mx[w]
			}
		}
	})

	var pts []SimPoint
	for i, c := range cs {
		means := expectedLoads(c.P, c.Q, sp)
		for w := range NumLoads {
			mean, sd := meanSD(maxima[i][w])
			if mean == 0 {
				return nil, fmt.Errorf("hashtable: simulate: p = %d, q = %d, W = %v: %w in %d runs: η and the CV are 0/0 (raise --alpha, --beta or --runs)", c.P, c.Q, w, ErrNoLoad, sp.Runs)
			}
			pt := SimPoint{Model: sp.Model.String(), P: c.P, Q: c.Q, QLabel: c.QLabel,
				W: w.String(), Runs: sp.Runs, Mean: means[w], MeanMax: mean, SDMax: sd,
				Eta: means[w] / mean, CV: sd / mean}
			if sp.Block > 0 && sp.Runs >= 2*sp.Block {
				var cvs []float64
				for b := 0; b+sp.Block <= sp.Runs; b += sp.Block {
					m, s := meanSD(maxima[i][w][b : b+sp.Block])
					cvs = append(cvs, s/m)
				}
				pt.CVBlock, pt.CVSE = meanSD(cvs)
			}
			if w == LoadX {
				lambda := float64(c.Q) * sp.Alpha
				pt.Theory = lambda / ExpectedMaxPoisson(c.P, lambda)
			}
			pts = append(pts, pt)
		}
	}
	return pts, nil
}

// counts returns the number of elements thrown for load factor a.
func counts(a float64, m int) int64 { return int64(math.Round(a * float64(m))) }

// expectedLoads returns E(Σ_j W_1j) for X, XY and X2 under the model.
func expectedLoads(p, q int, sp SimParams) [NumLoads]float64 {
	fq := float64(q)
	if sp.Model == SimPoisson {
		return [NumLoads]float64{fq * sp.Alpha, fq * sp.Alpha * sp.Beta, fq * sp.Alpha * sp.Alpha}
	}
	m := float64(p * q)
	nx, ny := float64(counts(sp.Alpha, p*q)), float64(counts(sp.Beta, p*q))
	return [NumLoads]float64{fq * nx / m, fq * nx * ny / (m * m), fq * nx * (nx - 1) / (m * m)}
}

func meanSD(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)-1))
}

// simScratch is one worker's memory: occupancy counters and the Poisson
// inversion tables.
type simScratch struct {
	x, y   []uint16
	sp     SimParams
	pa, pb *poissonTable
}

func newSimScratch(maxM int, sp SimParams) *simScratch {
	s := &simScratch{x: make([]uint16, maxM), y: make([]uint16, maxM), sp: sp}
	if sp.Model == SimPoisson {
		s.pa, s.pb = newPoissonTable(sp.Alpha), newPoissonTable(sp.Beta)
	}
	return s
}

// poissonCDF tabulates the distribution function of Poisson(lambda) up to
// where it reaches 1 in double precision.
func poissonCDF(lambda float64) []float64 {
	var cdf []float64
	f := 0.0
	for k := 0; k < 1<<16; k++ {
		lg, _ := math.Lgamma(float64(k + 1))
		f += math.Exp(-lambda + float64(k)*math.Log(lambda) - lg)
		if lambda == 0 {
			f = 1
		}
		cdf = append(cdf, f)
		if f >= 1 || (float64(k) > lambda && 1-f < 1e-17) {
			break
		}
	}
	cdf[len(cdf)-1] = math.Inf(1) // every u < 1 stops here
	return cdf
}

// run draws one table of p·q buckets and returns max_i Σ_j W_ij for each
// load. Processor i owns buckets [i·q, (i+1)·q) (the allocation does not
// matter: the occupancies are exchangeable).
func (s *simScratch) run(p, q int, seed uint64) [NumLoads]float64 {
	m := p * q
	x, y := s.x[:m], s.y[:m]
	rng := NewRand(seed)
	if s.sp.Model == SimPoisson {
		fillPoisson(x, s.pa, rng)
		fillPoisson(y, s.pb, rng)
	} else {
		throw(x, counts(s.sp.Alpha, m), rng)
		throw(y, counts(s.sp.Beta, m), rng)
	}
	var mx [NumLoads]int64
	for i := range p {
		var sx, sxy, sx2 int64
		xs, ys := x[i*q:(i+1)*q], y[i*q:(i+1)*q]
		for j, a := range xs {
			a := int64(a)
			sx += a
			sxy += a * int64(ys[j])
			sx2 += a * (a - 1)
		}
		mx[LoadX], mx[LoadXY], mx[LoadX2] = max(mx[LoadX], sx), max(mx[LoadXY], sxy), max(mx[LoadX2], sx2)
	}
	return [NumLoads]float64{float64(mx[LoadX]), float64(mx[LoadXY]), float64(mx[LoadX2])}
}

// throw sets c to the occupancies of n elements thrown uniformly into len(c)
// buckets (bucket ⌊u·m/2^64⌋ of a uniform 64-bit u).
func throw(c []uint16, n int64, rng *Rand) {
	clear(c)
	m := uint64(len(c))
	s := rng.s
	for range n {
		s += golden
		b, _ := bits.Mul64(Mix64(s), m)
		c[b]++
	}
	rng.s = s
}

// fillPoisson draws every c[i] by inversion of cdf, starting the search at
// a guide table entry so that it takes about one comparison.
func fillPoisson(c []uint16, t *poissonTable, rng *Rand) {
	s := rng.s
	for i := range c {
		s += golden
		u := float64(Mix64(s)>>11) * 0x1p-53
		k := int(t.guide[int(u*guideSize)])
		for u >= t.cdf[k] {
			k++
		}
		c[i] = uint16(k)
	}
	rng.s = s
}

const guideSize = 1024

// poissonTable is the distribution function of Poisson(λ) with a guide:
// guide[g] is the smallest k with cdf[k] > g/guideSize.
type poissonTable struct {
	cdf   []float64
	guide [guideSize]uint16
}

func newPoissonTable(lambda float64) *poissonTable {
	t := &poissonTable{cdf: poissonCDF(lambda)}
	k := 0
	for g := range guideSize {
		for t.cdf[k] <= float64(g)/guideSize {
			k++
		}
		t.guide[g] = uint16(k)
	}
	return t
}

// ExpectedMaxPoisson returns E(max of p i.i.d. Poisson(lambda)) computed
// from the distribution function: Σ_k (1 − F(k)^p). With lambda = q·α it is
// the exact denominator of η for W = X in the Poisson model (Kolchin's
// setting, seed 004 Theorem 1). O(√lambda + 1) time.
func ExpectedMaxPoisson(p int, lambda float64) float64 {
	if lambda <= 0 {
		return 0
	}
	sd := math.Sqrt(lambda)
	lo := max(0, int(math.Floor(lambda-15*sd-10)))
	hi := int(math.Ceil(lambda + 15*sd + 40))
	for float64(hi) < lambda+40*sd && hi < 1<<30 {
		hi *= 2
	}
	// Upper tails S(k) = P(X > k), summed downwards for precision.
	e := float64(lo)
	tail := 0.0
	tails := make([]float64, hi-lo+1)
	for k := hi; k >= lo; k-- {
		tails[k-lo] = min(tail, 1)
		lg, _ := math.Lgamma(float64(k + 1))
		tail += math.Exp(-lambda + float64(k)*math.Log(lambda) - lg)
	}
	for k := lo; k <= hi; k++ {
		// 1 − (1 − S)^p, accurate for small S.
		e += -math.Expm1(float64(p) * math.Log1p(-tails[k-lo]))
	}
	return e
}

// WriteSimCSV writes the points as CSV with a header line.
func WriteSimCSV(w io.Writer, pts []SimPoint) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"model", "p", "q", "q_label", "w", "runs", "mean_load", "mean_max", "sd_max", "eta", "cv", "cv_block", "cv_se", "eta_theory"})
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	for _, pt := range pts {
		_ = cw.Write([]string{pt.Model, strconv.Itoa(pt.P), strconv.Itoa(pt.Q), pt.QLabel, pt.W, strconv.Itoa(pt.Runs),
			f(pt.Mean), f(pt.MeanMax), f(pt.SDMax), f(pt.Eta), f(pt.CV), f(pt.CVBlock), f(pt.CVSE), f(pt.Theory)})
	}
	cw.Flush()
	return cw.Error()
}
