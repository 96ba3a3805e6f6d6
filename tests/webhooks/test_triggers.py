"""Which promotions an event starts: the rules of ``Product.spec.triggers``, over plain
values (the Git reads come from dictionaries)."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.loading import load_config
from orchestrator.webhooks.events import Commit, GitPush, ImagePush, PromotionAsked, Refused
from orchestrator.webhooks.triggers import (
    Plans,
    for_image,
    for_push,
    for_request,
    plans_of,
    same_repo,
)
from tests.webhooks.harness import config_text, values
from tests.webhooks.memory import DictReader

URL = "https://git.example.com/acme/gitops.git"
BEFORE, AFTER = "1" * 40, "2" * 40
DIGEST = "sha256:" + "c" * 64


def _config(
    tmp_path: Path, triggers: str = "", products: tuple[str, ...] = ("cart", "shop")
) -> Plans:
    (tmp_path / "c.yaml").write_text(config_text(URL, products, triggers))
    config, problems = load_config(tmp_path / "c.yaml")
    assert not [p for p in problems if p.severity == "error"], problems
    return plans_of(config)


def _push(paths: list[str], *, complete: bool = True, message: str = "Release") -> GitPush:
    return GitPush(
        repositories=("git@git.example.com:acme/gitops.git",),
        branch="main",
        before=BEFORE,
        after=AFTER,
        commits=(Commit(AFTER, message, tuple(paths)),),
        complete=complete,
        pusher="alice",
    )


def _reader(**files: str) -> DictReader:
    return DictReader(
        files={(AFTER, f"envs/dev/{p}/values.yaml"): t for p, t in files.items()},
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("https://git.example.com/acme/gitops.git", "git@git.example.com:acme/gitops"),
        (
            "https://user@Git.Example.com/acme/gitops/",
            "ssh://git@git.example.com:22/acme/gitops.git",
        ),
        ("http://127.0.0.1:8080/gitops.git", "http://127.0.0.1:8080/gitops"),
    ],
)
def test_one_repository_however_it_is_addressed(a: str, b: str) -> None:
    assert same_repo(a, b)
    assert not same_repo(a, "https://git.example.com/acme/other.git")


def test_the_version_is_read_at_the_pushed_commit(tmp_path: Path) -> None:
    reader = _reader(shop=values("1.7.0", DIGEST).decode())
    outcome = for_push(_push(["envs/dev/shop/values.yaml"]), _config(tmp_path), reader)
    [start] = outcome.starts
    assert (start.product, start.version, start.source_commit) == ("shop", "1.7.0", AFTER)
    assert start.fields == {"image.digest": DIGEST}
    assert start.requested_by == "alice"
    assert "changed envs/dev/shop" in start.cause
    assert reader.calls == [f"read {AFTER}:envs/dev/shop/values.yaml"]  # no git diff needed


def test_an_incomplete_payload_asks_git_for_the_changed_paths(tmp_path: Path) -> None:
    reader = _reader(cart=values("2.0.0").decode())
    reader.changes[(BEFORE, AFTER)] = {"envs/dev/cart/values.yaml", "README.md"}
    outcome = for_push(_push([], complete=False), _config(tmp_path), reader)
    assert [(s.product, s.version) for s in outcome.starts] == [("cart", "2.0.0")]
    assert f"changed {BEFORE}..{AFTER}" in reader.calls
    assert {s.product for s in outcome.skips} == {"shop"}


def test_a_version_file_without_the_version_is_skipped_with_the_reason(tmp_path: Path) -> None:
    reader = _reader(shop="image:\n  tag: ''\n  digest: x\n")
    outcome = for_push(_push(["envs/dev/shop/values.yaml"]), _config(tmp_path), reader)
    assert not outcome.starts
    assert "image.tag holds no version" in outcome.reason
    missing = for_push(_push(["envs/dev/shop/x"]), _config(tmp_path), DictReader())
    assert "values.yaml does not exist at 222222222222" in missing.reason


def test_a_product_can_turn_automatic_promotion_off(tmp_path: Path) -> None:
    config = _config(tmp_path, "triggers: {enabled: false}\n")
    reader = _reader(shop=values("1.7.0").decode())
    outcome = for_push(_push(["envs/dev/shop/values.yaml"]), config, reader)
    assert not outcome.starts
    assert "shop: automatic promotion is off" in outcome.reason
    asked = for_request(PromotionAsked("shop", "1.7.0", fields={"image.digest": DIGEST}), config)
    assert not asked.starts and "automatic promotion is off" in asked.reason


def test_git_triggers_alone_can_be_turned_off(tmp_path: Path) -> None:
    config = _config(tmp_path, "triggers: {git: false}\n")
    outcome = for_push(_push(["envs/dev/shop/values.yaml"]), config, _reader())
    assert "promotion on Git pushes is off" in outcome.reason


def test_only_promoflows_own_commits_are_ignored(tmp_path: Path) -> None:
    own = "Promote shop 1.7.0 to dev\n\nPromotion-Run: shop-1-7-0-abcdef12\n"
    reader = _reader(shop=values("1.7.0").decode())
    config = _config(tmp_path)
    ignored = for_push(_push(["envs/dev/shop/values.yaml"], message=own), config, reader)
    assert not ignored.starts and "promoflow's own" in ignored.reason
    mixed = _push(["envs/dev/shop/values.yaml"], message=own)
    mixed = GitPush(
        mixed.repositories, "main", BEFORE, AFTER,
        (*mixed.commits, Commit("3" * 40, "bump by hand", ("envs/dev/shop/values.yaml",))),
    )  # fmt: skip
    assert for_push(mixed, config, reader).starts
    reader.messages[AFTER] = own  # a payload without commits: the head is read in Git
    reader.changes[(BEFORE, AFTER)] = {"envs/dev/shop/values.yaml"}
    bare = GitPush(mixed.repositories, "main", BEFORE, AFTER, (), complete=False)
    truncated = for_push(bare, config, reader)
    assert not truncated.starts and "promoflow's own" in truncated.reason


IMAGE_TRIGGERS = """\
triggers:
  images:
    - {repository: ghcr.io/acme/shop, semver: "^1.4", digestField: image.digest}
