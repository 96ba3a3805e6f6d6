"""Adds commits and Jira issues to sync events, or drops a sync that changed nothing.

For ``app.synced`` and ``app.deployed``: per source, the commits between the old and the
new revision that touched the source's path. When a source moved but no commit touched the
app (a monorepo commit for other apps), the event is dropped: the app did not change. A
lookup that fails never holds an event back: it goes out without that part, and
``data.unenriched`` says which part and why.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from orchestrator.steps.message import jira_keys
from reporters.enrich.commits import History, commit_link, source_changes, touching
from reporters.enrich.jira import JiraIssues, JiraUnavailable
from reporters.events.transitions import App, Change

ENRICHED = ("app.synced", "app.deployed")
AUTHOR_EMAILS, JIRA_FIELDS = "author-emails", "jira-fields"
SHARED = (AUTHOR_EMAILS, JIRA_FIELDS)
"""Personal or private data events carry only when the operator says so (``--share``):
commit authors' e-mail addresses (else masked in messages too), and Jira issues' summary
and assignee (else an issue is its key, status and link)."""
ISSUE_BASICS = ("key", "status", "link")


class Enricher:
    def __init__(
        self,
        history: History | None = None,
        jira: JiraIssues | None = None,
        share: frozenset[str] = frozenset(),
    ) -> None:
        self.history = history
        self.jira = jira
        self.share = share
        self.failures = 0

    def enrich(self, change: Change, old: App | None, new: App | None) -> Change | None:
        if change.type not in ENRICHED or new is None or self.history is None:
            return change
        data: dict[str, Any] = dict(change.data)
        missing: dict[str, str] = {}
        moved = [s for s in source_changes(old, new) if s.old and s.new and s.old != s.new]
        messages: list[str] = []
        per_source = []
        emails = AUTHOR_EMAILS in self.share
        try:
            for source in moved:
                commits = touching(self.history.between(source), source.path)
                messages += [c.message for c in commits]
                per_source.append(
                    {
                        "repo": source.repo,
                        "path": source.path,
                        "from": source.old,
                        "to": source.new,
                        "commits": [
                            c.as_dict(commit_link(source.repo, c.sha), emails=emails)
                            for c in commits
                        ],
                    }
                )
        except Exception as exc:  # Git down, a revision not found: deliver without commits
            self.failures += 1
            missing["commits"] = f"unavailable: {exc}"
            per_source = []
        if moved and per_source and not any(s["commits"] for s in per_source):
            return None  # every moved source changed nothing under this app's path
        if per_source:
            data["commits"] = per_source
        keys = jira_keys(messages)
        if keys and self.jira is not None:
            try:
                found = list(self.jira.issues(keys).values())
                if JIRA_FIELDS not in self.share:
                    found = [{k: i[k] for k in ISSUE_BASICS if k in i} for i in found]
                data["issues"] = found
            except JiraUnavailable as exc:
                self.failures += 1
                missing["issues"] = str(exc)
        if missing:
            data["unenriched"] = missing
        return replace(change, data=data)
