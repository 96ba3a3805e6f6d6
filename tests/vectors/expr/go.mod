module promoflow.dev/tests/vectors/expr

go 1.22

require (
	github.com/chainguard-dev/git-urls v1.0.2
	github.com/expr-lang/expr v1.17.7
)
