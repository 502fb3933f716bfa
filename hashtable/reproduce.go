package hashtable

import "fmt"

// Reproduction is the simulation of seed 004 §4.5: Fig. 1 and Table 1.
type Reproduction struct {
	Model     string  `json:"model"`
	Alpha     float64 `json:"alpha"`
	Beta      float64 `json:"beta"`
	Runs      int     `json:"runs"`
	TableRuns int     `json:"table_runs"`
	Seed      uint64  `json:"seed"`
	// Fig1 holds η for every p, q and W of Fig. 1, with Runs runs each.
	Fig1 []SimPoint `json:"fig1"`
	// Table1 compares the coefficients of variation, measured with
	// TableRuns runs in blocks of 50, with the seed's.
	Table1 []Table1Row `json:"table1,omitempty"`
}

// MaxSimP is the largest p Reproduce accepts.
const MaxSimP = 16384

// Reproduce simulates Fig. 1 for p = 4, 16, …, maxP with sp.Runs runs, and
// Table 1 (its cells with p ≤ maxP) with tableRuns runs (none if 0). Safe
// for concurrent use; see Simulate for the cost.
func Reproduce(sp SimParams, maxP, tableRuns int) (*Reproduction, error) {
	if maxP < 4 || maxP > MaxSimP {
		return nil, fmt.Errorf("hashtable: largest p = %d, need 4 ≤ p ≤ %d", maxP, MaxSimP)
	}
	if tableRuns != 0 && tableRuns < 100 {
		return nil, fmt.Errorf("hashtable: %d runs for Table 1, need 0 (skip) or at least 100 (two blocks of 50)", tableRuns)
	}
	r := &Reproduction{Model: sp.Model.String(), Alpha: sp.Alpha, Beta: sp.Beta, Runs: sp.Runs, TableRuns: tableRuns, Seed: sp.Seed}
	var err error
	if r.Fig1, err = Simulate(Fig1Configs(maxP), sp); err != nil {
		return nil, err
	}
	if tableRuns == 0 {
		return r, nil
	}
	var cs []PQ
	for _, c := range Table1Configs() {
		if c.P <= maxP {
			cs = append(cs, c)
		}
	}
	tp := sp
	tp.Runs, tp.Block, tp.Seed = tableRuns, 50, StreamSeed(sp.Seed, 1)
	pts, err := Simulate(cs, tp)
	if err != nil {
		return nil, err
	}
	r.Table1 = CompareTable1(pts)
	return r, nil
}
