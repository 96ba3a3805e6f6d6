module promoflow.dev/tests/vectors/dockerref

go 1.22

require github.com/distribution/reference v0.6.0

require github.com/opencontainers/go-digest v1.0.0 // indirect
