// Command goyaml writes test vectors for orchestrator/yamlscalars.py and the resolver it
// mirrors in orchestrator/goscalars.py from the real Go YAML libraries: for each input line (one JSON string, a scalar token as a file spells it),
// what the document "k: TOKEN" holds for the readers of Helm, Argo CD and kustomize.
//
//	python inputs.py | TZ=UTC go run . > vectors.jsonl   (one JSON object per line)
//
// Each line has "in" and:
//
//   - "v2": the value yaml.v2 decodes into interface{} (what sigs.k8s.io/yaml converts to
//     JSON: Helm's values, Argo CD, kustomize's kustomization.yaml), as {"type", "value"}
//     or {"error"};
//   - "json": what sigs.k8s.io/yaml.YAMLToJSON makes of the document, or "json_error";
//   - "v3": the value yaml.v3 decodes into interface{} and the tag it resolves on the node
//     (kustomize's kyaml), as {"tag", "type", "value"} or {"error"}.
//
// "value" is the Go value in text: strconv for numbers ('g', -1 for floats), RFC 3339 for
// times, null for nil.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	yamlv2 "go.yaml.in/yaml/v2"
	yamlv3 "gopkg.in/yaml.v3"
	"sigs.k8s.io/yaml"
)

type value struct {
	Tag   string  `json:"tag,omitempty"`
	Type  string  `json:"type,omitempty"`
	Value *string `json:"value,omitempty"`
	Error string  `json:"error,omitempty"`
}

type vector struct {
	In        string  `json:"in"`
	V2        value   `json:"v2"`
	JSON      *string `json:"json"`
	JSONError string  `json:"json_error,omitempty"`
	V3        value   `json:"v3"`
}

func describe(v interface{}) value {
	var text string
	switch t := v.(type) {
	case nil:
		return value{Type: "<nil>"}
	case string:
		text = t
	case int:
		text = strconv.FormatInt(int64(t), 10)
	case int64:
		text = strconv.FormatInt(t, 10)
	case uint64:
		text = strconv.FormatUint(t, 10)
	case float64:
		text = strconv.FormatFloat(t, 'g', -1, 64)
	case bool:
		text = strconv.FormatBool(t)
	case time.Time:
		text = t.Format(time.RFC3339Nano)
	default:
		text = fmt.Sprintf("%v", t)
	}
	return value{Type: fmt.Sprintf("%T", v), Value: &text}
}

func readV2(doc []byte) value {
	var out map[string]interface{}
	if err := yamlv2.Unmarshal(doc, &out); err != nil {
		return value{Error: err.Error()}
	}
	return describe(out["k"])
}

func readV3(doc []byte) value {
	var out map[string]interface{}
	if err := yamlv3.Unmarshal(doc, &out); err != nil {
		return value{Error: err.Error()}
	}
	v := describe(out["k"])
	var node yamlv3.Node
	if err := yamlv3.Unmarshal(doc, &node); err != nil {
		return value{Error: err.Error()}
	}
	mapping := node.Content[0]
	for i := 0; i+1 < len(mapping.Content); i += 2 {
		if mapping.Content[i].Value == "k" {
			v.Tag = mapping.Content[i+1].ShortTag()
		}
	}
	return v
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
		doc := []byte("k: " + in + "\n")
		v := vector{In: in, V2: readV2(doc), V3: readV3(doc)}
		if j, err := yaml.YAMLToJSON(doc); err == nil {
			s := string(j)
			v.JSON = &s
		} else {
			v.JSONError = err.Error()
		}
		if err := enc.Encode(v); err != nil {
			panic(err)
		}
	}
}
