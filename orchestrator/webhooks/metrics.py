"""What ``GET /metrics`` shows: deliveries by provider and outcome, runs submitted and
duplicates dropped by product, how long deliveries took, and how long the checks against
the Git server's branch tip took (the replay protection's cost, and a slow Git host's),
and, when the configuration is followed in Git, which revision serves, when it was loaded
and how many errors the last refused one had (:mod:`orchestrator.webhooks.configfollow`).

Each app has a registry of its own (not the process-wide default), so several apps in one
process (tests, ``demo --webhook``) count separately. Label values come only from the
provider registry and the configuration, never from a request, so no sender can grow the
series without bound.
"""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

OUTCOMES = (
    "submitted",
    "duplicate",
    "no_promotion",
    "ping",
    "ignored",
    "refused",
    "unavailable",
    "failed",
    "gone",
)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "promoflow_webhook_requests",
            "Webhook deliveries by provider and outcome.",
            ["provider", "outcome"],
            registry=self.registry,
        )
        self.submissions = Counter(
            "promoflow_webhook_submissions",
            "Promotion runs created, by product.",
            ["product"],
            registry=self.registry,
        )
        self.duplicates = Counter(
            "promoflow_webhook_duplicates",
            "Deliveries whose run existed already (redeliveries, retries), by product.",
            ["product"],
            registry=self.registry,
        )
        self.latency = Histogram(
            "promoflow_webhook_request_duration_seconds",
            "Time from a delivery's arrival to the reply, by provider.",
            ["provider"],
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10),
            registry=self.registry,
        )
        self.branch_checks = Histogram(
            "promoflow_webhook_branch_check_duration_seconds",
            "Time to check a push or registry event against the trigger branch's tip (one "
            "request to the Git server; deliveries that arrive meanwhile share it).",
            buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
            registry=self.registry,
        )
        self.config_problems = Gauge(
            "promoflow_config_problems",
            "Errors of the last configuration refused; 0 once a configuration serves.",
            registry=self.registry,
        )
        self.config_revision = Gauge(
            "promoflow_config_revision_info",
            "The commit of the configuration that serves (one series, value 1).",
            ["revision"],
            registry=self.registry,
        )
        self.config_loaded = Gauge(
            "promoflow_config_last_load_timestamp_seconds",
            "When the configuration that serves began to serve.",
            registry=self.registry,
        )
        self.config_refused = Gauge(
            "promoflow_config_last_refusal_timestamp_seconds",
            "When a configuration was last refused (0: never).",
            registry=self.registry,
        )
        self.config_loads = Counter(
            "promoflow_config_loads",
            "Configuration refreshes that changed something: served, refused, or failed "
            "(Git or the Argo Server unreachable, retried).",
            ["result"],
            registry=self.registry,
        )
        self._children: dict[tuple[str, ...], Any] = {}

    def count(self, provider: str, outcome: str, seconds: float) -> None:
        """One delivery; the labelled series are looked up once each, not per delivery."""
        key = (provider, outcome)
        found = self._children.get(key)
        if found is None:
            found = self._children[key] = (
                self.requests.labels(provider, outcome),
                self.latency.labels(provider),
            )
        found[0].inc()
        found[1].observe(seconds)
