"""PromotionTemplate rules that say how a value is found: a Kustomize image by name, the
version's path or image, and ``create``; each mistake is refused where it is written."""

from __future__ import annotations

import pytest

from tests.unit.conftest import Workspace

HEAD = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionTemplate
metadata: {name: k}
spec:
"""


@pytest.mark.parametrize(
    ("spec", "problems"),
    [
        (
            "  files:\n    - {file: k.yaml, paths: [a], kustomizeImage: {name: web}}\n",
            [
                "t.yaml:6:7: error: spec.files[0]: give either 'paths' or 'kustomizeImage', "
                "not both",
            ],
        ),
        (
            "  files:\n    - {file: k.yaml, create: true}\n",
            [
                "t.yaml:6:7: error: spec.files[0]: 'create' applies to 'paths' (a Kustomize image "
                "entry is always added when missing; a whole file is always copied)",
            ],
        ),
        (
            "  files:\n    - {file: k.yaml, kustomizeImage: {name: 'a b'}}\n",
            [
                "t.yaml:6:39: error: spec.files[0].kustomizeImage.name: 'a b' is not an image name "
                "(e.g. ghcr.io/acme/web)",
            ],
        ),
        (
            "  files:\n    - {file: k.yaml, kustomizeImage: {nam: web}}\n",
            [
                "t.yaml:6:39: error: unknown field 'spec.files[0].kustomizeImage.nam' "
                "(did you mean 'name'?)",
                "t.yaml:6:22: error: missing required field 'spec.files[0].kustomizeImage.name'",
            ],
        ),
        (
            "  versionSource: {file: k.yaml}\n  files: [{file: k.yaml}]\n",
            [
                "t.yaml:5:3: error: spec.versionSource: give either 'path' or 'kustomizeImage' "
                "(where the version is)",
            ],
        ),
        (
            "  versionSource: {file: k.yaml, path: a, kustomizeImage: {name: web}}\n"
            "  files: [{file: k.yaml}]\n",
            [
                "t.yaml:5:3: error: spec.versionSource: give either 'path' or 'kustomizeImage' "
                "(where the version is)",
            ],
        ),
        (
            "  versionSource: {file: k.yaml, kustomizeImage: {name: web},"
            " fields: ['images[name=web].newTag']}\n  files: [{file: k.yaml}]\n",
            [
                "t.yaml:5:3: error: spec.versionSource: the version's own path is not one of its "
                "fields",
            ],
        ),
    ],
    ids=["both", "create-without-paths", "image-name", "typo", "neither", "path-and-image",
         "version-as-field"],
)  # fmt: skip
def test_rules_are_checked_where_written(ws: Workspace, spec: str, problems: list[str]) -> None:
    ws.write("t.yaml", HEAD + spec)
    assert sorted(ws.problems()) == sorted(problems)


def test_a_kustomize_version_source_names_the_entrys_new_tag(ws: Workspace) -> None:
    ws.write(
        "t.yaml",
        HEAD + "  versionSource: {file: k.yaml, kustomizeImage: {name: ghcr.io/acme/web},"
        " fields: ['images[name=ghcr.io/acme/web].digest']}\n"
        "  files: [{file: k.yaml, kustomizeImage: {name: ghcr.io/acme/web}}]\n",
    )
    template = ws.config().templates["k"]
    source = template.spec.version_source
    assert source is not None
    assert source.version_path == "images[name=ghcr.io/acme/web].newTag"
    [rule] = template.spec.files
    assert not rule.whole_file and rule.kustomize_image is not None
