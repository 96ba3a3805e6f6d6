"""A run without a cache fetches the tip's commit alone, then the trees on its paths.

On a server that allows filters the commit comes without trees (``filter tree:0``), the
promoted directories come one request per level (``adapters/gitdirs.py``), and anything
else is fetched when it is read. Servers that allow blob filters only (GitLab's Gitaly,
gateways that deny the tree filter) refuse ``tree:0``: the client asks for ``blob:none``
instead and the promotion is the same. Every server here is the real ``git http-backend``.
"""

from __future__ import annotations

from collections.abc import Callable

import pygit2
import pytest
import yaml
from pygit2.enums import FileMode

from orchestrator.adapters import gitdirs, gitobjects, gitprefetch, gitwire
from orchestrator.adapters.git import Credentials, GitError, GitRemote
from orchestrator.adapters.gittree import list_files, subtree
from orchestrator.steps.promote import promote
from tests.git.conftest import TOKEN, USERNAME, GitHost, Remote, git, shop_repo, shop_request


def _filtered(host: GitHost) -> Remote:
    host.allow_filter = True
    return shop_repo(host)


def _blob_filter_only(remote: Remote) -> None:
    """As servers that deny tree filters are configured: every filter off, then
    ``blob:none`` back on (the subsection keeps its colon)."""
    for key, value in (
        ("uploadpackfilter.allow", "false"),
        ("uploadpackfilter.blob:none.allow", "true"),
    ):
        git("--git-dir", str(remote.path), "config", key, value)


def _tree_at(remote: Remote, path: str) -> bytes:
    return bytes.fromhex(remote.git("rev-parse", f"main:{path}").strip())


def test_a_cold_promotion_fetches_the_trees_of_its_paths_only(host: GitHost) -> None:
    remote = _filtered(host)
    with GitRemote(remote.url, host.credentials) as git_remote:
        result = promote(git_remote, shop_request(remote))
        memory = git_remote.memory
        assert memory is not None
        held = memory.objects.keys()
    assert result.changed and remote.head() == result.commit
    assert yaml.safe_load(remote.show("envs/staging/shop/values.yaml"))["image"]["tag"] == "1.4.2"
    remote.assert_fsck()
    for fetched in ("envs/dev/shop/config", "envs/staging/shop/config"):
        assert _tree_at(remote, fetched) in held, fetched  # the directories, and below them
    # the tree of an environment nobody promoted stayed on the server, as did its file
    assert _tree_at(remote, "envs/prod-eu/shop") not in held
    assert _tree_at(remote, "README.md") not in held


def test_a_tree_outside_the_promoted_paths_is_fetched_when_read(host: GitHost) -> None:
    remote = _filtered(host)
    with GitRemote(remote.url, host.credentials) as git_remote:
        tip = git_remote.fetch_branch("main")
        assert tip.tree_id not in git_remote.repo.odb  # the commit came alone
        files = list_files(git_remote.repo, subtree(git_remote.repo, tip.tree, "envs/prod-eu"))
        assert set(files) == {"shop/values.yaml"}
        values = files["shop/values.yaml"].oid
        assert values not in git_remote.repo.odb  # promised, not fetched yet
        assert b"tag: 1.4.1" in git_remote.repo[values].peel(pygit2.Blob).data


def test_a_server_that_allows_blob_filters_only_gets_blob_none(host: GitHost) -> None:
    remote = _filtered(host)
    _blob_filter_only(remote)
    with GitRemote(remote.url, host.credentials) as git_remote:
        result = promote(git_remote, shop_request(remote))
        assert git_remote.wire is not None and git_remote.wire.refused == {gitwire.TREELESS}
    assert result.changed and remote.head() == result.commit
    assert yaml.safe_load(remote.show("envs/staging/shop/values.yaml"))["image"]["tag"] == "1.4.2"
    remote.assert_fsck()


def test_a_refused_tree_filter_is_never_asked_again_on_the_connection(host: GitHost) -> None:
    remote = _filtered(host)
    _blob_filter_only(remote)
    wire = gitwire.SmartHttp(remote.url, host.credentials.authorization())
    tip = remote.head()
    try:
        first = wire.fetch([tip], [], 1, gitwire.TREELESS)
        requests = host.server.stats.requests
        second = wire.fetch([tip], [], 1, gitwire.TREELESS)
    finally:
        wire.close()
    assert first.filter == second.filter == gitwire.BLOBLESS
    assert host.server.stats.requests == requests + 1  # asked once, with blob:none


def test_other_refusals_are_not_taken_for_a_tree_filter_refusal(host: GitHost) -> None:
    remote = _filtered(host)
    wire = gitwire.SmartHttp(remote.url, host.credentials.authorization())
    try:
        with pytest.raises(gitwire.WireError) as caught:
            wire.fetch(["1" * 40], [], 1, gitwire.TREELESS)
    finally:
        wire.close()
    assert "1" * 40 in str(caught.value) and wire.refused == set()


