module promoflow.dev/tests/vectors/repofns

// The Go release and expr version Argo CD v3.2.12 builds with (its go.mod).
go 1.25.5

require github.com/expr-lang/expr v1.17.7
