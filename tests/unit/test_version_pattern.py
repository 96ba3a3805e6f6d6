"""Which versions a template accepts (``versionSource.versionPattern``), checked before
anything changes: on the command line, and in the webhook service for direct requests, Git
pushes and image pushes."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.loading import load_config
from orchestrator.model.template import version_rule
from orchestrator.versionpattern import IMAGE_TAG, VersionRule, unsafe_character
from orchestrator.webhooks.events import Commit, GitPush, ImagePush, PromotionAsked, Refused
from orchestrator.webhooks.triggers import Plans, for_image, for_push, for_request, plans_of
from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke
from tests.webhooks.harness import config_text, github_push, harness, signed, values
from tests.webhooks.memory import DictReader

EXAMPLES = str(Path(__file__).resolve().parents[2] / "environments")
URL = "https://git.example.com/acme/gitops.git"
DIGEST = "sha256:" + "c" * 64
TAG = VersionRule(image_tag=True, template="helm", where="values.yaml image.tag")
SEMVER = r"v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?"


@pytest.mark.parametrize(
    ("version", "found"),
    [
        ("1.0 beta", (4, "a space")),
        ("1.0\tbeta", (4, "a tab")),
        ("1.0.0\n", (6, "U+000A")),
        ("\x1f2.0", (1, "U+001F")),
        ("1.0\u200b", (4, "U+200B")),  # zero-width space: invisible, a format character
        ("1.0\u3000", (4, "U+3000")),
        ("2.0\u202e", (4, "U+202E")),  # right-to-left override
        ("1.0.0", None),
        ("版本-1", None),
    ],
)
def test_whitespace_and_control_characters_are_found(
    version: str, found: tuple[int, str] | None
) -> None:
    assert unsafe_character(version) == found


@pytest.mark.parametrize("rule", [VersionRule(), TAG, VersionRule(r".*"), VersionRule(r"[\s\S]+")])
def test_whitespace_is_refused_whatever_the_pattern(rule: VersionRule) -> None:
    assert rule.refusal("1.0 beta") == (
        "version '1.0 beta' has a space at character 4: a version is written into files, "
        "image tags and names as is; give it without whitespace or control characters"
    )


@pytest.mark.parametrize(
    "tag", ["1.4.2", "v2.0.0-rc.1", "6063e25", "2026-11-27", "20261127.3", "1.4", "latest_x"]
)
def test_the_default_for_image_tags_accepts_what_real_tags_are(tag: str) -> None:
    assert TAG.refusal(tag) is None


@pytest.mark.parametrize("tag", ["1.0+build.7", "1.0/beta", ".hidden", "-rc", "a" * 129, "é1"])
def test_the_default_for_image_tags_refuses_what_no_registry_holds(tag: str) -> None:
    refusal = TAG.refusal(tag)
    assert refusal is not None
    assert refusal.startswith(f"version {tag!r} cannot be an image tag (written to values.yaml")
    assert "versionSource.versionPattern of template helm" in refusal


def test_a_version_that_is_no_image_tag_only_needs_to_be_clean() -> None:
    assert VersionRule().refusal("1.0+build.7") is None
    assert VersionRule().refusal("1.0 +build") is not None


def test_a_pattern_matches_the_whole_version() -> None:
    rule = VersionRule(SEMVER, image_tag=True, template="helm", where="values.yaml image.tag")
    assert rule.refusal("v1.2.3") is None and rule.refusal("1.2.3-rc.1") is None
    assert rule.refusal("1.2.3.4") == (
        f"version '1.2.3.4' does not match the versionPattern of template helm {SEMVER!r} "
        "(written to values.yaml image.tag)"
    )
    assert rule.refusal("6063e25") is not None  # the pattern, not the tag grammar, decides
    assert IMAGE_TAG.startswith("[a-zA-Z0-9_]")


TEMPLATE = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionTemplate
metadata: {{name: helm}}
spec:
  versionSource:
    file: values.yaml
    path: image.tag
    versionPattern: {pattern}
  files: [{{file: values.yaml}}]
"""


def test_a_pattern_that_does_not_compile_is_a_problem_at_the_field(ws: Workspace) -> None:
    (ws.root / "t.yaml").write_text(TEMPLATE.format(pattern="'v?(\\d+'"))
    [problem] = ws.problems()
    assert problem.startswith("t.yaml:8:5: error: ")
    assert "versionPattern 'v?(\\\\d+' is not a regular expression: missing )" in problem


def test_an_empty_pattern_is_a_problem(ws: Workspace) -> None:
    (ws.root / "t.yaml").write_text(TEMPLATE.format(pattern="''"))
    [problem] = ws.problems()
    assert "versionPattern is empty" in problem


