"""Who acted on a Workflow, as the Argo Server records it in labels.

On every update it makes for a caller (resume, stop, ``set`` of a suspend node, ...) the
Argo Server labels the Workflow with the caller's identity from their token
(``workflow/creator`` in argo-workflows: ``LabelActor``): the subject, the e-mail (``@``
written ``.at.``) and the preferred username, each made label-safe, and removes the labels
when the request carries no identity. The local engine records its approvers the same way,
and the approver check reads them. Pure, no imports from the rest of the package.
"""

from __future__ import annotations

import re

ACTOR = "workflows.argoproj.io/actor"
ACTOR_EMAIL = "workflows.argoproj.io/actor-email"
ACTOR_USERNAME = "workflows.argoproj.io/actor-preferred-username"
ACTION = "workflows.argoproj.io/action"
ACTOR_LABELS = (ACTOR, ACTOR_EMAIL, ACTOR_USERNAME, ACTION)
CREATOR = "workflows.argoproj.io/creator"
CREATOR_EMAIL = "workflows.argoproj.io/creator-email"
CREATOR_USERNAME = "workflows.argoproj.io/creator-preferred-username"
CREATOR_LABELS = (CREATOR, CREATOR_EMAIL, CREATOR_USERNAME)
SERVER_LABELS = frozenset(ACTOR_LABELS + CREATOR_LABELS)
"""Labels the Argo Server writes on what a caller creates or changes, not the caller."""


def dns_friendly(text: str) -> str:
    """Argo's ``dnsFriendly``: anything but ``[-_.a-zA-Z0-9]`` becomes ``-``, the last 63
    characters are kept, and leading and trailing non-alphanumerics are dropped."""
    value = re.sub(r"[^-_.a-zA-Z0-9]", "-", text)
    if len(value) > 63:
        value = value[-63:]
    value = re.sub(r"^[^a-zA-Z0-9]*", "", value)
    return re.sub(r"[^a-zA-Z0-9]*$", "", value)


def email_shown(value: str) -> str:
    """An ``actor-email`` label as the e-mail it was made from, for people to read.

    Argo writes the ``@`` as ``.at.``; a label value keeps no mark of which ``.at.`` that
    was, so the last one is taken (a local part such as ``john.at.work`` is more common
    than a domain that starts with an ``at.`` label). Where the approvers are known, the
    check shows the matching entry as written instead (approvers.shown_as)."""
    head, sep, tail = value.rpartition(".at.")
    return f"{head}@{tail}" if sep and head and tail else value


def _identity(
    keys: tuple[str, str, str], subject: str, email: str, username: str
) -> dict[str, str]:
    values = (
        dns_friendly(subject),
        dns_friendly(email.replace("@", ".at.", 1)),
        dns_friendly(username),
    )
    return {key: value for key, value in zip(keys, values, strict=True) if value}


def actor_labels(subject: str = "", email: str = "", username: str = "") -> dict[str, str]:
    """The labels an update by this caller leaves (a ``set`` leaves no action label)."""
    return _identity((ACTOR, ACTOR_EMAIL, ACTOR_USERNAME), subject, email, username)


def creator_labels(subject: str = "", email: str = "", username: str = "") -> dict[str, str]:
    """The labels the Argo Server puts on what this caller creates (``creator.Label``)."""
    return _identity((CREATOR, CREATOR_EMAIL, CREATOR_USERNAME), subject, email, username)
