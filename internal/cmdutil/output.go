package cmdutil

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/treelb/treelb/lb"
)

// Header is the part of every app's JSON output that says what ran; apps
// embed it in their output structs.
type Header struct {
	App      string `json:"app"`
	Balancer string `json:"balancer"`
	Ranks    int    `json:"ranks"`
	World    string `json:"world"`
}

// Stats is the statistics part of the JSON output: the totals over the
// ranks and every rank's own.
type Stats struct {
	Total lb.Stats   `json:"total"`
	Ranks []lb.Stats `json:"ranks"`
}

// WriteJSON writes v as one JSON object and a newline.
func WriteJSON(w io.Writer, v any) error {
	return json.NewEncoder(w).Encode(v)
}

// PrintStats writes the per-rank statistics of an outcome as a table,
// with the totals last; nil is a sequential run's.
func PrintStats(w io.Writer, o *lb.Outcome) {
	if o == nil {
		fmt.Fprintln(w, "no balancer statistics (sequential run)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\twork s\tidle s\tnodes\treq sent\treq recv\trejected\tsplits\tmsgs\tbytes\t")
	row := func(name string, s *lb.Stats) {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, s.WorkSeconds, s.IdleSeconds, s.Nodes,
			s.RequestsSent, s.RequestsRecv, s.RequestsReject, s.Splits, s.MessagesSent, s.BytesSent)
	}
	for i := range o.Ranks {
		row(fmt.Sprint(i), &o.Ranks[i])
	}
	row("total", &o.Total)
	tw.Flush()
}

// Record is the part of every app's JSON output that the measurement tools
// read: the header, the wall time, the nodes and the statistics.
type Record struct {
	Header
	Seconds float64 `json:"seconds"`
	Nodes   int64   `json:"nodes"`
	Stats   *Stats  `json:"stats,omitempty"`
}
