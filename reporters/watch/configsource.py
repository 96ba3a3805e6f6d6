"""Argo CD's own ``argocd-notifications-cm`` and ``argocd-notifications-secret``, read
through the Kubernetes API and followed, as Argo CD's notifications controller does.

A pod cannot mount another namespace's ConfigMap, so a team that runs Argo CD
notifications points the reporter at the objects themselves (``--notifications-from
argocd/argocd-notifications-cm``) and changes nothing. Each is listed, then watched
(:class:`orchestrator.adapters.kubenamed.NamedInformer`: resumed from its
resourceVersion, listed again after ``410 Gone``; failures back off and retry, as every
watch of the reporter, :class:`reporters.watch.watcher.Watcher`).

A change is read as the file forms are (:func:`reporters.notifications.config.load_data`,
problems at ``argocd/argocd-notifications-cm/KEY:LINE:COL``): a configuration that loads
is handed on to replace the one serving; one that does not is refused, its problems
told, and the last good one keeps serving, as Argo CD keeps its last parsed
configuration. A missing ConfigMap at start is an error; a missing Secret is an empty
one, as Argo CD takes it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator.adapters.kubenamed import NamedInformer
from orchestrator.model.base import SourceMap
from orchestrator.problems import Position, Problem
from reporters.notifications.config import Notifications, load_data
from reporters.notifications.errors import ConfigError
from reporters.notifications.secretfiles import secret_values
from reporters.watch.watcher import Watcher

Obj = dict[str, Any]
CONFIGMAPS = ("", "v1", "configmaps")
SECRETS = ("", "v1", "secrets")


@dataclass(frozen=True)
class Loaded:
    """A configuration that loaded, and the Secret's values it was resolved with (to be
    masked wherever they might appear)."""

    config: Notifications
    secrets: Mapping[str, str]


def parse_ref(text: str) -> tuple[str, str]:
    """``NAMESPACE/NAME`` as (namespace, name); ``ValueError`` saying what to write."""
    namespace, slash, name = text.partition("/")
    if not slash or not namespace or not name or "/" in name:
        raise ValueError(
            f"{text!r}: expected NAMESPACE/NAME, such as argocd/argocd-notifications-cm"
        )
    return namespace, name


def build(
    configmap: Obj | None, secret: Obj | None, names: tuple[str, str], argocd: bool = True
) -> Loaded:
    """The configuration the objects hold (``None``: absent); :class:`ConfigError` with
    every problem, positioned in ``names[0]`` (the ConfigMap) and ``names[1]`` (the
    Secret), never quoting a secret's value. ``argocd``: whether an Argo CD API answers
    the ``repo`` functions that ask it."""
    cm_name, secret_name = names
    if configmap is None:
        hint = "create it, or point --notifications-from at the one Argo CD reads"
        raise ConfigError([Problem(Position(cm_name), f"ConfigMap not found: {hint}")])
    data = configmap.get("data") or {}
    found = secret_values(secret, SourceMap(Position(secret_name))) if secret else {}
    texts = {str(k): str(v) for k, v in data.items()}
    config = load_data(texts, cm_name, found, secrets_from=secret_name, argocd=argocd)
    return Loaded(config, found)


@dataclass
class NotificationsSource:
    """The ConfigMap (and Secret, when named) at ``configmap`` and ``secret``
    (``(namespace, name)``), through ``api``, a ``kubernetes.client.CoreV1Api``."""

    api: Any
    configmap: tuple[str, str]
    secret: tuple[str, str] | None = None
    log: Callable[[str], None] = print
    argocd: bool = True
    """Whether an Argo CD API answers the ``repo`` functions (a template calling them is
    refused without one)."""
    watch_seconds: int = 300
    sleep: Callable[[float], None] = time.sleep
    latest: dict[str, Obj | None] = field(default_factory=dict)
    _tried: Any = None
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _made: dict[str, NamedInformer] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, str]:
        secret = "/".join(self.secret) if self.secret else "no Secret (--secrets-from)"
        return "/".join(self.configmap), secret

    def _informers(self) -> dict[str, NamedInformer]:
        if not self._made:
            self._made["configmap"] = self._informer(CONFIGMAPS, self.configmap)
            if self.secret is not None:
                self._made["secret"] = self._informer(SECRETS, self.secret)
        return self._made

    def _informer(self, resource: tuple[str, str, str], ref: tuple[str, str]) -> NamedInformer:
        return NamedInformer(self.api, resource, ref[0], name=ref[1])

    def load(self) -> Loaded:
        """The configuration now: the objects are listed (where their watches will start
        from); :class:`ConfigError` when it cannot be used. The Kubernetes API's refusals
        and the network's errors are the caller's to tell."""
        for role, informer in self._informers().items():
            self.latest[role] = informer.current()
        self._tried = self._key()
        return build(
            self.latest.get("configmap"), self.latest.get("secret"), self.names, self.argocd
        )

    def _key(self) -> Any:
        """What a configuration is built from: a change elsewhere (a label, an annotation,
        the resourceVersion alone) rebuilds nothing."""
        return tuple(
            (role, None if obj is None else (obj.get("data"), obj.get("stringData")))
            for role, obj in sorted(self.latest.items())
        )

    def follow(
        self,
        on_loaded: Callable[[Loaded], None],
        on_refused: Callable[[list[str]], None],
        stop: Callable[[], bool],
    ) -> list[threading.Thread]:
        """Watch both objects, each in a thread of its own, from where :meth:`load` read
        them, until ``stop()``: each new configuration to ``on_loaded``, the problems of
        each broken one (``NAME/KEY:LINE:COL: error: ...`` lines) to ``on_refused``."""
        threads = []
        for role, informer in self._informers().items():
            watcher = Watcher(
                self.api,
                informer.namespace,
                informer.resource,
                log=self.log,
                watch_seconds=self.watch_seconds,
                sleep=self.sleep,
                _informer=informer,
            )

            def read(role: str = role, watcher: Watcher = watcher) -> None:
                for _, obj in watcher.changes(stop=stop):
                    self._changed(role, obj, on_loaded, on_refused)

            thread = threading.Thread(target=read, name=f"watch {role}", daemon=True)
            thread.start()
            threads.append(thread)
        return threads

    def _changed(
        self,
        role: str,
        obj: Obj | None,
        on_loaded: Callable[[Loaded], None],
        on_refused: Callable[[list[str]], None],
    ) -> None:
        with self._lock:  # the two watches' changes, one at a time
            self.latest[role] = obj
            key = self._key()
            if key == self._tried:
                return
            self._tried = key
            try:
                loaded = build(
                    self.latest.get("configmap"), self.latest.get("secret"), self.names, self.argocd
                )
            except ConfigError as exc:
                lines = str(exc).splitlines()
                if self.latest.get("configmap") is None:
                    gone = "ConfigMap deleted: the last configuration read keeps serving"
                    lines = [str(Problem(Position(self.names[0]), gone))]
                for line in lines:
                    self.log(f"notifications: refused: {line}")
                on_refused(lines)
                return
            on_loaded(loaded)
