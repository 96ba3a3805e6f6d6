"""The two condition languages a workflow carries, each evaluated as Argo evaluates it.

``when`` is govaluate after ``{{...}}`` substitution, with every bare word read as a string
(``shouldExecute`` in ``workflow/controller/steps.go``): see :mod:`.when`, which evaluates a
documented subset with the library's results and refuses the rest (:class:`WhenRefused`),
before the run for the written text (:func:`check_when`) and as an Error node when a
substituted value leaves the subset.

``retryStrategy.expression`` is expr-lang over ``lastRetry.*`` and ``retries``
(``processNodeRetries`` in ``workflow/controller/operator.go``): see :mod:`.exprlang`,
which evaluates the subset it accepts exactly and refuses the rest before a run starts.

Nothing is handed to Python's ``eval``.
"""

from __future__ import annotations

from orchestrator.engine.expreval import ExprError, Expression
from orchestrator.engine.exprlang import RETRY_VARIABLES
from orchestrator.engine.exprlang import parse_expression as _parse_expression
from orchestrator.engine.when import WhenError, WhenRefused, check_when, should_execute

__all__ = [
    "RETRY_VARIABLES",
    "ExprError",
    "Expression",
    "WhenError",
    "WhenRefused",
    "check_when",
    "evaluate_when",
    "parse_expression",
]


def evaluate_when(text: str) -> bool:
    """Argo's ``shouldExecute`` on substituted text; :class:`WhenError` (an EngineError)
    carries the message of the node Argo marks ``Error`` (:class:`WhenRefused`, a
    WhenError too: the text is outside the subset a local run evaluates)."""
    return should_execute(text)


def parse_expression(text: str, known: frozenset[str] = RETRY_VARIABLES) -> Expression:
    """A retry expression, parsed and type-checked; EngineError when it cannot run locally."""
    return _parse_expression(text, known)
