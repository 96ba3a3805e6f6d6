"""A sink for each configured service, named as subscriptions name it.

Each service gets its own delivery worker (its own retries, rate and dead letters), like
every ``--sink``: a slow Jira never delays Slack. The sinks are built by the service's
kind (:mod:`reporters.services`), from the options the configuration checked. When a
configuration is replaced, only the services it changed get new sinks.
"""

from __future__ import annotations

from reporters import services
from reporters.notifications.config import Notifications, Service
from reporters.sinks.delivery import Sink


def sink_for(service: Service) -> Sink:
    return services.kinds()[service.type].build(service.name, service.options)


def sinks_for(config: Notifications) -> list[Sink]:
    return [sink_for(s) for s in config.services.values()]


def changed(old: Notifications, new: Notifications) -> tuple[list[Service], list[str]]:
    """The services of ``new`` that ``old`` lacks or had otherwise (their type, their
    options, a secret they resolved), and the names of those ``new`` lacks."""
    differ = [s for name, s in new.services.items() if old.services.get(name) != s]
    return differ, [name for name in old.services if name not in new.services]
