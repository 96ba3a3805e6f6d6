"""Executor plugin templates, run locally by a stand-in each plugin provides.

On a cluster, a template ``plugin: {<name>: {...}}`` is run by the Workflow's agent pod,
which calls the plugin's sidecar; no process of this machine is that sidecar. A plugin
that can run here says how, as the container template that does the same work
(:data:`LocalPlugin`): its object goes in, the template's ``container``, ``outputs`` (by
path) and ``activeDeadlineSeconds`` come out, and the node then runs as a container
node does here, with the template's own inputs, ``retryStrategy`` and
``synchronization``. A plugin with no stand-in is refused before the run, by name.

The engine knows no plugin itself: the caller passes the stand-ins it has.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from orchestrator.engine.errors import EngineError

LocalPlugin = Callable[[Mapping[str, Any], str], Mapping[str, Any]]
"""``(the plugin's object, where) -> the template keys that replace plugin and outputs``."""

REPLACED = ("plugin", "outputs")


def _plugin(body: Mapping[str, Any], where: str) -> tuple[str, Any]:
    plugin = body.get("plugin")
    if not isinstance(plugin, Mapping) or len(plugin) != 1:
        # upstream's Plugin.UnmarshalJSON: "expected exactly one key"
        count = len(plugin) if isinstance(plugin, Mapping) else 0
        raise EngineError(f"{where}: plugin: expected exactly one key, got {count}")
    ((name, value),) = plugin.items()
    return str(name), value


def expand(manifest: Mapping[str, Any], plugins: Mapping[str, LocalPlugin]) -> Mapping[str, Any]:
    """``manifest`` (a Workflow or WorkflowTemplate) with each plugin template replaced by
    its stand-in's container template; unchanged when it has none."""
    spec = manifest.get("spec") or {}
    templates = spec.get("templates") or []
    if not any(isinstance(t, Mapping) and "plugin" in t for t in templates):
        return manifest
    owner = (manifest.get("metadata") or {}).get("name", "")
    out = []
    for template in templates:
        if not isinstance(template, Mapping) or "plugin" not in template:
            out.append(template)
            continue
        where = f"template {owner}/{template.get('name', '')}"
        name, value = _plugin(template, where)
        stand_in = plugins.get(name)
        if stand_in is None:
            raise EngineError(
                f"unsupported Argo feature: executor plugin {name!r} in {where} "
                "(no local stand-in for it)"
            )
        body = {k: v for k, v in template.items() if k not in REPLACED}
        body.update(stand_in(value, where))
        out.append(body)
    return {**manifest, "spec": {**spec, "templates": out}}
