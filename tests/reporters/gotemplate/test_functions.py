"""The function map and Argo CD's helpers: what depends on the clock, randomness, or Argo CD.

Vectors cannot pin ``now``, ``ago``, ``time.Now`` or random functions; these tests check
their properties, the injectable clock, and the helpers a caller supplies
(``repo.GetCommitMetadata``, ``repo.GetAppDetails``) or opts into (``sync.GetInfoItem``).
"""

from __future__ import annotations

import base64
import datetime as dt
import re
from typing import Any

import pytest

from reporters.gotemplate import TemplateExecError, parse
from reporters.gotemplate.argocd import argocd_helpers, get_info_item
from reporters.gotemplate.gotime import GoTime
from reporters.gotemplate.sprig import UNSUPPORTED
from reporters.gotemplate.values import GoFunc

FIXED = GoTime(1709587833, 0)  # 2024-03-04T21:30:33Z


def render(text: str, data: Any = None, **kwargs: Any) -> str:
    return parse(text, name="t").execute(data if data is not None else {}, **kwargs)


def test_now_reads_the_clock() -> None:
    before = dt.datetime.now(dt.UTC).year
    assert int(render('{{ now | date "2006" }}')) in (before, before + 1)
    assert re.fullmatch(r"\d+", render("{{ now.Unix }}"))


def test_now_can_be_injected_for_repeatable_output() -> None:
    clock = GoFunc(lambda: FIXED, (), returns="time.Time")
    assert render('{{ now | date "2006-01-02 15:04" }}', funcs={"now": clock}) == (
        "2024-03-04 21:30"
    )


def test_execute_cannot_add_functions_the_parse_did_not_know() -> None:
    with pytest.raises(ValueError, match="not known"):
        render("x", funcs={"brandNew": GoFunc(lambda: "", (), returns="string")})


def test_ago_is_a_rounded_duration_since_the_time() -> None:
    assert re.fullmatch(r"\d+h\d+m\d+s", render("{{ ago .t }}", {"t": 1709587833}))


@pytest.mark.parametrize("name", ["bcrypt", "genPrivateKey", "encryptAES", "getHostByName"])
def test_unsupported_sprig_functions_parse_but_refuse_to_run(name: str) -> None:
    assert name in UNSUPPORTED
    template = parse(f"{{{{ {name} 5 }}}}", name="t")
    with pytest.raises(TemplateExecError, match="not available"):
        template.execute({})


def test_argocd_time_helpers_with_an_injected_clock() -> None:
    data = {"app": {"status": {"operationState": {"startedAt": "2024-03-04T21:00:00Z"}}}}
    data.update(argocd_helpers(now=lambda: FIXED))
    text = (
        "{{ (call .time.Now).Sub (call .time.Parse .app.status.operationState.startedAt) }} "
        "{{ (call .time.Now).Format .time.RFC1123 }}"
    )
    assert render(text, data) == "30m33s Mon, 04 Mar 2024 21:30:33 UTC"


def test_time_now_without_injection_is_close_to_the_clock() -> None:
    data = argocd_helpers()
    unix = int(render("{{ (call .time.Now).Unix }}", data))
    assert abs(unix - dt.datetime.now(dt.UTC).timestamp()) < 60


def test_repo_functions_a_caller_supplies() -> None:
    calls: list[str] = []

    def commit(sha: str) -> dict[str, Any]:
        calls.append(sha)
        return {"Author": "Ann <ann@example.com>", "Message": "fix", "Date": FIXED, "Tags": []}

    data: dict[str, Any] = {"app": {"status": {"sync": {"revision": "abc123"}}}}
    data.update(
        argocd_helpers(get_commit_metadata=commit, get_app_details=lambda: {"Type": "Helm"})
    )
    text = (
        "{{ (call .repo.GetCommitMetadata .app.status.sync.revision).Author }} "
        '{{ ((call .repo.GetCommitMetadata "x").Date).Format "2006" }} '
        "{{ (call .repo.GetAppDetails).Type }}"
    )
    assert render(text, data) == "Ann <ann@example.com> 2024 Helm"
    assert calls == ["abc123", "x"]


