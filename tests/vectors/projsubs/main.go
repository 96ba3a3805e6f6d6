// Command projsubs writes test vectors for reporters/notifications/subscriptions.py and
// legacy.py from Argo CD v3.2.11 itself: for each input line, the destinations Argo CD's
// notifications controller sends an app's notifications to, from the app's annotations
// (notifications-engine's getDestinations) and its AppProject's (Argo CD's
// alterDestinations: the project's subscription annotations, then its legacy recipients
// annotations), merged and deduplicated as the controller does.
//
//	python inputs.py | go run . > vectors.jsonl   (one JSON object per line)
//
// An input is {"name", "app", "project", "defaultTriggers", "serviceDefaultTriggers"}:
// "app" and "project" are annotations ("project" null: the app has no project). Each
// output line is {"name", "input", "destinations": {trigger: [[service, recipient], ...]}}, each
// list sorted (the controller's order follows Go's map iteration, which is random).
// Destinations without a service are left out: notifications-engine's parser hands an
// annotation that subscribes nothing (a legacy one, read by the subscriptions parser too)
// the recipients of whichever annotation it read before, in map order, with no service,
// which sends nothing; they would make the vectors change from one run to the next.
package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"sort"

	"github.com/argoproj/argo-cd/v3/util/notification/settings"
	"github.com/argoproj/notifications-engine/pkg/services"
	"github.com/argoproj/notifications-engine/pkg/subscriptions"
	log "github.com/sirupsen/logrus"
)

type input struct {
	Name                   string              `json:"name"`
	App                    map[string]string   `json:"app"`
	Project                map[string]string   `json:"project"`
	DefaultTriggers        []string            `json:"defaultTriggers"`
	ServiceDefaultTriggers map[string][]string `json:"serviceDefaultTriggers"`
}

type output struct {
	Name         string                `json:"name"`
	Input        json.RawMessage       `json:"input"`
	Destinations map[string][][]string `json:"destinations"`
}

func destinations(in input) services.Destinations {
	res := services.Destinations{}
	res.Merge(subscriptions.NewAnnotations(in.App).GetDestinations(in.DefaultTriggers, in.ServiceDefaultTriggers))
	if in.Project != nil {
		res.Merge(subscriptions.NewAnnotations(in.Project).GetDestinations(in.DefaultTriggers, in.ServiceDefaultTriggers))
		res.Merge(settings.GetLegacyDestinations(in.Project, in.DefaultTriggers, in.ServiceDefaultTriggers))
	}
	return res.Dedup()
}

func main() {
	log.SetOutput(io.Discard) // the subscriptions parser logs what it reads
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetEscapeHTML(false)
	for scanner.Scan() {
		var in input
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			panic(err)
		}
		line := append([]byte(nil), scanner.Bytes()...)
		out := output{Name: in.Name, Input: line, Destinations: map[string][][]string{}}
		for trigger, dests := range destinations(in) {
			pairs := [][]string{}
			for _, d := range dests {
				if d.Service != "" {
					pairs = append(pairs, []string{d.Service, d.Recipient})
				}
			}
			sort.Slice(pairs, func(i, j int) bool {
				if pairs[i][0] != pairs[j][0] {
					return pairs[i][0] < pairs[j][0]
				}
				return pairs[i][1] < pairs[j][1]
			})
			if len(pairs) > 0 {
				out.Destinations[trigger] = pairs
			}
		}
		if err := encoder.Encode(out); err != nil {
			panic(err)
		}
	}
	if err := scanner.Err(); err != nil {
		panic(err)
	}
}
