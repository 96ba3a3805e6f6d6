"""In-cluster reporters: stream Argo CD application changes to sinks."""
