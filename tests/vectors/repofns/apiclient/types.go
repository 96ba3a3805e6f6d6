// Package apiclient has the repo server's app detail types, named and shaped as in
// argo-cd's reposerver/apiclient (the protobuf-generated XXX_ fields left out: no
// template reads them).
package apiclient

import "promoflow.dev/tests/vectors/repofns/v1alpha1"

// HelmAppSpec is the repo server's reading of a Helm source.
type HelmAppSpec struct {
	Name           string
	ValueFiles     []string
	Parameters     []*v1alpha1.HelmParameter
	Values         string
	FileParameters []*v1alpha1.HelmFileParameter
}

// KustomizeAppSpec is the repo server's reading of a Kustomize source.
type KustomizeAppSpec struct {
	Images []string
}

// DirectoryAppSpec is the repo server's reading of a plain directory.
type DirectoryAppSpec struct{}
