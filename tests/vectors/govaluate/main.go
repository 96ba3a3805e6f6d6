// Command govaluate writes test vectors for orchestrator/engine/when.py from the real
// library: for each input line (one JSON string), what a `when` condition gives in the Argo
// controller, evaluated the way steps.go shouldExecute (argo-workflows v4.0.5) does it with
// the govaluate version that release pins: parse, turn every VARIABLE token into a STRING
// token, parse those tokens again, evaluate without parameters, expect a bool.
//
//	python inputs.py | TZ=UTC go run . > vectors.jsonl   (one JSON object per line)
//
// Each line has "in" and one of: "result" (true or false), "error" (the message Argo puts on
// the node it marks Error) or "panic" (the library panicked on that text).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/Knetic/govaluate"
)

type vector struct {
	In     string `json:"in"`
	Result *bool  `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	Panic  string `json:"panic,omitempty"`
}

// decide mirrors shouldExecute, including the wording of each error it returns.
func decide(when string) (bool, error) {
	if when == "" {
		return true, nil
	}
	parsed, err := govaluate.NewEvaluableExpression(when)
	if err != nil {
		hint := ""
		if strings.Contains(err.Error(), "Invalid token") {
			hint = ` (hint: try wrapping the affected expression in quotes ("))`
		}
		return false, fmt.Errorf("Invalid 'when' expression '%s': %v%s", when, err, hint)
	}
	tokens := parsed.Tokens()
	for i := range tokens {
		if tokens[i].Kind == govaluate.VARIABLE {
			tokens[i].Kind = govaluate.STRING
		}
	}
	strict, err := govaluate.NewEvaluableExpressionFromTokens(tokens)
	if err != nil {
		return false, fmt.Errorf("Failed to parse 'when' expression '%s': %v", when, err)
	}
	value, err := strict.Evaluate(nil)
	if err != nil {
		return false, fmt.Errorf("Failed to evaluate 'when' expresion '%s': %v", when, err)
	}
	result, ok := value.(bool)
	if !ok {
		return false, fmt.Errorf("Expected boolean evaluation for '%s'. Got %v", when, value)
	}
	return result, nil
}

func run(in string) (v vector) {
	v.In = in
	defer func() {
		if r := recover(); r != nil {
			v.Result, v.Error, v.Panic = nil, "", fmt.Sprint(r)
		}
	}()
	result, err := decide(in)
	if err != nil {
		v.Error = err.Error()
	} else {
		v.Result = &result
	}
	return v
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	scanner := bufio.NewScanner(os.Stdin)
	scanner.Buffer(make([]byte, 1<<20), 1<<20)
	for scanner.Scan() {
		var in string
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			panic(err)
		}
		if err := enc.Encode(run(in)); err != nil {
			panic(err)
		}
	}
	if err := scanner.Err(); err != nil {
		panic(err)
	}
}
