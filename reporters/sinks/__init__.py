"""Where events go: one module per sink, each delivered from the store's outbox by its own
worker, with retries, a rate limit and dead letters (:mod:`reporters.sinks.delivery`)."""