def test_the_examples_write_their_versions_as_image_tags() -> None:
    config, _ = load_config(Path(EXAMPLES))
    for name in ("helm-values", "kustomize-image"):
        rule = version_rule(config.templates[name])
        assert rule.image_tag and rule.pattern is None
        assert rule.refusal("1.0+build") is not None


@pytest.mark.parametrize(
    ("version", "words"),
    [
        ("1.0 beta", "version '1.0 beta' has a space at character 4"),
        ("1.0+b", "version '1.0+b' cannot be an image tag (written to values.yaml image.tag)"),
    ],
)
def test_promote_refuses_the_version_before_anything_changes(version: str, words: str) -> None:
    result = invoke(
        "promote", "-c", EXAMPLES, "-p", "shop", "-v", version,
        "--set", f"image.digest={DIGEST}", "--dry-run",
    )  # fmt: skip
    assert_clean_failure(result, 2)
    [line] = result.lines
    assert line.startswith("error: Invalid value for --version: ")
    assert words in line


def test_a_short_commit_tag_is_promoted() -> None:
    result = invoke(
        "promote", "-c", EXAMPLES, "-p", "shop", "-v", "6063e25",
        "--set", f"image.digest={DIGEST}", "--dry-run",
    )  # fmt: skip
    assert result.code == 0, result.output


# -- webhooks --------------------------------------------------------------------------------


def _plans(tmp_path: Path, triggers: str = "") -> Plans:
    text = config_text(URL, ("shop",), triggers).replace(
        "fields: [image.digest]}", f"fields: [image.digest], versionPattern: '{SEMVER}'}}"
    )
    assert "versionPattern" in text
    (tmp_path / "c.yaml").write_text(text)
    config, problems = load_config(tmp_path / "c.yaml")
    assert not [p for p in problems if p.severity == "error"], problems
    return plans_of(config)


def test_a_direct_request_for_a_refused_version_is_a_422(tmp_path: Path) -> None:
    plans = _plans(tmp_path)
    with pytest.raises(Refused) as refused:
        for_request(PromotionAsked("shop", "1.0 beta", fields={"image.digest": DIGEST}), plans)
    assert refused.value.status == 422
    assert refused.value.reason.startswith("shop: version '1.0 beta' has a space")
    with pytest.raises(Refused, match="does not match the versionPattern of template helm"):
        for_request(PromotionAsked("shop", "1.0", fields={"image.digest": DIGEST}), plans)
    accepted = for_request(PromotionAsked("shop", "1.0.0", fields={"image.digest": DIGEST}), plans)
    assert [s.version for s in accepted.starts] == ["1.0.0"]


def test_a_git_push_of_a_refused_version_is_refused_with_the_file(tmp_path: Path) -> None:
    after = "2" * 40
    push = GitPush(
        repositories=(URL,), branch="main", before="1" * 40, after=after,
        commits=(Commit(after, "Release", ("envs/dev/shop/values.yaml",)),), pusher="alice",
    )  # fmt: skip
    reader = DictReader(files={(after, "envs/dev/shop/values.yaml"): values("1.0 beta").decode()})
    outcome = for_push(push, _plans(tmp_path), reader)
    assert outcome.starts == ()
    [skip] = outcome.skips
    assert skip.refused and skip.status == 422
    assert skip.reason.startswith(
        f"envs/dev/shop/values.yaml@{after[:12]}: version '1.0 beta' has a space"
    )


def test_an_image_push_promotes_the_tag_the_pattern_accepts(tmp_path: Path) -> None:
    triggers = (
        "triggers:\n  images: [{repository: docker.io/acme/shop, digestField: image.digest}]\n"
    )
    plans = _plans(tmp_path, triggers)
    [start] = for_image(
        ImagePush("docker.io/acme/shop", ("6063e25", "1.5.0"), DIGEST), plans
    ).starts
    assert start.version == "1.5.0"
    # a commit tag alone is no version: nothing to promote, and no error for the registry
    only = for_image(ImagePush("docker.io/acme/shop", ("6063e25",), DIGEST), plans)
    assert only.starts == ()
    [skip] = only.skips
    assert not skip.refused and "does not match the versionPattern" in skip.reason


def test_the_service_answers_a_push_of_a_refused_version_with_422(tmp_path: Path) -> None:
    path = "envs/dev/shop/values.yaml"
    with harness(tmp_path) as hub:
        before, after = hub.push({path: values("1.0 beta", DIGEST)}, "Release shop")
        body = github_push(hub.repo_url, before, after, [(after, "Release", [path])])
        reply = hub.post("/webhooks/github", body, signed(body))
        assert reply.status_code == 422, reply.text
        assert "version '1.0 beta' has a space at character 4" in reply.json()["message"]
        assert hub.created() == []
