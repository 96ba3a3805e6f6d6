"""Argo CD's AppProjects, followed for their subscription annotations
(:mod:`reporters.notifications.projects`), where the reporter follows Applications.

Argo CD's notifications controller lists its namespace's AppProjects before it processes
any app (it waits for every informer to sync): so the reporter lists them before it
starts, and an app's first event already reaches those subscribed on its project. Then
each namespace is watched in a thread of its own, as every watch of the reporter
(:class:`reporters.watch.watcher.Watcher`: resumed, listed again after ``410 Gone``,
failures backed off and retried). Every replica follows every project: an app of any
shard may name any of them.

A first list the API server refuses (the reporter may not read AppProjects: a Role
without them) is said, with what to grant, and the watch keeps trying in the background:
the apps' own subscriptions and the configuration's are served meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from orchestrator.adapters.informer import Informer, Refused
from reporters.notifications.projects import Projects
from reporters.watch.watcher import Watcher, reason_of

APPPROJECTS = ("argoproj.io", "v1alpha1", "appprojects")
HINT = "the reporter needs get, list and watch on appprojects.argoproj.io where it reads apps"


def follow_projects(
    api: Any,
    namespaces: Sequence[str],
    projects: Projects,
    stop: Callable[[], bool],
    log: Callable[[str], None],
    *,
    watch_seconds: int = 300,
    sleep: Callable[[float], None] = time.sleep,
) -> list[threading.Thread]:
    """List the AppProjects of ``namespaces`` (``""``: every namespace) into ``projects``,
    then follow each namespace's changes in a thread until ``stop()``; the threads."""
    threads = []
    for namespace in namespaces:
        informer = Informer(api, APPPROJECTS, namespace)
        where = f" in {namespace}" if namespace else ""
        try:
            for key, obj in informer.first():
                projects.update(key, obj)
        except Refused as exc:
            hint = f" ({HINT})" if exc.status in (401, 403) else ""
            log(f"cannot list appprojects.argoproj.io{where}: {exc}{hint}; retrying")
        except Exception as exc:  # the API unreachable: the watch retries
            log(f"cannot list appprojects.argoproj.io{where}: {reason_of(exc)}; retrying")
        watcher = Watcher(
            api,
            namespace,
            APPPROJECTS,
            log=log,
            watch_seconds=watch_seconds,
            sleep=sleep,
            _informer=informer,
        )

        def read(watcher: Watcher = watcher) -> None:
            for key, obj in watcher.changes(stop=stop):
                projects.update(key, obj)

        name = f"watch appprojects{where}"
        thread = threading.Thread(target=read, name=name, daemon=True)
        thread.start()
        threads.append(thread)
    return threads
