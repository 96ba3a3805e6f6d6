// Command repofns writes test vectors for the values Argo CD's repo.GetCommitMetadata and
// repo.GetAppDetails give templates and conditions: Go's text/template and expr v1.17.7
// reading the structs of package shared (named and shaped as Argo CD v3.2's), built from
// the Argo CD API's JSON answers as Argo CD builds them from the repo server's.
//
//	python inputs.py | GOTOOLCHAIN=go1.25.5 TZ=UTC go run . > vectors.jsonl
//
// An input line is {"name", "lang": "template" or "expr", "text", "commit": the
// RevisionMetadata answer, "details": the RepoAppDetailsResponse answer, "source": the
// app's source, "fail": a reason both functions panic with}. The output echoes it with
// "out" (a template's output, or %v of a condition's value) and "type" (%T), or "error".
// The functions are in the data as Argo CD puts them (templates call them with "call").
// A pointer printed inside a struct is written 0xADDRESS.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"text/template"
	"time"

	"github.com/expr-lang/expr"

	"promoflow.dev/tests/vectors/repofns/apiclient"
	"promoflow.dev/tests/vectors/repofns/shared"
	"promoflow.dev/tests/vectors/repofns/v1alpha1"
)

// address is a pointer as fmt prints it inside a struct: it differs from run to run, so
// the vectors say where one was printed, not which.
var address = regexp.MustCompile(`0xc[0-9a-f]{9}`)

type input struct {
	Name    string          `json:"name"`
	Lang    string          `json:"lang"`
	Text    string          `json:"text"`
	Commit  json.RawMessage `json:"commit,omitempty"`
	Details json.RawMessage `json:"details,omitempty"`
	Source  json.RawMessage `json:"source,omitempty"`
	Fail    string          `json:"fail,omitempty"`
}

type output struct {
	input
	Out   *string `json:"out,omitempty"`
	Type  string  `json:"type,omitempty"`
	Error string  `json:"error,omitempty"`
}

// revisionMetadata is the API's answer; Date is a pointer as in v1alpha1.RevisionMetadata.
type revisionMetadata struct {
	Author  string
	Date    *time.Time
	Message string
	Tags    []string
}

type appDetails struct {
	Type      string
	Helm      *apiclient.HelmAppSpec
	Kustomize *apiclient.KustomizeAppSpec
	Directory *apiclient.DirectoryAppSpec
}

type source struct {
	RepoURL string
	Helm    *struct{ Parameters []v1alpha1.HelmParameter }
}

func functions(in input) map[string]any {
	return map[string]any{
		"GetCommitMetadata": func(sha string) any {
			if in.Fail != "" {
				panic(errors.New(in.Fail))
			}
			var m revisionMetadata
			if err := json.Unmarshal(in.Commit, &m); err != nil {
				panic(err)
			}
			return shared.CommitMetadata{Message: m.Message, Author: m.Author, Date: m.Date.Local(), Tags: m.Tags}
		},
		"GetAppDetails": func() any {
			if in.Fail != "" {
				panic(errors.New(in.Fail))
			}
			var src *source
			var d appDetails
			if err := json.Unmarshal(in.Source, &src); err != nil {
				panic(err)
			}
			if err := json.Unmarshal(in.Details, &d); err != nil {
				panic(err)
			}
			_ = src.RepoURL // the repository is looked up first
			var helm *shared.CustomHelmAppSpec
			if d.Helm != nil {
				helm = &shared.CustomHelmAppSpec{HelmAppSpec: *d.Helm, HelmParameterOverrides: src.Helm.Parameters}
			}
			return shared.AppDetail{Type: d.Type, Helm: helm, Kustomize: d.Kustomize, Directory: d.Directory}
		},
	}
}

func run(in input) (out output) {
	out.input = in
	app := map[string]any{"status": map[string]any{"sync": map[string]any{"revision": "abc"}}}
	data := map[string]any{"app": app, "repo": functions(in)}
	if in.Lang == "expr" {
		program, err := expr.Compile(in.Text)
		if err == nil {
			var value any
			if value, err = expr.Run(program, data); err == nil {
				text := fmt.Sprintf("%v", value)
				out.Out, out.Type = &text, fmt.Sprintf("%T", value)
				return out
			}
		}
		out.Error = err.Error()
		return out
	}
	tmpl, err := template.New("").Parse(in.Text)
	if err == nil {
		var buf bytes.Buffer
		if err = tmpl.Execute(&buf, data); err == nil {
			text := address.ReplaceAllString(buf.String(), "0xADDRESS")
			out.Out = &text
			return out
		}
	}
	out.Error = err.Error()
	return out
}

func main() {
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<24)
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	for scanner.Scan() {
		var in input
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := enc.Encode(run(in)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}
