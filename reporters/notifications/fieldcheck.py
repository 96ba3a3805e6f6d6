"""Field paths a template or condition reads that no Application can have, found at start.

Go templates render a missing key as ``<no value>`` and expr reads it as nil, so Argo CD
starts with ``.app.spec.sourse.repoURL`` and sends an empty field for ever. The paths a
text reads are known without running it (:meth:`gotemplate.Template.references`,
:meth:`expr.Program.names`), the Application's fields too (:mod:`.appfields`): a path that
leaves them, or a variable Argo CD never gives, is refused with where it is in the text,
the field most likely meant, and what Argo CD would have done with it.
"""

from __future__ import annotations

from collections.abc import Iterator

from orchestrator.problems import suggest
from reporters.notifications import appfields, languages

TEMPLATE_ROOTS = (
    "app", "context", "serviceType", "recipient", "time", "strings", "repo",
    languages.EVENT,
)  # fmt: skip
"""What a template's data holds (notifications-engine's, Argo CD's helpers, promoflow's
``event``)."""
CONDITION_ROOTS = ("app", "context", "time", "strings", "repo", languages.EVENT)
SECRETS = (
    "the Secret's values are not given to templates and conditions here, so that they "
    "reach no event or log: name them as $name in the service's settings"
)


def template_problems(text: str) -> Iterator[str]:
    """Each field path of a template no data can hold, said where it is in the text."""
    for ref in languages.template(text).references():
        if ref.kind != "field" or not ref.path.startswith("."):
            continue
        problem = _problem(ref.path[1:], TEMPLATE_ROOTS, ".")
        if problem:
            yield (
                f"line {ref.line}, column {ref.column}: {problem}: Argo CD renders "
                "<no value> there (or fails)"
            )


def condition_problems(text: str) -> Iterator[str]:
    """Each variable path of a condition no environment can hold."""
    for name in languages.condition(text).names():
        if name.kind != "variable":
            continue
        problem = _problem(name.path, CONDITION_ROOTS, "")
        if problem:
            yield (
                f"line {name.line}, column {name.column}: {problem}: Argo CD reads nil there "
                "(the condition is false, or fails)"
            )


def _problem(path: str, roots: tuple[str, ...], dot: str) -> str:
    parts = [p for p in path.replace("[]", ".0").split(".") if p]
    if not parts:
        return ""
    root = parts[0]
    if root == "secrets":
        return SECRETS
    if root not in roots:
        return f"no variable {dot}{root}{suggest(root, roots)}"
    if root != "app":
        return ""
    return appfields.lookup(parts[1:], f"{dot}app").problem
