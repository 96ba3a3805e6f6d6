"""Gate kinds: the settings of each kind are one module of this package.

A gate is written in a policy (or on a flow step) as a one-key mapping, ``{soak:
{duration: 30m}}``; the key is a kind, the value its settings. Every module here that
defines a :class:`GateSettings` subclass with a ``KIND`` adds that kind: the policy
model's ``gates`` entries, ``disableGates`` and the merge of policies learn it from
:func:`kinds`, and the DAG tasks the gate adds are the kind's module in
:mod:`orchestrator.compiler.tasks`. The two halves live in two layers because a
configuration is validated (``promoflow validate``, the webhook service) without the
compiler.

Adding a gate kind: a module here with its settings, a module in
``orchestrator/compiler/tasks`` that adds its tasks, and their tests.
"""

from __future__ import annotations

from functools import cache
from typing import ClassVar

from orchestrator import discovery
from orchestrator.model.base import Model

PACKAGE = "orchestrator.model.gates"


class GateSettings(Model):
    """The settings of one kind of gate."""

    KIND: ClassVar[str]
    """The key the gate is written under, and its unit in policy merging."""

    def unit(self) -> str:
        """What two policies must agree on: one gate of a kind per environment, unless
        the kind says otherwise (HTTP checks: one per URL)."""
        return self.KIND


@cache
def kinds() -> dict[str, type[GateSettings]]:
    """Every gate kind, by its key, in the order of their names."""
    found: dict[str, type[GateSettings]] = {}
    for module in discovery.modules(PACKAGE):
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, GateSettings)
                and "KIND" in vars(value)
                and value.__module__ == module.__name__
            ):
                if value.KIND in found:
                    raise RuntimeError(f"two gate kinds named {value.KIND!r}")
                found[value.KIND] = value
    return dict(sorted(found.items()))
