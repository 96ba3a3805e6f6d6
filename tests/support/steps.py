"""Steps a test declares for itself, registered for the test only: the registry has no
way to forget a step (a product never needs one), so the test's fixture does it here."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from orchestrator.steps import registry
from orchestrator.steps.registry import StepSpec


@contextmanager
def registered(spec: StepSpec) -> Iterator[StepSpec]:
    """``spec`` in the registry while the block runs, as a step module would register it."""
    registry.register(spec)
    try:
        yield spec
    finally:
        registry._STEPS.pop(spec.name, None)
