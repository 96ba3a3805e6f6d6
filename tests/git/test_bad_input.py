"""Promotions that cannot be done: a non-zero exit, one clear error line, no traceback, no
secret in the output, and the remote exactly as it was."""

from __future__ import annotations

import base64
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.git.conftest import (
    TOKEN,
    USERNAME,
    GitHost,
    Remote,
    promote_args,
    run_step,
    shop_repo,
)

WRONG_TOKEN = "tok-wrong-0000-also-secret"
SECRETS = [
    TOKEN,
    WRONG_TOKEN,
    base64.b64encode(f"{USERNAME}:{TOKEN}".encode()).decode(),
    base64.b64encode(f"{USERNAME}:{WRONG_TOKEN}".encode()).decode(),
]
TRANSIENT_EXIT = 75


def error_lines(stderr: str) -> list[str]:
    """What stderr says, without typer's usage banner and the frame of its error box."""
    lines = [line.strip(" │╭╮╰╯─") for line in stderr.splitlines()]
    banner = ("Usage: ", "Try '")
    return [line for line in lines if line and line != "Error" and not line.startswith(banner)]


def assert_refused(
    result: subprocess.CompletedProcess[str], code: int, message: str, remote: Remote, head: str
) -> None:
    assert result.returncode == code, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    assert result.stdout == ""
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert message in lines[0]
    output = result.stdout + result.stderr
    for secret in SECRETS:
        assert secret not in output
    assert remote.head() == head and remote.count() == 1
    assert remote.branches() == ["main"]
    remote.assert_fsck()


@contextmanager
def closed_port() -> Iterator[int]:
    """A port that refuses connections for the whole ``with``: bound, never listening, so
    no server of another test (they run side by side) can take it meanwhile."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        yield port


INPUT_CASES = {
    "missing source file": (
        ["--files", '[{"file": "missing.yaml", "paths": ["image.tag"]}]'],
        1,
        "error: envs/dev/shop/missing.yaml not found in dev",
    ),
    "YAML path absent": (
        ["--files", '[{"file": "values.yaml", "paths": ["image.nope"]}]'],
        1,
        "error: envs/dev/shop/values.yaml: YAML path 'image.nope' not found",
    ),
    "target file absent": (
        ["--target-path", "envs/prod-us/shop"],
        1,
        "error: envs/prod-us/shop/values.yaml does not exist on main",
    ),
    "source lacks the version": (
        ["--version", "9.9.9"],
        1,
        "error: dev holds version 1.4.2 (envs/dev/shop/values.yaml), not 9.9.9",
    ),
    "file escaping with ..": (
        ["--files", '[{"file": "../../prod-eu/shop/values.yaml", "paths": ["image.tag"]}]'],
        2,
        "escapes the product directory ('..' is not allowed)",
    ),
    "target path escaping with ..": (
        [
            "--target-path",
            "envs/staging/shop/../../prod-eu/shop",
            "--files",
            '[{"file": "config/*.json"}]',
        ],
        2,
        "--target-path: 'envs/staging/shop/../../prod-eu/shop': '.' and '..' are not allowed",
    ),
    "source path escaping with ..": (
        ["--source-path", "../dev/shop"],
        2,
        "--source-path: '../dev/shop': '.' and '..' are not allowed",
    ),
    "files not JSON": (["--files", "values.yaml"], 2, "--files is not valid JSON"),
}


@pytest.mark.parametrize("case", list(INPUT_CASES))
def test_bad_input_is_refused(host: GitHost, case: str) -> None:
    remote = shop_repo(host)
    head = remote.head()
    extra, code, message = INPUT_CASES[case]

    result = run_step(*promote_args(remote, *extra), env=host.env())

    assert_refused(result, code, message, remote, head)


def test_server_down_is_transient(host: GitHost, transport: str) -> None:
    """Both transports: exit 75 (retried by the workflow) and the same words."""
    remote = shop_repo(host)
    head = remote.head()
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}/acme/gitops.git"
        result = run_step(
            *promote_args(remote, "--repo", url), env=host.env(PROMOFLOW_RETRY_WINDOW="0")
        )

    message = f"error: connection to {url} refused (is the server running?)"
    assert_refused(result, TRANSIENT_EXIT, message, remote, head)


def test_server_down_is_waited_for_in_the_step_first(host: GitHost) -> None:
    """The workflow restarts an exit 75 at once (a backoff there would delay every
    permanent failure too): the step itself tries again, saying so, within its window."""
    remote = shop_repo(host)
    with closed_port() as port:
        url = f"http://127.0.0.1:{port}/acme/gitops.git"
        result = run_step(
            *promote_args(remote, "--repo", url), env=host.env(PROMOFLOW_RETRY_WINDOW="2")
        )

    assert result.returncode == TRANSIENT_EXIT, result.stderr
    lines = result.stderr.splitlines()
    refused = f"connection to {url} refused (is the server running?)"
    assert lines[0].startswith(f"{refused}; trying again in 1s (gives up at ")
    assert lines[-1] == f"error: {refused}"


def test_permanent_failures_are_not_tried_again(host: GitHost) -> None:
    remote = shop_repo(host)
    result = run_step(*promote_args(remote), env=host.env(GIT_TOKEN=WRONG_TOKEN))
    assert result.returncode == 1
    assert "trying again" not in result.stderr


def test_unresolvable_host_is_permanent(host: GitHost, transport: str) -> None:
    """A name that does not resolve will not resolve on a retry: exit 1 at once."""
    remote = shop_repo(host)
    head = remote.head()
    url = "http://git.promoflow-test.invalid/acme/gitops.git"

    result = run_step(*promote_args(remote, "--repo", url), env=host.env())

    message = f"error: cannot resolve the host name of {url}: check the URL"
    assert_refused(result, 1, message, remote, head)


@pytest.mark.parametrize("token", [WRONG_TOKEN, ""])
def test_bad_credentials(host: GitHost, transport: str, server_kind: str, token: str) -> None:
    remote = shop_repo(host)
    head = remote.head()

    result = run_step(*promote_args(remote), env=host.env(GIT_TOKEN=token))

    message = f"error: authentication to {remote.url} failed: check GIT_TOKEN"
    assert_refused(result, 1, message, remote, head)


def test_token_in_the_url_is_not_printed(host: GitHost, transport: str) -> None:
    remote = shop_repo(host)
    head = remote.head()
    url = remote.url.replace("http://", f"http://{USERNAME}:{WRONG_TOKEN}@")

    result = run_step(*promote_args(remote, "--repo", url), env=host.env(GIT_TOKEN=""))

    message = f"error: authentication to {remote.url} failed"  # the URL without credentials
    assert_refused(result, 1, message, remote, head)


def test_unknown_repository(host: GitHost, transport: str, server_kind: str) -> None:
    remote = shop_repo(host)
    head = remote.head()
    url = remote.url.replace("gitops", "nope")

    result = run_step(*promote_args(remote, "--repo", url), env=host.env())

    assert_refused(result, 1, f"error: repository {url} not found", remote, head)
