// Command cron writes test vectors for orchestrator/schedules/cron.py from the real
// robfig/cron v3, the library Argo Workflows reads a CronWorkflow's schedule with: the
// schedule is parsed as Argo parses it (the standard five fields and descriptors, with
// "CRON_TZ=<zone> " in front when a time zone is set), and Next is called repeatedly from
// the start instant.
//
//	python inputs.py | nice go run . > vectors.jsonl   (one JSON object per line)
//
// Each input line is {"spec", "zone", "start", "n"}; each output line repeats them and adds
// either "next" (up to n activations, RFC 3339 in the zone's offset; fewer when Next gives
// the zero time, which it does for a schedule that never fires) or "error" (the parse error).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"time"
	_ "time/tzdata" // the zones from Go's own copy, whatever the machine has installed

	"github.com/robfig/cron/v3"
)

type input struct {
	Spec  string `json:"spec"`
	Zone  string `json:"zone"`
	Start string `json:"start"`
	N     int    `json:"n"`
}

type vector struct {
	input
	Next  []string `json:"next,omitempty"`
	Error string   `json:"error,omitempty"`
}

func evaluate(in input) vector {
	out := vector{input: in}
	loc, err := time.LoadLocation(in.Zone)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	schedule, err := cron.ParseStandard("CRON_TZ=" + in.Zone + " " + in.Spec)
	if err != nil {
		out.Error = err.Error()
		return out
	}
	t, err := time.Parse(time.RFC3339, in.Start)
	if err != nil {
		panic(err)
	}
	t = t.In(loc)
	out.Next = []string{}
	for i := 0; i < in.N; i++ {
		t = schedule.Next(t)
		if t.IsZero() {
			break
		}
		out.Next = append(out.Next, t.Format(time.RFC3339))
	}
	return out
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	writer := bufio.NewWriter(os.Stdout)
	defer writer.Flush()
	for scanner.Scan() {
		var in input
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			panic(err)
		}
		line, err := json.Marshal(evaluate(in))
		if err != nil {
			panic(err)
		}
		fmt.Fprintln(writer, string(line))
	}
	if err := scanner.Err(); err != nil {
		panic(err)
	}
}
