"""The promote step against git servers as they are found, with both transports.

Each server is the real ``git http-backend``: with git's defaults (protocol v2, no
``uploadpack.allowFilter``), with filters allowed (as GitHub and GitLab do), and answering
in protocol v0 only. The native transport must ask what the server speaks and take the
cheapest correct path; the CLI transport must reach the same result.
"""

from __future__ import annotations

import json

import pytest
import yaml

from orchestrator.adapters.git import GitError, GitRemote
from tests.git.conftest import (
    GitHost,
    promote_args,
    run_step,
    shop_repo,
    step_json,
)

DESCRIPTIONS = {
    "default": "git protocol v2; the server allows no blob filter: shallow fetch of the tip",
    "filter": "git protocol v2; partial fetch (filter tree:0, else blob:none)",
    "v0": "git protocol v0; the server allows no blob filter: shallow fetch of the tip",
}


def test_promote_then_rerun_on_every_server(
    host: GitHost, server_kind: str, transport: str
) -> None:
    remote = shop_repo(host)
    seed = remote.head()

    first = run_step(*promote_args(remote), env=host.env())
    again = run_step(*promote_args(remote), env=host.env())

    out = step_json(first)
    assert out["changed"] is True and out["commit"] == remote.head() != seed
    staging = yaml.safe_load(remote.show("envs/staging/shop/values.yaml"))
    assert staging["image"] == {
        "repository": "registry.example.com/acme/shop",
        "tag": "1.4.2",
        "digest": "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    }
    assert staging["replicas"] == 2
    assert step_json(again) == {
        "commit": out["commit"],
        "changed": False,
        "files": [],
        "state": "unchanged",
    }
    assert remote.count() == 2
    remote.assert_fsck()
    remote.assert_fast_forwards_only()
    how = first.stderr.strip().splitlines()[0]
    if transport == "native":
        assert how.startswith(f"git: {DESCRIPTIONS[server_kind]}"), first.stderr
    else:
        assert how.startswith("git: git CLI"), first.stderr


def test_plan_says_how_the_server_will_be_fetched(host: GitHost, server_kind: str) -> None:
    remote = shop_repo(host)
    head = remote.head()

    result = run_step(*promote_args(remote, "--plan"), env=host.env())

    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["repo"] == remote.url
    assert result.stderr.strip().startswith(f"git: {DESCRIPTIONS[server_kind]}")
    assert remote.head() == head


def test_missing_branch_is_one_clear_error(host: GitHost, server_kind: str, transport: str) -> None:
    remote = shop_repo(host)
    head = remote.head()

    result = run_step(*promote_args(remote, "--branch", "release"), env=host.env())

    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    assert "release" in lines[0]
    assert remote.head() == head and remote.branches() == ["main"]


def test_a_pinned_source_commit_below_the_tip_is_found(
    host: GitHost, server_kind: str, transport: str
) -> None:
    """The workflow pins the commit dev was deployed at; by then dev's branch has moved on.
    v0 servers without allow-reachable-sha1-in-want refuse wants of anything but a tip."""
    remote = shop_repo(host)
    pinned = remote.head()
    remote.commit({"envs/dev/shop/values.yaml": "image:\n  tag: 9.9.9\n"}, message="dev moves")

    result = run_step(*promote_args(remote, "--source-commit", pinned), env=host.env())

    out = step_json(result)
    assert out["changed"] is True
    staging = yaml.safe_load(remote.show("envs/staging/shop/values.yaml"))
    assert staging["image"]["tag"] == "1.4.2"  # from the pinned commit, not 9.9.9


def test_native_fetches_only_what_the_server_allows(host: GitHost, server_kind: str) -> None:
    """With a filter the tip's blobs stay on the server until read; without one they come
    with the tip (asking for the filter anyway is what broke on default servers)."""
    remote = shop_repo(host)
    with GitRemote(remote.url, host.credentials) as git:
        tip = git.fetch_branch("main")
        readme = tip.tree["README.md"].id
        assert (readme in git.repo.odb) is (server_kind != "filter")
        git.ensure_blobs([readme])
        assert git.repo[readme].data == b"gitops\n"


def test_a_server_that_is_not_smart_http_is_refused(host: GitHost) -> None:
    remote = shop_repo(host)
    with (
        GitRemote(host.server.url + "/no-such-service", host.credentials) as git,
        pytest.raises(GitError) as exc,
    ):
        git.fetch_branch("main")
    assert "not found" in str(exc.value) or "smart HTTP" in str(exc.value)
    assert not exc.value.transient
    assert remote.branches() == ["main"]


def test_a_client_that_resets_its_connection_prints_no_traceback(
    host: GitHost, capfd: pytest.CaptureFixture[str]
) -> None:
    """git, and a step that exits, drop keep-alive connections; the test server must not
    print socketserver's traceback for it (nor would a demo)."""
    import socket
    import struct
    import time
    from urllib.parse import urlsplit

    remote = shop_repo(host)
    parts = urlsplit(remote.url)
    for _ in range(3):
        client = socket.create_connection((parts.hostname or "", parts.port or 80))
        client.sendall(b"GET /x HTTP/1.1\r\nHost: x\r\n")  # a request left half-sent
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # linger 0: a reset, not a FIN
    time.sleep(0.3)  # the server's threads read the reset
    assert "Traceback" not in capfd.readouterr().err