def test_repo_functions_not_supplied_are_missing() -> None:
    data = argocd_helpers()
    assert render("{{ .repo.GetCommitMetadata }}", data) == "<no value>"
    with pytest.raises(TemplateExecError, match="call of nil"):
        render('{{ call .repo.GetCommitMetadata "abc" }}', data)


def test_sync_get_info_item_reads_the_operation_info() -> None:
    app = {
        "operation": {"sync": {}, "info": [{"name": "reason", "value": "hotfix"}]},
        "status": {
            "operationState": {"operation": {"info": [{"name": "ticket", "value": "OPS-1"}]}}
        },
    }
    assert get_info_item(app, "reason") == "hotfix"
    assert get_info_item(app, "ticket") == "OPS-1"
    assert get_info_item(app, "missing") == ""
    data: dict[str, Any] = {"app": app, **argocd_helpers(with_sync=True)}
    assert render('{{ call .sync.GetInfoItem .app "reason" }}', data) == "hotfix"


def test_slack_like_catalog_template_renders_for_each_service() -> None:
    text = '{{if eq .serviceType "slack"}}:white_check_mark:{{end}} {{.app.metadata.name}}'
    app = {"metadata": {"name": "guestbook"}}
    assert render(text, {"app": app, "serviceType": "slack"}) == ":white_check_mark: guestbook"
    assert render(text, {"app": app, "serviceType": "email"}) == " guestbook"


@pytest.mark.parametrize(
    ("fn", "alphabet"),
    [
        ("randAlphaNum", r"[A-Za-z0-9]"),
        ("randAlpha", r"[A-Za-z]"),
        ("randNumeric", r"[0-9]"),
        ("randAscii", r"[ -~]"),
    ],
)
def test_random_strings_have_the_length_and_alphabet_asked_for(fn: str, alphabet: str) -> None:
    outputs = {render(f"{{{{ {fn} 24 }}}}") for _ in range(5)}
    assert all(re.fullmatch(f"{alphabet}{{24}}", out) for out in outputs)
    assert len(outputs) > 1
    assert render(f"{{{{ {fn} 0 }}}}") == ""


def test_random_numbers_bytes_uuids_and_shuffles() -> None:
    numbers = {int(render("{{ randInt 3 7 }}")) for _ in range(60)}
    assert numbers <= {3, 4, 5, 6} and len(numbers) > 1
    with pytest.raises(TemplateExecError, match="invalid argument to Intn"):
        render("{{ randInt 5 5 }}")
    assert len(base64.b64decode(render("{{ randBytes 12 }}"))) == 12
    assert re.fullmatch(
        r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
        render("{{ uuidv4 }}"),
    )
    shuffled = render('{{ shuffle "abcdefghij" }}')
    assert sorted(shuffled) == list("abcdefghij")


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [("\\s", "\v", "false"), ("\\s", "\t", "true"), ("[\\s]", "\v", "false"),
     ("a\\z", "a", "true")],
)  # fmt: skip
def test_regex_escapes_mean_what_they_mean_in_re2(pattern: str, text: str, found: str) -> None:
    """RE2's \\s has no vertical tab (Python's has), and \\z is Python's \\Z."""
    assert render("{{ regexMatch .p .t }}", {"p": pattern, "t": text}) == found


def test_a_repository_url_go_would_print_otherwise_is_an_error_with_a_hint() -> None:
    data = argocd_helpers()
    data["u"] = "https://github.com/org/repo?ref=main"
    with pytest.raises(TemplateExecError, match="is not supported: write the repository URL"):
        render("{{ call .repo.RepoURLToHTTPS .u }}", data)
