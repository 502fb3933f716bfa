package runner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/treelb/treelb/lb"
	"github.com/treelb/treelb/version"
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

// WriteJSON writes v, which must encode as a JSON object, as one line of
// JSON with the provenance of this process (version.Collect, world "none":
// output that no run of a world made, such as a listing) as its last
// member, "provenance". Run.Print writes a run's records the same way, with
// the run's world.
func WriteJSON(w io.Writer, v any) error {
	return writeRecord(w, v, version.Collect(""))
}

// writeRecord writes v, a JSON object, with p as its last member
// "provenance", on one line. Every JSON object the commands print goes
// through here, so that each carries the build, the machine and the load it
// was measured with.
func writeRecord(w io.Writer, v any, p version.Provenance) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return fmt.Errorf("runner: a JSON record must be an object, not %.40s", b)
	}
	pb, err := json.Marshal(p)
	if err != nil {
		return err
	}
	out := make([]byte, 0, len(b)+len(pb)+16)
	out = append(out, b[:len(b)-1]...)
	if len(bytes.TrimSpace(b[1:len(b)-1])) > 0 {
		out = append(out, ',')
	}
	out = append(out, `"provenance":`...)
	out = append(append(out, pb...), '}', '\n')
	_, err = w.Write(out)
	return err
}

// PrintStats writes the per-rank statistics of an outcome as a table,
// with the totals last; nil is a sequential run's. Of each rank's idle
// seconds, "at start" were before its first work slice and "at end" after
// its last (lb.Times).
func PrintStats(w io.Writer, o *lb.Outcome) {
	if o == nil {
		fmt.Fprintln(w, "no balancer statistics (sequential run)")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "rank\twork s\tidle s\tat start\tat end\tnodes\treq sent\treq recv\trejected\tsplits\tmsgs\tbytes\t")
	row := func(name string, s *lb.Stats) {
		fmt.Fprintf(tw, "%s\t%.3f\t%.3f\t%.3f\t%.3f\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, s.WorkSeconds, s.IdleSeconds,
			s.IdleStartSeconds, s.IdleEndSeconds, s.Nodes,
			s.RequestsSent, s.RequestsRecv, s.RequestsReject, s.Splits, s.MessagesSent, s.BytesSent)
	}
	for i := range o.Ranks {
		row(fmt.Sprint(i), &o.Ranks[i])
	}
	row("total", &o.Total)
	tw.Flush()
}
