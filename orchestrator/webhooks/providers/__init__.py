"""One module per webhook sender; see :mod:`orchestrator.webhooks.registry`."""
