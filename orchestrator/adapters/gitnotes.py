"""Adding promoflow's note to a promotion commit on the server (``refs/notes/promoflow``).

Notes of every product share one ref, so two runs may add theirs at once: each addition
is a commit on top of the ref's tip as fetched, pushed without force, and built again on
the new tip when the push is refused (it moved). A note already on the commit is kept and
the new record appended after a blank line (``git notes append``): the last one holds.
"""

from __future__ import annotations

import pygit2

from orchestrator.adapters.git import GitRemote
from orchestrator.adapters.giterrors import GitError, PushRejected
from orchestrator.names import NOTES_REF

ATTEMPTS = 8


def add_note(remote: GitRemote, commit: str, text: str, who: pygit2.Signature) -> int:
    """Append ``text`` to the note on ``commit``; the attempts it took."""
    repo = remote.repo
    for attempt in range(1, ATTEMPTS + 1):
        old = remote.fetch_ref(NOTES_REF)
        if old is None and NOTES_REF in repo.references:
            repo.references.delete(NOTES_REF)  # gone from the server: start it again
        existing = ""
        if old is not None:
            try:
                existing = str(repo.lookup_note(commit, NOTES_REF).message)
            except KeyError:
                existing = ""
        message = f"{existing.rstrip()}\n\n{text}" if existing.strip() else text
        repo.create_note(message, who, who, commit, NOTES_REF, True)
        tip = repo.references[NOTES_REF].peel(pygit2.Commit).id
        try:
            remote.push(tip, "", pygit2.Oid(hex=old) if old else None, ref=NOTES_REF)
        except PushRejected:
            continue
        return attempt
    raise GitError(f"{NOTES_REF} kept moving: the note on {commit[:12]} was not added")
