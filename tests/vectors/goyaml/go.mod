module promoflow.dev/tests/vectors/goyaml

go 1.22

// sigs.k8s.io/yaml v1.6.0 over go.yaml.in/yaml/v2 is what Helm 4.1.4 and Argo CD 3.2 build
// with; gopkg.in/yaml.v3 v3.0.1 is the code kustomize 5.6.0 (kubectl 1.33) carries as
// sigs.k8s.io/yaml/goyaml.v3 (its goyaml.v2 matches go.yaml.in/yaml/v2 v2.4.3 as well).
require (
	go.yaml.in/yaml/v2 v2.4.3
	gopkg.in/yaml.v3 v3.0.1
	sigs.k8s.io/yaml v1.6.0
)