@pytest.fixture
def git_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GIT_USERNAME", USERNAME)
    monkeypatch.setenv("GIT_TOKEN", TOKEN)
    monkeypatch.delenv("PROMOFLOW_GIT_TRANSPORT", raising=False)


@pytest.mark.usefixtures("git_env")
def test_a_prefetch_on_a_blob_filter_server_falls_back_too(host: GitHost) -> None:
    remote = _filtered(host)
    _blob_filter_only(remote)
    prefetch = gitprefetch.start(remote.url, "main")
    assert prefetch is not None
    with GitRemote(remote.url, Credentials.from_env(), prefetch=prefetch) as git_remote:
        result = promote(git_remote, shop_request(remote))
    assert result.changed and remote.head() == result.commit
    assert prefetch.wire.refused == {gitwire.TREELESS}


def test_a_tree_that_fails_to_arrive_is_a_git_error(host: GitHost) -> None:
    remote = _filtered(host)
    with GitRemote(remote.url, host.credentials) as git_remote:
        tip = git_remote.fetch_branch("main")
        with pytest.raises(GitError, match="did not send the trees"):
            gitdirs.fetch_dirs(git_remote.repo, [(tip.tree_id, "envs")], lambda ids, below: None)


# -- the walk, against a repository that serves objects from memory ----------------------


def _source(files: dict[str, bytes], tmp: str) -> tuple[pygit2.Repository, pygit2.Oid]:
    repo = pygit2.init_repository(tmp, bare=True)
    index = pygit2.Index()
    for path, data in files.items():
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), FileMode.BLOB))
    return repo, index.write_tree(repo)


def _serving(
    source: pygit2.Repository, asked: list[tuple[list[str], bool]]
) -> tuple[pygit2.Repository, Callable[[list[str], bool], None]]:
    """An empty repository and a fetch from ``source`` that behaves as upload-pack does:
    a tree alone, or with every tree below it; each object once per answer."""
    local = pygit2.init_repository(f"{source.path}-local", bare=True)
    memory = gitobjects.MemoryObjects()
    local.odb.add_backend(memory, gitobjects.MemoryObjects.PRIORITY)

    def fetch(ids: list[str], below: bool) -> None:
        asked.append((ids, below))
        sent: set[pygit2.Oid] = set()

        def send(oid: pygit2.Oid, deep: bool) -> None:
            tree = source[oid].peel(pygit2.Tree)
            if oid in sent:
                return
            sent.add(oid)
            memory.add(gitobjects.gitpack.TREE, tree.read_raw())
            if deep:
                for entry in tree:
                    if entry.filemode == FileMode.TREE:
                        send(entry.id, True)

        for hex_id in ids:
            send(pygit2.Oid(hex=hex_id), below)

    return local, fetch


def test_the_walk_asks_once_per_level_and_the_last_with_what_is_below(tmp_path: object) -> None:
    source, root = _source(
        {
            "envs/dev/shop/values.yaml": b"dev\n",
            "envs/dev/shop/config/app.json": b"{}\n",
            "envs/staging/shop/values.yaml": b"staging\n",
            "envs/prod/shop/values.yaml": b"prod\n",
            "services/a/x.yaml": b"a\n",
        },
        f"{tmp_path}/source",
    )
    asked: list[tuple[list[str], bool]] = []
    local, fetch = _serving(source, asked)
    gitdirs.fetch_dirs(local, [(root, "envs/staging/shop"), (root, "envs/dev/shop")], fetch)

    def at(path: str) -> str:
        return str(source.revparse_single(f"{root}:{path}").id)

    assert asked == [
        ([str(root)], False),
        ([at("envs")], False),
        (sorted([at("envs/dev"), at("envs/staging")]), False),
        (sorted([at("envs/dev/shop"), at("envs/staging/shop")]), True),
    ]
    assert pygit2.Oid(hex=at("envs/dev/shop/config")) in local.odb
    assert pygit2.Oid(hex=at("envs/prod")) not in local.odb


def test_a_wanted_tree_inside_another_wanted_one_is_asked_for_again(tmp_path: object) -> None:
    """upload-pack sends an object once per pack: ``q`` is ``p/c``, so an answer to both
    that walks ``p`` first may leave ``q`` out; the walk then asks for it alone."""
    source, root = _source({"p/c/g/f": b"1\n", "q/g/f": b"1\n"}, f"{tmp_path}/source")
    asked: list[tuple[list[str], bool]] = []
    local, fetch = _serving(source, asked)

    def once_per_answer(ids: list[str], below: bool) -> None:
        p = str(source.revparse_single(f"{root}:p").id)
        q = str(source.revparse_single(f"{root}:q").id)
        fetch([i for i in ids if not (i == q and p in ids)], below)

    gitdirs.fetch_dirs(local, [(root, "p/c/g"), (root, "q/g")], once_per_answer)
    q_tree = source.revparse_single(f"{root}:q").id
    assert q_tree in local.odb
    assert [ids for ids, _ in asked].count([str(q_tree)]) == 1
