"""The promote step reads the image the promoted file names and hands it to the wait step
(outputs ``image`` and ``image-source``), against a real smart-HTTP remote.

It reads the target file as the promotion leaves it (edited, copied whole, or untouched
when nothing changed), so the image the gate checks is the one in the commit Argo CD
deploys; a file or value that cannot name an image stops the step before anything is
pushed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from orchestrator.imagespec import ImageSpec
from orchestrator.steps.edits import PromoteError
from orchestrator.steps.request import RequestError, parse_files
from tests.git.conftest import (
    VALUES_DEV,
    GitHost,
    promote_args,
    promote_direct,
    run_step,
    shop_repo,
    shop_request,
    step_json,
)

SPEC = ImageSpec(
    file="values.yaml",
    repository="registry.example.com/acme/fallback",
    repository_field="image.repository",
    tag_field="image.tag",
    source="values.yaml image.tag",
)


def test_the_step_outputs_the_image_of_the_promoted_file(host: GitHost, tmp_path: Path) -> None:
    remote = shop_repo(host)
    outputs = tmp_path / "out"

    result = step_json(
        run_step(
            *promote_args(remote, "--image", SPEC.to_json(), "--outputs", str(outputs)),
            env=host.env(),
        )
    )

    assert result["changed"] is True
    assert result["image"] == "registry.example.com/acme/shop:1.4.2"  # dev's tag, promoted
    assert result["image_source"] == "values.yaml image.tag"
    assert (outputs / "image").read_text() == "registry.example.com/acme/shop:1.4.2"
    assert (outputs / "image-source").read_text() == "values.yaml image.tag"

    again = step_json(run_step(*promote_args(remote, "--image", SPEC.to_json()), env=host.env()))

    assert again["changed"] is False  # nothing to commit: the image is still reported
    assert again["image"] == "registry.example.com/acme/shop:1.4.2"


def test_without_an_image_the_outputs_are_empty(host: GitHost, tmp_path: Path) -> None:
    remote = shop_repo(host)
    outputs = tmp_path / "out"
    result = step_json(run_step(*promote_args(remote, "--outputs", str(outputs)), env=host.env()))
    assert "image" not in result
    assert (outputs / "image").read_text() == ""
    assert (outputs / "image-source").read_text() == ""


def test_the_trigger_reads_the_version_it_wrote(host: GitHost) -> None:
    remote = shop_repo(host)
    request = shop_request(
        remote,
        environment="dev",
        source_environment=None,
        source_path=None,
        target_path="envs/dev/shop",
        version="1.5.0",
        image=SPEC.to_json(),
    )
    result = promote_direct(host, request)
    assert result.image is not None
    assert result.image.reference == "registry.example.com/acme/shop:1.5.0"


def test_a_file_copied_whole_is_read_as_copied(host: GitHost) -> None:
    remote = shop_repo(host)
    request = shop_request(
        remote, files=parse_files('[{"file": "values.yaml"}]'), image=SPEC.to_json()
    )
    result = promote_direct(host, request)
    assert result.image is not None
    assert result.image.reference == "registry.example.com/acme/shop:1.4.2"


def test_an_absent_repository_field_falls_back_and_a_digest_alone_is_its_own_source(
    host: GitHost,
) -> None:
    remote = shop_repo(host)
    digest = "sha256:" + "c" * 64
    remote.commit(
        {
            "envs/dev/shop/values.yaml": f"image:\n  digest: '{digest}'\n",
            "envs/staging/shop/values.yaml": "image:\n  digest: old\n",
        }
    )
    spec = ImageSpec("values.yaml", "ghcr.io/acme/shop", "image.repository", "image.tag",
                     "image.digest", "values.yaml image.tag")  # fmt: skip
    request = shop_request(
        remote,
        files=parse_files('[{"file": "values.yaml", "paths": ["image.digest"]}]'),
        version_file=None,
        version_path=None,
        image=spec.to_json(),
    )
    result = promote_direct(host, request)
    assert result.image is not None
    assert (result.image.reference, result.image.source) == (
        f"ghcr.io/acme/shop@{digest}",
        "values.yaml image.digest",
    )


def test_a_missing_image_file_stops_before_anything_is_pushed(host: GitHost) -> None:
    remote = shop_repo(host)
    before = remote.head()
    spec = ImageSpec("image.yaml", "ghcr.io/acme/shop", "", "tag", "", "image.yaml tag")
    with pytest.raises(PromoteError, match=r"envs/staging/shop/image\.yaml does not exist"):
        promote_direct(host, shop_request(remote, image=spec.to_json()))
    assert remote.head() == before


def test_a_value_that_makes_no_image_stops_before_anything_is_pushed(host: GitHost) -> None:
    remote = shop_repo(host)
    remote.commit({"envs/dev/shop/values.yaml": VALUES_DEV.replace("1.4.2", "1.4 beta")})
    before = remote.head()
    with pytest.raises(PromoteError, match=r"'registry.example.com/acme/shop:1.4 beta'"):
        promote_direct(host, shop_request(remote, image=SPEC.to_json()))
    assert remote.head() == before


def test_an_image_option_that_is_not_a_spec_is_a_usage_error(host: GitHost) -> None:
    remote = shop_repo(host)
    bad = json.dumps({"file": "values.yaml", "repository": "ghcr.io/acme/shop"})
    result = run_step(*promote_args(remote, "--image", bad), env=host.env())
    assert result.returncode == 2, result.stderr
    assert "--image is not an image spec: give 'tagField' or 'digestField'" in result.stderr
    with pytest.raises(RequestError, match="--image is not an image spec: not valid JSON"):
        shop_request(remote, image="{")