"""


def test_an_image_push_promotes_the_best_tag_that_passes(tmp_path: Path) -> None:
    config = _config(tmp_path, IMAGE_TRIGGERS, products=("shop",))
    push = ImagePush("ghcr.io/Acme/Shop", ("latest", "1.4.9", "1.5.0", "2.0.0"), DIGEST, "ci")
    [start] = for_image(push, config).starts
    assert (start.product, start.version, start.fields) == (
        "shop",
        "1.5.0",
        {"image.digest": DIGEST},
    )
    refused = for_image(ImagePush("ghcr.io/acme/shop", ("2.0.0",), DIGEST), config)
    assert not refused.starts and "does not pass the filter '^1.4'" in refused.reason
    other = for_image(ImagePush("ghcr.io/acme/cart", ("1.5.0",), DIGEST), config)
    assert "no product has an image trigger for ghcr.io/acme/cart" in other.reason


def test_an_image_push_without_the_fields_the_version_needs_is_skipped(tmp_path: Path) -> None:
    config = _config(
        tmp_path, "triggers:\n  images: [{repository: acme/shop}]\n", products=("shop",)
    )
    outcome = for_image(ImagePush("docker.io/acme/shop", ("1.5.0",)), config)
    assert not outcome.starts
    assert "image.digest must come with the version" in outcome.reason


def test_a_direct_request_is_checked_against_the_configuration(tmp_path: Path) -> None:
    config = _config(tmp_path)
    [start] = for_request(
        PromotionAsked("shop", "1.8.0", "abc", "ci", {"image.digest": DIGEST}), config
    ).starts
    assert (start.version, start.source_commit, start.requested_by) == ("1.8.0", "abc", "ci")
    with pytest.raises(Refused, match=r"unknown product 'shp'.*did you mean 'shop'") as unknown:
        for_request(PromotionAsked("shp", "1.8.0"), config)
    assert unknown.value.status == 422
    with pytest.raises(Refused, match=r"needs fields with the version: image\.digest"):
        for_request(PromotionAsked("shop", "1.8.0"), config)
    with pytest.raises(Refused, match=r"has no version fields image\.size"):
        for_request(
            PromotionAsked("shop", "1", fields={"image.digest": "d", "image.size": "1"}), config
        )
