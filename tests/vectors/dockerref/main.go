// Command dockerref writes test vectors for orchestrator/imageref.py from the real library
// that Kubernetes (v1.34) and containerd use to read image references,
// github.com/distribution/reference: for each input line (one JSON string), what
// ParseNormalizedNamed makes of it (the name, tag and digest, the familiar and the full
// forms) or its error, and what ParseDockerRef gives (the form the kubelet compares).
//
//	python inputs.py | go run . > vectors.jsonl   (one JSON object per line)
//
// sha256 and sha512 are linked in, as they are in the kubelet and containerd: go-digest
// knows an algorithm only when its hash is (without them every digest is "unsupported").
package main

import (
	"bufio"
	_ "crypto/sha256"
	_ "crypto/sha512"
	"encoding/json"
	"os"

	"github.com/distribution/reference"
)

type vector struct {
	In             string `json:"in"`
	Error          string `json:"error,omitempty"`
	Name           string `json:"name,omitempty"`
	Tag            string `json:"tag,omitempty"`
	Digest         string `json:"digest,omitempty"`
	String         string `json:"string,omitempty"`
	FamiliarName   string `json:"familiar_name,omitempty"`
	FamiliarString string `json:"familiar_string,omitempty"`
	DockerRef      string `json:"docker_ref,omitempty"`
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
		v := vector{In: in}
		named, err := reference.ParseNormalizedNamed(in)
		if err != nil {
			v.Error = err.Error()
		} else {
			v.Name = named.Name()
			if tagged, ok := named.(reference.Tagged); ok {
				v.Tag = tagged.Tag()
			}
			if digested, ok := named.(reference.Digested); ok {
				v.Digest = digested.Digest().String()
			}
			v.String = named.String()
			v.FamiliarName = reference.FamiliarName(named)
			v.FamiliarString = reference.FamiliarString(named)
			docker, err := reference.ParseDockerRef(in)
			if err != nil {
				panic(err)
			}
			v.DockerRef = docker.String()
		}
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
	}
	if err := scanner.Err(); err != nil {
		panic(err)
	}
}
