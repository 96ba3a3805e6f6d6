"""A sink for each configured service, named as subscriptions name it.

Each service gets its own delivery worker (its own retries, rate and dead letters), like
every ``--sink``: a slow Jira never delays Slack. The sinks are built by the service's
kind (:mod:`reporters.services`), from the options the configuration checked.
"""

from __future__ import annotations

from reporters import services
from reporters.notifications.config import Notifications
from reporters.sinks.delivery import Sink


def sinks_for(config: Notifications) -> list[Sink]:
    kinds = services.kinds()
    return [kinds[s.type].build(s.name, s.options) for s in config.services.values()]
