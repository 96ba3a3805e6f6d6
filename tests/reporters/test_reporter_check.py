"""``promoflow reporter check``: a notifications ConfigMap checked before it is deployed,
every problem at once with its position, then what each trigger would send for an
Application and to whom; exit 0, 1 or 2 as every command's."""

from __future__ import annotations

from pathlib import Path

import yaml

from tests.unit.invoke import invoke

REFDATA = Path(__file__).resolve().parents[1] / "refdata" / "argo-cd"


def _catalog(tmp_path: Path, **extra: str) -> Path:
    """Argo CD's catalog, with a Slack service and a subscription added as a team would."""
    cm = yaml.safe_load((REFDATA / "notifications-catalog-install.yaml").read_text())
    cm["data"].update(
        {
            "service.slack": "token: $slack-token\n",
            "context": "argocdUrl: https://argocd.example.com\n",
            "subscriptions": "- recipients: [slack:deploys]\n"
            "  triggers: [on-sync-succeeded, on-deployed, on-sync-failed]\n",
            **extra,
        }
    )
    path = tmp_path / "cm.yaml"
    path.write_text(yaml.safe_dump(cm, sort_keys=False))
    secret = tmp_path / "secret"
    secret.mkdir(exist_ok=True)
    (secret / "slack-token").write_text("xoxb-not-shown")
    return path


def test_it_shows_what_each_trigger_would_send_and_to_whom(tmp_path: Path) -> None:
    path = _catalog(tmp_path)
    result = invoke("reporter", "check", "--notifications", str(path), "--secrets",
                    str(tmp_path / "secret"))  # fmt: skip
    assert result.code == 0, result.output
    assert "on-deployed -> app-deployed -> slack:deploys" in result.stdout
    assert "on-sync-succeeded -> app-sync-succeeded -> slack:deploys" in result.stdout
    assert "Application guestbook has been successfully synced at 2026-11-27T10:00:30Z" in (
        result.stdout
    )
    assert '"title_link":"https://argocd.example.com/applications/guestbook"' in result.stdout
    assert "on-sync-failed -> " not in result.stdout  # the sample's sync succeeded
    assert "xoxb-not-shown" not in result.output


def test_every_problem_is_listed_at_once_where_it_is_written(tmp_path: Path) -> None:
    path = _catalog(
        tmp_path,
        **{
            "template.mine": "message: '{{ app.metadata.name }}'\n",
            "trigger.on-mine": "- when: app.status.helth.status == 'Healthy'\n  send: [mine]\n",
        },
    )
    result = invoke("reporter", "check", "--notifications", str(path), "--secrets",
                    str(tmp_path / "secret"))  # fmt: skip
    assert result.code == 1
    assert result.stdout == ""  # nothing rendered from a configuration that does not load
    problems = result.stderr.splitlines()
    assert len(problems) == 2, result.stderr
    assert all(p.startswith(f"{path}:") and ": error: " in p for p in problems)
    assert "a Go template reads the data's fields with a leading dot" in result.stderr
    assert "app.status has no field 'helth' (did you mean 'health'?)" in result.stderr


def test_a_trigger_that_fails_on_the_app_is_a_problem(tmp_path: Path) -> None:
    """Argo CD's live example has no health.lastTransitionTime: the catalog's on-deployed
    fails on it, as it would in Argo CD (which logs it and sends nothing)."""
    path = _catalog(tmp_path)
    result = invoke("reporter", "check", "--notifications", str(path), "--secrets",
                    str(tmp_path / "secret"), "--app",
                    str(REFDATA / "application-live-example.yaml"))  # fmt: skip
    assert result.code == 1
    assert "on-sync-succeeded -> app-sync-succeeded -> slack:deploys" in result.stdout
    assert "Application velero-test has been successfully synced" in result.stdout
    [problem] = result.stderr.splitlines()
    assert problem.startswith('error: trigger on-deployed[0]: when: parsing time ""')


