// Package shared has what Argo CD v3.2's repo.GetCommitMetadata and repo.GetAppDetails
// return (util/notification/expression/shared): the same package name, type names,
// fields and value-receiver methods, so Go's text/template and expr treat them as they
// treat Argo CD's.
package shared

import (
	"time"

	"promoflow.dev/tests/vectors/repofns/apiclient"
	"promoflow.dev/tests/vectors/repofns/v1alpha1"
)

// CommitMetadata is what GetCommitMetadata returns.
type CommitMetadata struct {
	Message string
	Author  string
	Date    time.Time
	Tags    []string
}

// AppDetail is what GetAppDetails returns.
type AppDetail struct {
	Type      string
	Helm      *CustomHelmAppSpec
	Kustomize *apiclient.KustomizeAppSpec
	Directory *apiclient.DirectoryAppSpec
}

// CustomHelmAppSpec is the repo server's Helm reading and the app's own parameters.
type CustomHelmAppSpec struct {
	HelmAppSpec            apiclient.HelmAppSpec
	HelmParameterOverrides []v1alpha1.HelmParameter
}

// GetParameterValueByName gives the app's own value of a parameter, else the chart's,
// else "".
func (h CustomHelmAppSpec) GetParameterValueByName(name string) string {
	for _, p := range h.HelmParameterOverrides {
		if p.Name == name {
			return p.Value
		}
	}
	for _, p := range h.HelmAppSpec.Parameters {
		if p.Name == name {
			return p.Value
		}
	}
	return ""
}

// GetFileParameterPathByName gives the path of a file parameter, else "".
func (h CustomHelmAppSpec) GetFileParameterPathByName(name string) string {
	for _, p := range h.HelmAppSpec.FileParameters {
		if p.Name == name {
			return p.Path
		}
	}
	return ""
}
