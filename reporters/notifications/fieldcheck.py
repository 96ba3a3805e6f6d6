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


REPO_FUNCTIONS = ("repo.GetCommitMetadata", "repo.GetAppDetails")
"""Argo CD's functions that ask its API server (:mod:`.repofns`)."""


def _unanswered(path: str) -> str:
    return (
        f"{path} asks the Argo CD API server, and the reporter has none: set ARGOCD_SERVER "
        "(host:port, or a URL) and ARGOCD_AUTH_TOKEN in its environment, as the argocd "
        "CLI reads them"
    )


def template_problems(text: str, argocd: bool = True) -> Iterator[str]:
    """Each field path of a template no data can hold, said where it is in the text;
    without ``argocd``, each call of a function that needs the Argo CD API too."""
    for ref in languages.template(text).references():
        if ref.kind != "field" or not ref.path.startswith("."):
            continue
        if not argocd and ref.path[1:] in REPO_FUNCTIONS:
            yield f"line {ref.line}, column {ref.column}: {_unanswered(ref.path)}"
            continue
        problem = _problem(ref.path[1:], TEMPLATE_ROOTS, ".")
        if problem:
            yield (
                f"line {ref.line}, column {ref.column}: {problem}: Argo CD renders "
                "<no value> there (or fails)"
            )


def condition_problems(text: str, argocd: bool = True) -> Iterator[str]:
    """Each variable path of a condition no environment can hold (and, without
    ``argocd``, each call of a function that needs the Argo CD API)."""
    for name in languages.condition(text).names():
        if not argocd and name.kind == "function" and name.path in REPO_FUNCTIONS:
            yield f"line {name.line}, column {name.column}: {_unanswered(name.path)}"
            continue
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