def test_usage_errors_exit_2(tmp_path: Path) -> None:
    assert invoke("reporter", "check").code == 2
    path = _catalog(tmp_path)
    notapp = tmp_path / "notapp.yaml"
    notapp.write_text("kind: ConfigMap\n")
    result = invoke("reporter", "check", "--notifications", str(path), "--secrets",
                    str(tmp_path / "secret"), "--app", str(notapp))  # fmt: skip
    assert result.code == 2
    assert "expected an Application manifest" in result.stderr


def test_validate_given_a_notifications_configmap_points_to_the_check() -> None:
    path = REFDATA / "notifications-catalog-install.yaml"
    result = invoke("validate", "-c", str(path))
    assert result.code == 1
    assert result.stderr.strip() == (
        f"error: no promoflow resources in {path}: it is a notifications ConfigMap; check it "
        f"with `promoflow reporter check --notifications {path}`"
    )


def test_files_that_cannot_be_read_are_told_not_crashed_on(tmp_path: Path) -> None:
    path = _catalog(tmp_path)
    binary = tmp_path / "binary.yaml"
    binary.write_bytes(b"\x00\xff")
    missing = invoke("reporter", "check", "--notifications", str(path), "--secrets",
                     str(tmp_path / "nope"))  # fmt: skip
    assert missing.code == 2
    assert (
        missing.stderr.strip()
        == f"error: cannot read {tmp_path / 'nope'}: No such file or directory"
    )
    for args, said in [
        (["--notifications", str(binary)], f"{binary}:1:1: error: not UTF-8 text: expected YAML"),
        (["--notifications", str(path), "--secrets", str(binary)],
         f"{binary}:1:1: error: a value is not UTF-8 text"),
    ]:  # fmt: skip
        result = invoke("reporter", "check", *args)
        assert result.code == 1 and result.stderr.strip() == said, result.output
    app = invoke("reporter", "check", "--notifications", str(path), "--secrets",
                 str(tmp_path / "secret"), "--app", str(binary))  # fmt: skip
    assert app.code == 2 and app.stderr.startswith(f"error: --app {binary}: ")
    assert "internal error" not in missing.output + app.output


def test_the_documented_example_is_checked_on_sample_events(tmp_path: Path) -> None:
    """promoflow's own triggers are about events: each is checked on a sample event of the
    type it names, for the app given."""
    example = Path(__file__).resolve().parents[2] / "docs" / "examples" / "notifications.yaml"
    secrets = tmp_path / "secrets"
    secrets.mkdir()
    for name in ("slack-token", "github-token", "jira-token", "audit-hmac"):
        (secrets / name).write_text(f"value-of-{name}")
    app = tmp_path / "app.yaml"
    app.write_text(
        yaml.safe_dump(
            {
                "apiVersion": "argoproj.io/v1alpha1",
                "kind": "Application",
                "metadata": {
                    "name": "shop-prod",
                    "namespace": "argocd",
                    "labels": {
                        "promoflow.dev/product": "shop",
                        "promoflow.dev/environment": "prod",
                    },
                },
                "status": {
                    "sync": {"status": "Synced", "revision": "9f2c1e0" + "d" * 33},
                    "health": {"status": "Healthy"},
                },
            }
        )
    )
    sample = invoke("reporter", "check", "--notifications", str(example), "--secrets",
                    str(secrets))  # fmt: skip
    assert sample.code == 0 and "no subscription or annotation names guestbook" in sample.stdout
    given = invoke("reporter", "check", "--notifications", str(example), "--secrets",
                   str(secrets), "--app", str(app))  # fmt: skip
    assert given.code == 0, given.output
    assert "on-deployed -> app-deployed -> slack:deploys" in given.stdout
    assert "jira.comment: Deployed to prod at 9f2c1e0ddddd." in given.stdout
    assert "value-of-" not in given.output
