"""Policy merging: which settings apply to one product's promotion into one environment.

Every matching policy contributes; for each *unit* (``action``, ``preAction``, ``postAction``
and each gate, keyed by kind or, for HTTP checks, by URL) the highest-priority policy that
sets it wins, and a policy written on the flow step overrides them all. Two policies of equal
priority that set one unit differently are a conflict: promoflow refuses to guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

from orchestrator.model.environment import Environment
from orchestrator.model.gates import GateSettings
from orchestrator.model.gates.health import HealthGate
from orchestrator.model.gates.http import HttpGate
from orchestrator.model.gates.sync import SyncGate
from orchestrator.model.policy import (
    Action,
    Gate,
    PolicySpec,
    PromotionPolicy,
    VerifySpec,
    WorkflowRef,
)

G = TypeVar("G", bound=GateSettings)


@dataclass(frozen=True)
class Verification:
    """What a ``verify`` setting asks for, whichever way it is written (``true`` and
    ``{images: true}`` are the same setting, so two policies writing them agree)."""

    wait: bool = True
    images: bool = True

    @classmethod
    def of(cls, value: bool | VerifySpec) -> Verification:
        if isinstance(value, bool):
            return cls(value, value)
        return cls(True, value.images)


@dataclass(frozen=True)
class Conflict:
    """Two equally ranked policies disagree on ``unit`` for one environment."""

    unit: str
    environment: str
    first: PromotionPolicy
    second: PromotionPolicy


@dataclass
class EffectivePolicy:
    """The merged outcome for one (product, environment), ready for the compiler."""

    action: Action = "commit"
    pre_action: WorkflowRef | None = None
    post_action: WorkflowRef | None = None
    gates: dict[str, Gate] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    """unit -> name of the policy that decided it (``step`` for the flow step,
    ``(verification)`` for the sync and health gates added by default)."""
    verify_images: bool = True
    """After the wait, check that the app runs the promoted image (``verify: {images:
    false}`` or ``verify: false`` turn it off); only where the template names the image
    and Argo CD is waited for."""

    @property
    def verifies(self) -> bool:
        """Waits for Argo CD to run the promoted commit (sync) and report Healthy."""
        return self.action != "none" and "sync" in self.gates and "health" in self.gates

    def gate(self, kind: type[G]) -> G | None:
        """The settings of the gate of ``kind`` (one per environment), if it applies."""
        found = self.gates.get(kind.KIND)
        return found.body if found is not None and isinstance(found.body, kind) else None

    @property
    def http_gates(self) -> list[HttpGate]:
        """The HTTP checks (one per URL), in the order they were merged."""
        return [g.body for g in self.gates.values() if isinstance(g.body, HttpGate)]


def matches(policy: PromotionPolicy, product: str, environment: Environment) -> bool:
    """True when ``policy``'s selector selects this product and environment."""
    return policy.spec.selector.selects(product, environment)


VERIFICATION = "(verification)"
"""Source of a sync/health gate no policy wrote: not a resource name (names have no
parentheses), so it never reads as a policy called that."""

DISABLED = "disabled"
"""Value of a gate unit switched off with ``disableGates`` (by a policy or a flow step)."""


def units(spec: PolicySpec) -> dict[str, Any]:
    """The units a spec sets, with comparable values; ``disableGates`` sets ``DISABLED``."""
    out: dict[str, Any] = {f"gates.{kind}": DISABLED for kind in spec.disable_gates}
    if spec.action is not None:
        out["action"] = spec.action
    if spec.pre_action is not None:
        out["preAction"] = spec.pre_action
    if spec.post_action is not None:
        out["postAction"] = spec.post_action
    if spec.verify is not None:
        out["verify"] = Verification.of(spec.verify)
    for gate in spec.gates or []:
        out[f"gates.{gate.key}"] = gate
    return out


def _same(a: Any, b: Any) -> bool:
    """Equal settings; a gate and ``DISABLED`` (or any two types) are never the same."""
    if type(a) is not type(b):
        return False
    dump = getattr(a, "model_dump", None)
    return bool(dump() == b.model_dump()) if dump else bool(a == b)


def merge(
    policies: list[PromotionPolicy],
    product: str,
    environment: Environment,
    step: PolicySpec | None = None,
) -> tuple[EffectivePolicy, list[Conflict]]:
    """Merge the policies that match; return the outcome and any equal-priority conflicts."""
    matching = [p for p in policies if matches(p, product, environment)]
    # Highest priority first; declaration order breaks ties only among agreeing policies.
    matching.sort(key=lambda p: -p.spec.priority)
    chosen: dict[str, tuple[Any, PromotionPolicy | None]] = {}
    conflicts: list[Conflict] = []
    for policy in matching:
        for unit, value in units(policy.spec.policy).items():
            held = chosen.get(unit)
            if held is None:
                chosen[unit] = (value, policy)
                continue
            holder = held[1]
            same_rank = holder is not None and holder.spec.priority == policy.spec.priority
            if same_rank and holder is not None and not _same(held[0], value):
                conflicts.append(Conflict(unit, environment.name, holder, policy))
    if step is not None:
        for unit, value in units(step).items():
            chosen[unit] = (value, None)
    return _effective(chosen), conflicts


def _rank(policy: PromotionPolicy | None) -> float:
    """How strongly a setting holds: the flow step (``None``) outranks every policy."""
    return float("inf") if policy is None else policy.spec.priority


def _effective(chosen: dict[str, tuple[Any, PromotionPolicy | None]]) -> EffectivePolicy:
    result = EffectivePolicy()
    http_value, http_source = chosen.get("gates.http", (None, None))
    http_off = http_value == DISABLED
    for unit, (value, policy) in chosen.items():
        result.sources[unit] = policy.name if policy is not None else "step"
        if value == DISABLED:
            continue
        # ``disableGates: [http]`` drops the HTTP checks of equal or lower rank only: a check
        # set by a higher-priority policy or by the flow step still applies.
        if http_off and unit.startswith("gates.http:") and _rank(policy) <= _rank(http_source):
            continue
        if unit == "action":
            result.action = value
        elif unit == "preAction":
            result.pre_action = value
        elif unit == "postAction":
            result.post_action = value
        elif unit == "verify":
            continue
        else:
            result.gates[unit.removeprefix("gates.")] = value
    verify, verify_source = chosen.get("verify", (Verification(), None))
    result.verify_images = verify.images
    if not verify.wait:
        # ``verify: false`` drops the waits of equal or lower rank, as disableGates does:
        # a sync gate a higher-priority policy (or the flow step) writes still applies
        for kind in ("sync", "health"):
            value, policy = chosen.get(f"gates.{kind}", (None, None))
            if value is not None and _rank(policy) <= _rank(verify_source):
                result.gates.pop(kind, None)
    elif result.action != "none":
        for kind, default in (
            ("sync", Gate.of(SyncGate())),
            ("health", Gate.of(HealthGate())),
        ):
            if f"gates.{kind}" not in chosen:  # written, or disabled: as written
                result.gates[kind] = default
                result.sources[f"gates.{kind}"] = VERIFICATION
    return result
