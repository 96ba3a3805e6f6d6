"""A local runner of Argo Workflows: Argo's semantics (DAG ``depends``, ``when``, retries,
deadlines, mutexes, suspend nodes) over Workflow dicts, knowing nothing of promoflow."""
