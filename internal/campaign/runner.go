package campaign

import (
	"bytes"
	"context"
	"fmt"
	"github.com/treelb/treelb/internal/benchutil"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Runner runs the keys of a plan that its CSV file does not hold yet. The
// zero value is not usable: set CSV, BinDir and Progress.
type Runner struct {
	CSV      string        // the CSV file, read first and rewritten or appended after every run
	JSONL    string        // if set, every run's JSON output is also appended to this file, as it came
	BinDir   string        // the directory of the commands (BinDir/golomb, …)
	Launcher []string      // prefix of every command line; {np} is replaced by P (e.g. srun -n {np})
	Timeout  time.Duration // per run; 0: none
	Progress io.Writer     // progress lines (stderr)
	// Exec runs a command line and returns its standard output; nil runs
	// it as a process (tests replace it).
	Exec func(ctx context.Context, cmd []string) ([]byte, error)
}

// Run runs every key not in the CSV file yet, in order, and returns the
// table with all rows. The CSV file is written after every run, so an
// interrupted campaign loses at most the run under way. A failing run ends
// the campaign with its error.
func (r *Runner) Run(ctx context.Context, keys []Key) (*Table, error) {
	t, todo, err := r.Todo(keys)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(r.Progress, "campaign: %d runs in the plan, %d already in %s, %d to run\n", len(keys), len(keys)-len(todo), r.CSV, len(todo))
	if len(t.Columns) == 0 {
		t.Columns = RunColumns()
		t.index = nil
		if err := t.Write(r.CSV); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	for i, k := range todo {
		cmd, err := Command(k, r.BinDir, r.Launcher)
		if err != nil {
			return t, err
		}
		eta := "?"
		if i > 0 {
			eta = (time.Since(start) / time.Duration(i) * time.Duration(len(todo)-i)).Round(time.Second).String()
		}
		fmt.Fprintf(r.Progress, "campaign: run %d of %d (ETA %s): %s\n", i+1, len(todo), eta, strings.Join(cmd, " "))
		shown, _ := Command(k, "", r.Launcher)
		fields, out, err := r.run(ctx, k, cmd, shown)
		if err != nil {
			return t, fmt.Errorf("campaign: %s: %w", strings.Join(cmd, " "), err)
		}
		grew, err := t.Add(fields)
		if err != nil {
			return t, err
		}
		if grew {
			err = t.Write(r.CSV)
		} else {
			err = t.AppendLast(r.CSV)
		}
		if err == nil && r.JSONL != "" {
			err = appendFile(r.JSONL, out)
		}
		if err != nil {
			return t, err
		}
	}
	fmt.Fprintf(r.Progress, "campaign: %d runs in %s; %s holds %d rows\n", len(todo), time.Since(start).Round(time.Second), r.CSV, len(t.Rows))
	return t, nil
}

// Todo reads the CSV file and returns its table and the keys it does not
// hold yet, in order.
func (r *Runner) Todo(keys []Key) (*Table, []Key, error) {
	t, err := ReadTable(r.CSV)
	if err != nil {
		return nil, nil, err
	}
	have, err := t.Keys()
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", r.CSV, err)
	}
	done := make(map[Key]bool, len(have))
	for _, k := range have {
		done[k] = true
	}
	var todo []Key
	for _, k := range keys {
		if !done[k] {
			todo = append(todo, k)
		}
	}
	return t, todo, nil
}

// run runs one command line and returns the row's fields and the raw
// output.
// shown is the command line recorded in the row (without the binaries'
// directory).
func (r *Runner) run(ctx context.Context, k Key, cmd, shown []string) ([]Field, []byte, error) {
	w, err := ParseWorld(k.World)
	if err != nil {
		return nil, nil, err
	}
	load := ""
	if w.Real() {
		load = benchutil.LoadAvg()
	}
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	exe := r.Exec
	if exe == nil {
		exe = execCommand
	}
	t0 := time.Now()
	out, err := exe(ctx, cmd)
	wall := time.Since(t0).Seconds()
	if err != nil {
		return nil, nil, err
	}
	js, err := Flatten(out)
	if err != nil {
		return nil, nil, err
	}
	fields := make([]Field, 0, len(RunColumns())+len(js))
	for i, v := range k.Values() {
		fields = append(fields, Field{RunColumns()[i], v})
	}
	fields = append(fields, Field{ColCommand, strings.Join(shown, " ")}, Field{ColLoad, load},
		Field{ColWall, strconv.FormatFloat(wall, 'f', 3, 64)})
	return append(fields, js...), out, nil
}

// execCommand runs cmd as a process and returns its standard output; its
// standard error is returned in the error when it fails.
func execCommand(ctx context.Context, cmd []string) ([]byte, error) {
	c := exec.CommandContext(ctx, cmd[0], cmd[1:]...)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s", err, bytes.TrimSpace(stderr.Bytes()))
	}
	return out, nil
}

// appendFile appends data, ending in a newline, to the file at path.
func appendFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	data = append(bytes.TrimRight(data, "\n"), '\n')
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
