"""The reporter reads its environment as every promoflow setting is read: one typed
settings model, credentials as ``SecretStr``, and every credential among what it scrubs."""

from __future__ import annotations

import pytest

from reporters.settings import ReporterSettings

CREDENTIALS = {
    "PROMOFLOW_SINK_SECRET": "sink-s3cret",
    "JIRA_TOKEN": "jira-t0ken",
    "PROMOFLOW_REPORT_TOKEN": "report-t0ken",
    "GIT_TOKEN": "git-t0ken",
    "GIT_PASSWORD": "git-passw0rd",
    "ARGOCD_AUTH_TOKEN": "argocd-t0ken",
    "GITHUB_TOKEN": "ghp_t0ken",
    "SLACK_TOKEN": "xoxb-t0ken",
}


def test_every_credential_is_read_scrubbed_and_never_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in {
        **CREDENTIALS,
        "JIRA_USER": "bot",
        "PROMOFLOW_ARGOCD_UI": "https://cd",
    }.items():
        monkeypatch.setenv(name, value)
    settings = ReporterSettings()
    assert sorted(settings.secrets()) == sorted(CREDENTIALS.values())
    assert settings.jira_user == "bot" and settings.argocd_ui == "https://cd"
    shown = repr(settings) + str(settings.model_dump())
    assert not any(value in shown for value in CREDENTIALS.values()), shown


def test_a_credential_too_short_to_mask_is_not_scrubbed_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in CREDENTIALS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_TOKEN", "abc")  # masking "abc" would mask it in every word
    monkeypatch.setenv("JIRA_TOKEN", "  jira-t0ken  ")
    assert ReporterSettings().secrets() == ("jira-t0ken",)
