// Package v1alpha1 has the Helm parameter types Argo CD's app details carry, with the
// package name and exported fields of argo-cd's pkg/apis/application/v1alpha1, so that
// templates and expr see the same type names and fields (errors quote them).
package v1alpha1

// HelmParameter is one Helm parameter (name=value).
type HelmParameter struct {
	Name        string
	Value       string
	ForceString bool
}

// HelmFileParameter is a Helm parameter read from a file.
type HelmFileParameter struct {
	Name string
	Path string
}
