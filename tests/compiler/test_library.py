"""The reusable step templates: committed YAML is what the Python modules generate."""

from __future__ import annotations

import subprocess
import sys

from orchestrator.compiler.compile import library_templates, to_yaml
from orchestrator.compiler.library import RETRY_EXPRESSION
from tests.compiler.helpers import ROOT, SETTINGS
from workflow_templates import rendered


def test_committed_yaml_matches_modules() -> None:
    for path, text in rendered().items():
        assert path.exists(), f"{path.name} missing: run python -m workflow_templates"
        assert path.read_text() == text, f"{path.name} is stale: run python -m workflow_templates"


def test_modules_print_their_yaml() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "workflow_templates", "approver"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "name: promoflow-approver" in result.stdout


def test_retries_only_transient_failures() -> None:
    promote = next(
        m for m in library_templates(SETTINGS) if m["metadata"]["name"] == "promoflow-promote"
    )
    template = promote["spec"]["templates"][0]
    retry = template["retryStrategy"]
    assert retry["expression"] == RETRY_EXPRESSION
    assert "75" in retry["expression"] and retry["limit"] == "3"
    # Argo waits out a backoff before it evaluates the expression (processNodeRetries):
    # with one, a wrong token would wait it out before failing. Steps wait themselves.
    assert "backoff" not in retry
    # no mutex: concurrent pushes to a branch rebase and retry (tests/git/test_concurrency.py)
    assert "synchronization" not in template
    assert template["activeDeadlineSeconds"] == "900"


def test_no_step_template_waits_before_failing() -> None:
    for manifest in library_templates(SETTINGS):
        for template in manifest["spec"]["templates"]:
            assert "backoff" not in (template.get("retryStrategy") or {}), template["name"]


def test_secrets_are_references_only() -> None:
    for manifest in library_templates(SETTINGS):
        text = to_yaml(manifest)
        for template in manifest["spec"]["templates"]:
            for env in (template.get("container") or {}).get("env", []):
                if env["name"] in ("GIT_TOKEN", "ARGOCD_AUTH_TOKEN"):
                    assert "value" not in env and env["valueFrom"]["secretKeyRef"]["optional"]
        assert "token:" not in text.replace("key: token", "")
