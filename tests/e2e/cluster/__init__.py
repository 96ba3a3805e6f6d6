"""A real, local control plane for the e2e suite: Kubernetes + kwok + Argo CD + Argo Workflows.

Everything is built from the Go module proxy (and Debian for redis) into a cache directory
outside the checkout and run as plain processes on 127.0.0.1, so the e2e tests can run on a
machine with no container runtime and no network but the package registries.
``python -m tests.e2e.cluster --help`` lists the commands; README.md in this directory says
what gets built and how long it takes.
"""
