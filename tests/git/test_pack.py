"""Pack parsing against packs the git CLI writes: same objects, corruption detected."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from orchestrator.adapters import gitpack
from tests.git.conftest import GitHost, git


def _pack(remote_path: Path, revs: str, thin: bool = False) -> bytes:
    args = ["--git-dir", str(remote_path), "pack-objects", "--stdout", "--revs"]
    if thin:
        args.append("--thin")
    return subprocess.run(
        ["git", *args], input=revs.encode(), capture_output=True, check=True
    ).stdout


def _all_objects(path: Path) -> set[str]:
    out = git("--git-dir", str(path), "cat-file", "--batch-all-objects", "--batch-check")
    return {line.split()[0] for line in out.splitlines()}


def test_parse_yields_every_object_with_its_content(host: GitHost) -> None:
    remote = host.create()
    for i in range(20):  # similar files: git stores most of them as deltas
        remote.commit({f"f{i % 5}.yaml": "name: x\n" * 40 + f"version: {i}\n"})
    pack = _pack(remote.path, "main\n")

    objects = gitpack.parse(pack, lambda _: None)

    assert {oid.hex() for oid in objects} == _all_objects(remote.path)
    for oid, (kind, data) in objects.items():
        name = gitpack.NAMES[kind]
        shown = subprocess.run(
            ["git", "--git-dir", str(remote.path), "cat-file", name.decode(), oid.hex()],
            capture_output=True,
            check=True,
        ).stdout
        assert shown == data
        assert hashlib.sha1(name + b" %d\0" % len(data) + data).digest() == oid


def test_a_thin_pack_resolves_its_bases_through_lookup(host: GitHost) -> None:
    remote = host.create()
    first = remote.commit({"a.yaml": "line\n" * 200})
    remote.commit({"a.yaml": "line\n" * 200 + "one more\n"})
    old = gitpack.parse(_pack(remote.path, "main\n"), lambda _: None)
    thin = _pack(remote.path, f"main\n^{first}\n", thin=True)

    with pytest.raises(gitpack.PackError, match="deltas against objects we do not have"):
        gitpack.parse(thin, lambda _: None)
    objects = gitpack.parse(thin, old.get)
    assert {oid.hex() for oid in objects} == {
        line.split()[0]
        for line in git(
            "--git-dir", str(remote.path), "rev-list", "--objects", f"{first}..main"
        ).splitlines()
    }


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda p: p[:-21] + bytes([p[-21] ^ 1]) + p[-20:], "checksum mismatch"),
        (lambda p: p[:40], "not a pack|checksum mismatch"),
        (lambda p: b"PACK" + b"\0\0\0\x09" + p[8:], "unsupported pack version"),
        (lambda p: b"<html>Bad Gateway</html>" + p, "not a pack"),
    ],
)
def test_damaged_packs_are_refused(host: GitHost, damage: object, message: str) -> None:
    remote = host.create()
    remote.commit({"a.yaml": "x: 1\n"})
    pack = _pack(remote.path, "main\n")
    assert callable(damage)
    with pytest.raises(gitpack.PackError, match=message):
        gitpack.parse(damage(pack), lambda _: None)
