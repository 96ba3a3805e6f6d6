// Command gotemplate writes test vectors for reporters/gotemplate from the real libraries:
// Go's text/template with the function map notifications-engine gives every template
// (pkg/templates/service.go at the commit Argo CD v3.2.12 pins: sprig.TxtFuncMap() without
// "env" and "expandenv"), and the data Argo CD hands it (util/notification/settings and
// util/notification/expression: the Application as unstructured JSON, "context", the
// "time", "strings" and "repo" helper maps, and from notifications-engine's api.Send
// "serviceType" and "recipient").
//
//	python inputs.py | GOTOOLCHAIN=go1.25.5 TZ=UTC go run . > vectors.jsonl
//
// (Go 1.25.5 is the release Argo CD v3.2.12 builds with; text/template's messages differ
// between releases, e.g. Go 1.26 refuses {{slice .l 2 1}} itself where 1.25 lets reflect
// panic. One JSON object per line.)
//
// An input line is either a fixture, {"fixture": NAME, "value": JSON}, echoed unchanged and
// remembered, or a case: {"name", "text", "data", "base": a fixture whose keys the data
// starts from, "uses": [fixture names put into the data under their own name], "argocd": put Argo CD's helper maps into the data, "secrets": the
// data's "secrets" map becomes map[string][]byte as Argo CD's Secret data is}. The case is
// echoed with "out" (what Execute wrote) or "error" and "phase" ("parse" or "exec").
// JSON numbers become int64 when they are integers and float64 otherwise, as the
// unstructured converter decodes an Application.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strings"
	"text/template"
	"time"

	"github.com/Masterminds/sprig/v3"
	giturls "github.com/chainguard-dev/git-urls"
)

type input struct {
	Fixture string          `json:"fixture,omitempty"`
	Value   json.RawMessage `json:"value,omitempty"`
	Name    string          `json:"name,omitempty"`
	Text    string          `json:"text"`
	Data    json.RawMessage `json:"data,omitempty"`
	Base    string          `json:"base,omitempty"`
	Uses    []string        `json:"uses,omitempty"`
	ArgoCD  bool            `json:"argocd,omitempty"`
	Secrets bool            `json:"secrets,omitempty"`
}

type output struct {
	Name    string          `json:"name"`
	Text    string          `json:"text"`
	Data    json.RawMessage `json:"data,omitempty"`
	Base    string          `json:"base,omitempty"`
	Uses    []string        `json:"uses,omitempty"`
	ArgoCD  bool            `json:"argocd,omitempty"`
	Secrets bool            `json:"secrets,omitempty"`
	Out     *string         `json:"out,omitempty"`
	Error   string          `json:"error,omitempty"`
	Phase   string          `json:"phase,omitempty"`
}

// funcMap is the map notifications-engine's NewService builds.
func funcMap() template.FuncMap {
	f := sprig.TxtFuncMap()
	delete(f, "env")
	delete(f, "expandenv")
	return f
}

// decode turns JSON into what unstructured holds: int64 for integers, float64 otherwise.
func decode(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	return convert(v)
}

func convert(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = convert(e)
		}
		return t
	case []any:
		for i, e := range t {
			t[i] = convert(e)
		}
		return t
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i
		}
		f, err := t.Float64()
		if err != nil {
			panic(err)
		}
		return f
	}
	return v
}

var gitSuffix = regexp.MustCompile(`\.git$`)

