"""expr (github.com/expr-lang/expr v1.17.7), the language of Argo CD Notifications' trigger
conditions, evaluated in Python as Argo CD v3.2 evaluates it.

    program = compile("app.status.operationState?.phase in ['Succeeded']")
    program.run({"app": decode_object(app)})

See :mod:`.program` for the API and :mod:`.argocd` for the functions Argo CD puts beside
``app`` (``time.Now()``, ``time.Parse``, ``strings.*``, ``repo.QueryEscape``).
"""

from reporters.expr.errors import (
    BudgetExceeded,
    ExprError,
    ExprRuntimeError,
    ExprSyntaxError,
    ExprUnsupported,
)
from reporters.expr.evaluator import Limits
from reporters.expr.program import Name, Program, compile
from reporters.expr.values import decode_object, go_format, go_type

__all__ = [
    "BudgetExceeded",
    "ExprError",
    "ExprRuntimeError",
    "ExprSyntaxError",
    "ExprUnsupported",
    "Limits",
    "Name",
    "Program",
    "compile",
    "decode_object",
    "go_format",
    "go_type",
]
