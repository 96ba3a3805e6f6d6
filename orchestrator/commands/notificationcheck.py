"""``promoflow reporter check``: a notifications configuration checked, and what it would
send for an Application shown, before it is deployed.

The problems are printed ``FILE:LINE:COL: error: ...`` as every configuration's are; then
a table of the triggers' conditions and, for those that fire, each message as its
recipient would get it. Teams run it in CI on the ConfigMap they are about to apply.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orchestrator.commands.common import err, out


def run_check(notifications: Path, secrets: Path | None, app_path: Path | None) -> int:
    import yaml
    from rich.table import Table

    from reporters.notifications.check import SAMPLE, check
    from reporters.notifications.config import load
    from reporters.notifications.errors import ConfigError
    from reporters.notifications.secretfiles import read_secrets

    try:
        found = read_secrets(secrets) if secrets is not None else {}
        config = load(notifications, found, secrets_from=str(secrets or ""))
    except ConfigError as exc:
        for problem in exc.problems:
            err.print(str(problem), markup=False)
        return 1
    except OSError as exc:  # as `promoflow reporter` says it
        err.print(f"error: cannot read {exc.filename}: {exc.strerror}", markup=False)
        return 2
    app: dict[str, Any] = SAMPLE
    if app_path is not None:
        try:
            loaded = yaml.safe_load(app_path.read_text())
        except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
            err.print(f"error: --app {app_path}: {exc}", markup=False)
            return 2
        if not isinstance(loaded, dict) or loaded.get("kind") != "Application":
            err.print(f"error: --app {app_path}: expected an Application manifest", markup=False)
            return 2
        app = loaded
    report = check(config, app)
    name = (app.get("metadata") or {}).get("name", "")
    table = Table(title=f"triggers, for {'the sample app ' if app_path is None else ''}{name}")
    for column in ("trigger", "condition", "outcome"):
        table.add_column(column)
    for trigger, index, outcome in report.conditions:
        table.add_row(trigger, str(index), outcome)
    out.print(table)
    if not report.subscribed:
        out.print(
            f"\nno subscription or annotation names {name}: nothing would be sent to it "
            "(give an app with the labels or annotations your subscriptions match: --app)",
            markup=False,
        )
    for sent in report.sent:
        out.print(
            f"\n[bold]{sent.trigger}[/] -> {sent.template} -> {sent.service}"
            f"{':' + sent.recipient if sent.recipient else ''}"
        )
        for key, text in _fields(sent.rendered):
            lines = text.rstrip("\n").splitlines() or [""]
            if len(lines) == 1:
                out.print(f"  {key}: {lines[0]}", markup=False)
            else:
                out.print(f"  {key}:", markup=False)
                for line in lines:
                    out.print(f"    {line}", markup=False)
    if report.sampled:
        out.print(
            "\nrepo.GetCommitMetadata and repo.GetAppDetails gave sample answers (a sample "
            "commit, the app's source type); the reporter asks the Argo CD API server of "
            "ARGOCD_SERVER for the real ones",
            markup=False,
        )
    for told in report.problems:
        err.print(f"error: {told}", markup=False)
    return 1 if report.problems else 0


def _fields(value: Any, key: str = "") -> list[tuple[str, str]]:
    """Each rendered text of a notification by its dotted path (``slack.attachments``)."""
    if isinstance(value, dict):
        return [f for k, v in value.items() for f in _fields(v, f"{key}.{k}" if key else str(k))]
    if isinstance(value, list):
        return [f for i, v in enumerate(value) for f in _fields(v, f"{key}[{i}]")]
    return [(key, value if isinstance(value, str) else str(value).lower())]
