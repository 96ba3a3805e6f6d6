// Command expr writes test vectors for reporters/expr from the real library: for each input
// line, what a trigger's `when` gives in Argo CD Notifications (Argo CD v3.2.4 to v3.2.12 pin
// github.com/expr-lang/expr v1.17.7 through notifications-engine d27ba0152c1c).
//
//	python inputs.py | TZ=UTC go run . > vectors.jsonl
//
// The first input line holds the Applications ({"apps": {name: object}}), each decoded as
// Kubernetes' unstructured decoder decodes JSON (k8s.io/apimachinery util/json: a number is
// an int64 when it parses as one, otherwise a float64). Every later line is one case,
// {"in": text, "app": name}, and is compiled and run as pkg/triggers/service.go does it:
// expr.Compile(text.Coalesce(when, "false")) without options, then expr.Run(prog, vars), the
// condition triggering only on a bool true. vars is what Argo CD's expression.Spawn builds
// (util/notification/expression): "app", "context", and the "time", "strings" and "repo"
// namespaces. time.Now is a fixed instant (NOW below) so that the vectors are reproducible;
// time.Parse, the durations and layouts, strings.* and repo.QueryEscape, RepoURLToHTTPS and
// FullNameByRepoURL behave as Argo CD's (util/notification/expression, same git-urls
// version). repo.GetCommitMetadata and GetAppDetails ask the Argo CD API and are left out.
//
// Each output line has "in", "app" and one of: "compile" (expr.Compile's error), "run"
// (expr.Run's error), or "type" (%T of the result), "json" (the result as encoding/json
// writes it, or null when it cannot), "text" (fmt's %v, as oncePer uses it) and
// "triggered".
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	giturls "github.com/chainguard-dev/git-urls"
	"github.com/expr-lang/expr"
)

// NOW stands for time.Now in the vectors: a few hours after the example app's last sync.
var NOW = time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)

type vector struct {
	In        string          `json:"in"`
	App       string          `json:"app"`
	Compile   string          `json:"compile,omitempty"`
	Run       string          `json:"run,omitempty"`
	Type      string          `json:"type,omitempty"`
	JSON      json.RawMessage `json:"json,omitempty"`
	Text      *string         `json:"text,omitempty"`
	Triggered *bool           `json:"triggered,omitempty"`
	Panic     string          `json:"panic,omitempty"`
}

// convert mirrors apimachinery's util/json convertSliceNumbers/convertMapNumbers.
func convert(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = convert(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = convert(e)
		}
		return x
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, err := x.Float64()
		if err != nil {
			panic(err)
		}
		return f
	}
	return v
}

func decode(raw []byte) any {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	return convert(v)
}

func parse(timestamp string) time.Time {
	res, err := time.Parse(time.RFC3339, timestamp)
	if err != nil {
		panic(err)
	}
	return res
}

func timeExprs() map[string]any {
	return map[string]any{
		"Parse":       parse,
		"Now":         func() time.Time { return NOW },
		"Nanosecond":  time.Nanosecond,
		"Microsecond": time.Microsecond,
		"Millisecond": time.Millisecond,
		"Second":      time.Second,
		"Minute":      time.Minute,
		"Hour":        time.Hour,
		"Layout":      time.Layout,
		"ANSIC":       time.ANSIC,
		"UnixDate":    time.UnixDate,
		"RubyDate":    time.RubyDate,
		"RFC822":      time.RFC822,
		"RFC822Z":     time.RFC822Z,
		"RFC850":      time.RFC850,
		"RFC1123":     time.RFC1123,
		"RFC1123Z":    time.RFC1123Z,
		"RFC3339":     time.RFC3339,
		"RFC3339Nano": time.RFC3339Nano,
		"Kitchen":     time.Kitchen,
		"Stamp":       time.Stamp,
		"StampMilli":  time.StampMilli,
		"StampMicro":  time.StampMicro,
		"StampNano":   time.StampNano,
	}
}

func stringsExprs() map[string]any {
	return map[string]any{
		"ReplaceAll": func(s, old, newV string) string { return strings.ReplaceAll(s, old, newV) },
		"ToUpper":    func(s string) string { return strings.ToUpper(s) },
		"ToLower":    func(s string) string { return strings.ToLower(s) },
	}
}

// repoURLToHTTPS is Argo CD's: the URL as git-urls parses it, with https and no user.
func repoURLToHTTPS(rawURL string) string {
	parsed, err := giturls.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	parsed.Scheme = "https"
	parsed.User = nil
	return parsed.String()
}

// fullNameByRepoURL is Argo CD's: the first two path segments, without a .git suffix.
func fullNameByRepoURL(rawURL string) string {
	parsed, err := giturls.Parse(rawURL)
	if err != nil {
		panic(err)
	}
	path := strings.TrimSuffix(parsed.Path, ".git")
	var parts []string
	for _, part := range strings.Split(path, "/") {
		if part != "" {
			parts = append(parts, part)
		}
	}
	if len(parts) >= 2 {
		return strings.Join(parts[:2], "/")
	}
	return path
}

func vars(app any) map[string]any {
	return map[string]any{
		"app":     app,
		"context": map[string]string{"argocdUrl": "https://argocd.example.com", "notificationType": "slack"},
		"time":    timeExprs(),
		"strings": stringsExprs(),
		"repo": map[string]any{
			"QueryEscape":       url.QueryEscape,
			"RepoURLToHTTPS":    repoURLToHTTPS,
			"FullNameByRepoURL": fullNameByRepoURL,
		},
	}
}

func run(in, name string, app any) (v vector) {
	v.In, v.App = in, name
	defer func() {
		if r := recover(); r != nil {
			v = vector{In: in, App: name, Panic: fmt.Sprint(r)}
		}
	}()
	when := in
	if when == "" { // text.Coalesce(condition.When, "false")
		when = "false"
	}
	prog, err := expr.Compile(when)
	if err != nil {
		v.Compile = err.Error()
		return v
	}
	out, err := expr.Run(prog, vars(app))
	if err != nil {
		v.Run = err.Error()
		return v
	}
	v.Type = fmt.Sprintf("%T", out)
	if raw, err := json.Marshal(out); err == nil {
		v.JSON = raw
	} else {
		v.JSON = json.RawMessage("null")
	}
	text := fmt.Sprintf("%v", out)
	v.Text = &text
	b, ok := out.(bool)
	triggered := ok && b
	v.Triggered = &triggered
	return v
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<24), 1<<24)
	if !scanner.Scan() {
		panic("no apps line")
	}
	var header struct {
		Apps map[string]json.RawMessage `json:"apps"`
	}
	if err := json.Unmarshal(scanner.Bytes(), &header); err != nil {
		panic(err)
	}
	for scanner.Scan() {
		var c struct {
			In  string `json:"in"`
			App string `json:"app"`
		}
		if err := json.Unmarshal(scanner.Bytes(), &c); err != nil {
			panic(err)
		}
		raw, ok := header.Apps[c.App]
		if !ok {
			panic("unknown app " + c.App)
		}
		// A fresh copy per case: nothing one case does can reach the next.
		if err := enc.Encode(run(c.In, c.App, decode(raw))); err != nil {
			panic(err)
		}
	}
	if err := scanner.Err(); err != nil {
		panic(err)
	}
}
