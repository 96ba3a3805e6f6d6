module promoflow.dev/tests/vectors/gotemplate

// The Go release and module versions Argo CD v3.2.12 builds with (its go.mod), so sprig and
// its helpers behave here as they do in argocd-notifications-controller.
go 1.25.5

require (
	github.com/Masterminds/sprig/v3 v3.3.0
	github.com/chainguard-dev/git-urls v1.0.2
)

require (
	dario.cat/mergo v1.0.2 // indirect
	github.com/Masterminds/goutils v1.1.1 // indirect
	github.com/Masterminds/semver/v3 v3.4.0 // indirect
	github.com/google/uuid v1.6.1-0.20241114170450-2d3c2a9cc518 // indirect
	github.com/huandu/xstrings v1.5.0 // indirect
	github.com/mitchellh/copystructure v1.2.0 // indirect
	github.com/mitchellh/reflectwalk v1.0.2 // indirect
	github.com/shopspring/decimal v1.4.0 // indirect
	github.com/spf13/cast v1.7.1 // indirect
	golang.org/x/crypto v0.46.0 // indirect
)
