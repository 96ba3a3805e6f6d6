// Command goduration writes test vectors for orchestrator/durations.py from the real Go
// runtime: for each input line on stdin, what time.ParseDuration and Argo's
// ParseStringToDuration rule (strconv.Atoi first, then time.ParseDuration) return.
//
//	go run . < inputs.txt > vectors.jsonl (one JSON object per line)
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"
)

type vector struct {
	In       string  `json:"in"`
	GoNanos  *int64  `json:"go_ns"`
	GoError  string  `json:"go_error,omitempty"`
	ArgoSecs *string `json:"argo_seconds"`
	ArgoErr  string  `json:"argo_error,omitempty"`
}

// argoDuration is the rule of Argo's ParseStringToDuration: a bare integer is seconds.
func argoDuration(s string) (time.Duration, error) {
	if v, err := strconv.Atoi(s); err == nil {
		return time.Duration(v) * time.Second, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("unable to parse %s as a duration: %w", s, err)
	}
	return d, nil
}

func main() {
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	scanner := bufio.NewScanner(os.Stdin)
	for scanner.Scan() {
		var in string
		if err := json.Unmarshal(scanner.Bytes(), &in); err != nil {
			panic(err)
		}
		v := vector{In: in}
		if d, err := time.ParseDuration(in); err == nil {
			n := int64(d)
			v.GoNanos = &n
		} else {
			v.GoError = err.Error()
		}
		if d, err := argoDuration(in); err == nil {
			s := strconv.FormatFloat(d.Seconds(), 'g', -1, 64)
			v.ArgoSecs = &s
		} else {
			v.ArgoErr = err.Error()
		}
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
	}
}