// The helper maps of util/notification/expression (time, strings, repo) as Argo CD v3.2.12
// registers them; repo's functions that ask the repo server are left out.
func argocdHelpers() map[string]any {
	return map[string]any{
		"time": map[string]any{
			"Parse": func(timestamp string) time.Time {
				res, err := time.Parse(time.RFC3339, timestamp)
				if err != nil {
					panic(err)
				}
				return res
			},
			"Nanosecond": time.Nanosecond, "Microsecond": time.Microsecond,
			"Millisecond": time.Millisecond, "Second": time.Second,
			"Minute": time.Minute, "Hour": time.Hour,
			"Layout": time.Layout, "ANSIC": time.ANSIC, "UnixDate": time.UnixDate,
			"RubyDate": time.RubyDate, "RFC822": time.RFC822, "RFC822Z": time.RFC822Z,
			"RFC850": time.RFC850, "RFC1123": time.RFC1123, "RFC1123Z": time.RFC1123Z,
			"RFC3339": time.RFC3339, "RFC3339Nano": time.RFC3339Nano, "Kitchen": time.Kitchen,
			"Stamp": time.Stamp, "StampMilli": time.StampMilli, "StampMicro": time.StampMicro,
			"StampNano": time.StampNano,
		},
		"strings": map[string]any{
			"ReplaceAll": func(s, old, newV string) string { return strings.ReplaceAll(s, old, newV) },
			"ToUpper":    func(s string) string { return strings.ToUpper(s) },
			"ToLower":    func(s string) string { return strings.ToLower(s) },
		},
		"repo": map[string]any{
			"RepoURLToHTTPS": func(rawURL string) string {
				parsed, err := giturls.Parse(rawURL)
				if err != nil {
					panic(err)
				}
				parsed.Scheme = "https"
				parsed.User = nil
				return parsed.String()
			},
			"FullNameByRepoURL": func(rawURL string) string {
				parsed, err := giturls.Parse(rawURL)
				if err != nil {
					panic(err)
				}
				path := gitSuffix.ReplaceAllString(parsed.Path, "")
				var parts []string
				for _, p := range strings.Split(path, "/") {
					if p != "" {
						parts = append(parts, p)
					}
				}
				if len(parts) >= 2 {
					return strings.Join(parts[:2], "/")
				}
				return path
			},
			"QueryEscape": url.QueryEscape,
		},
	}
}

func run(in input, fixtures map[string]json.RawMessage) (o output) {
	o = output{Name: in.Name, Text: in.Text, Data: in.Data, Base: in.Base, Uses: in.Uses,
		ArgoCD: in.ArgoCD, Secrets: in.Secrets}
	data := decode(in.Data)
	if in.Base != "" || len(in.Uses) > 0 || in.ArgoCD || in.Secrets {
		m, _ := data.(map[string]any)
		if m == nil {
			m = map[string]any{}
		}
		if in.Base != "" {
			for k, v := range decode(fixtures[in.Base]).(map[string]any) {
				if _, ok := m[k]; !ok {
					m[k] = v
				}
			}
		}
		for _, name := range in.Uses {
			m[name] = decode(fixtures[name])
		}
		if in.ArgoCD {
			for k, v := range argocdHelpers() {
				m[k] = v
			}
		}
		if in.Secrets {
			secrets := map[string][]byte{}
			for k, v := range m["secrets"].(map[string]any) {
				secrets[k] = []byte(v.(string))
			}
			m["secrets"] = secrets
		}
		data = m
	}
	tmpl, err := template.New(in.Name).Funcs(funcMap()).Parse(in.Text)
	if err != nil {
		o.Error, o.Phase = err.Error(), "parse"
		return o
	}
	var buf bytes.Buffer
	if err := tmpl.Execute(&buf, data); err != nil {
		o.Error, o.Phase = err.Error(), "exec"
		return o
	}
	out := buf.String()
	o.Out = &out
	return o
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	fixtures := map[string]json.RawMessage{}
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<24), 1<<24)
	for scanner.Scan() {
		var in input
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			panic(err)
		}
		if in.Fixture != "" {
			fixtures[in.Fixture] = in.Value
			if err := enc.Encode(in); err != nil {
				panic(err)
			}
			continue
		}
		if err := enc.Encode(run(in, fixtures)); err != nil {
			panic(fmt.Sprintf("%s: %v", in.Name, err))
		}
	}
	if err := scanner.Err(); err != nil {
		panic(err)
	}
}
