"""Which image a template's version is (``spec.image``, or a Kustomize image rule), resolved
to the one ImageSpec every step reads; ``verify: {images: false}``; where the plan checks.

The spec decides what the gate compares with what runs: a default taken from the wrong
field, or a check that silently never runs, would make "promoted" mean "committed" again.
"""

from __future__ import annotations

from typing import Any

import pytest

from orchestrator.graph.plan import plan_product
from orchestrator.imagespec import ImageSpec, ImageSpecError, kustomize_image_spec, read_image
from orchestrator.model import Environment, PromotionPolicy
from orchestrator.model.merge import merge
from orchestrator.model.template import PromotionTemplateSpec, image_spec
from tests.unit.conftest import Workspace
from tests.unit.invoke import invoke

SHA = "sha256:" + "ab" * 32


def _spec(**spec: Any) -> PromotionTemplateSpec:
    return PromotionTemplateSpec.model_validate(
        {"files": [{"file": "values.yaml", "paths": ["image.tag"]}], **spec}
    )


def test_no_image_means_nothing_to_check() -> None:
    assert image_spec(_spec(versionSource={"file": "values.yaml", "path": "image.tag"})) is None


def test_the_tag_field_defaults_to_the_version_source() -> None:
    spec = _spec(
        versionSource={"file": "values.yaml", "path": "image.tag", "fields": ["image.digest"]},
        image={"repository": "ghcr.io/acme/web", "digestField": "image.digest"},
    )
    assert image_spec(spec) == ImageSpec(
        file="values.yaml",
        repository="ghcr.io/acme/web",
        tag_field="image.tag",
        digest_field="image.digest",
        source="values.yaml image.tag",
    )


def test_everything_written_out() -> None:
    spec = _spec(
        image={
            "repositoryField": "app.image.repository",
            "file": "app.yaml",
            "digestField": "app.image.digest",
        }
    )
    assert image_spec(spec) == ImageSpec(
        file="app.yaml",
        repository_field="app.image.repository",
        digest_field="app.image.digest",
        source="app.yaml app.image.digest",
    )


def test_the_spec_travels_as_the_json_the_design_names() -> None:
    spec = ImageSpec("values.yaml", "ghcr.io/acme/web", "", "image.tag", "image.digest", "s")
    assert spec.to_json() == (
        '{"file":"values.yaml","repository":"ghcr.io/acme/web","repositoryField":"",'
        '"tagField":"image.tag","digestField":"image.digest","source":"s"}'
    )
    assert ImageSpec.from_json(spec.to_json()) == spec


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("[]", "JSON object of texts"),
        ('{"file": 1}', "JSON object of texts"),
        ("{", "not valid JSON"),
        ('{"file": "v.yaml", "tagfield": "x"}', "unknown field 'tagfield'"),
        ('{"repository": "a", "tagField": "t"}', "'file' is required"),
        ('{"file": "v.yaml", "tagField": "t"}', "'repository' or 'repositoryField'"),
        ('{"file": "v.yaml", "repository": "a"}', "'tagField' or 'digestField'"),
        ('{"file": "v.yaml", "repository": "A B", "tagField": "t"}', "repository 'A B'"),
    ],
)
def test_a_step_refuses_what_is_not_a_spec(text: str, said: str) -> None:
    with pytest.raises(ImageSpecError, match=said):
        ImageSpec.from_json(text)


def _lookup(values: dict[str, str]) -> Any:
    return values.get


def test_reading_the_image_from_a_promoted_file() -> None:
    spec = ImageSpec("values.yaml", "ghcr.io/acme/web", "image.repository", "image.tag",
                     "image.digest", "values.yaml image.tag")  # fmt: skip
    assert read_image(spec, _lookup({"image.tag": "2.0"})) is not None
    image = read_image(spec, _lookup({"image.tag": "2.0", "image.digest": SHA}))
    assert image is not None
    assert (image.reference, image.source) == (
        f"ghcr.io/acme/web:2.0@{SHA}",
        "values.yaml image.tag",
    )
    moved = read_image(spec, _lookup({"image.repository": "ghcr.io/acme/web2", "image.tag": "2"}))
    assert moved is not None and moved.reference == "ghcr.io/acme/web2:2"
    digest_only = read_image(spec, _lookup({"image.digest": SHA}))
    assert digest_only is not None
    assert (digest_only.reference, digest_only.source) == (
        f"ghcr.io/acme/web@{SHA}",
        "values.yaml image.digest",
    )
    assert read_image(spec, _lookup({})) is None  # nothing written: nothing to check


def test_a_value_that_is_no_tag_is_an_error_naming_the_fields() -> None:
    spec = ImageSpec(
        "values.yaml", "ghcr.io/acme/web", "", "image.tag", "", "values.yaml image.tag"
    )
    with pytest.raises(
        ImageSpecError, match=r"values.yaml: 'ghcr.io/acme/web:2 0' \(from image.tag\)"
    ):
        read_image(spec, _lookup({"image.tag": "2 0"}))


def test_a_kustomize_image_rule_reads_the_images_entry_of_its_name() -> None:
    spec = kustomize_image_spec("ghcr.io/acme/web")
    assert spec == ImageSpec(
        file="kustomization.yaml",
        repository="ghcr.io/acme/web",
        repository_field="images[name=ghcr.io/acme/web].newName",
        tag_field="images[name=ghcr.io/acme/web].newTag",
        digest_field="images[name=ghcr.io/acme/web].digest",
        source="kustomization.yaml images[name=ghcr.io/acme/web].newTag",
    )
    # no newName: the repository is the rule's name, as kustomize keeps it
    image = read_image(spec, _lookup({spec.tag_field: "2.0"}))
    assert image is not None and image.reference == "ghcr.io/acme/web:2.0"
    assert kustomize_image_spec('we"b]').tag_field == 'images[name="we\\"b]"].newTag'


# --- validation, where a user fixes it -----------------------------------------------------

TEMPLATE = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionTemplate
metadata: {{name: helm}}
spec:
{source}  files:
    - {{file: values.yaml, paths: [image.tag]}}
  image:
{image}"""
SOURCE = "  versionSource: {file: values.yaml, path: image.tag}\n"


@pytest.mark.parametrize(
    ("source", "image", "problem"),
    [
        (SOURCE, "    repository: ghcr.io/acme/web:2.0\n",
         "template.yaml:9:5: error: spec.image.repository: 'ghcr.io/acme/web:2.0' is not an "
         "image repository (as ghcr.io/acme/web): a repository is named without a tag or digest"),
        (SOURCE, "    repository: Ghcr.io/Acme/web\n",
         "template.yaml:9:5: error: spec.image.repository: 'Ghcr.io/Acme/web' is not an image "
         "repository (as ghcr.io/acme/web): invalid reference format: repository name "
         "(Acme/web) must be lowercase"),
        (SOURCE, "    tagField: image.tag\n",
         "template.yaml:8:3: error: spec.image: give 'repository' (ghcr.io/acme/web) or "
         "'repositoryField'"),
        (SOURCE, "    repository: ghcr.io/acme/web\n    tagField: image..tag\n",
         "template.yaml:10:5: error: spec.image.tagField: invalid YAML path 'image..tag' at "
         "character 7: expected a key (letters, digits, '_', '-', '/', or a quoted key)"),
        (SOURCE, "    repository: ghcr.io/acme/web\n    file: '*.yaml'\n",
         "template.yaml:10:5: error: spec.image.file: '*.yaml': the image is read from one "
         "file, not a pattern"),
        (SOURCE, "    repository: ghcr.io/acme/web\n    file: other.yaml\n",
         "template.yaml:8:3: error: spec.image: give tagField or digestField (the version is "
         "written to values.yaml, not other.yaml)"),
        ("", "    repository: ghcr.io/acme/web\n    tagField: image.tag\n",
         "template.yaml:7:3: error: spec.image: 'file' is required: the template has no "
         "versionSource to take it from"),
        ("", "    repository: ghcr.io/acme/web\n    file: values.yaml\n",
         "template.yaml:7:3: error: spec.image: give tagField or digestField"),
        (SOURCE, "    repository: ghcr.io/acme/web\n    tag: image.tag\n",
         "template.yaml:10:5: error: unknown field 'spec.image.tag'"),
    ],
)  # fmt: skip
def test_an_image_that_cannot_be_resolved_is_an_error_at_its_field(
    ws: Workspace, source: str, image: str, problem: str
) -> None:
    ws.write_base()
    ws.write("template.yaml", TEMPLATE.format(source=source, image=image))
    assert ws.problems() == [problem]


def test_the_example_template_names_its_image() -> None:
    result = invoke("graph", "-c", "environments", "-p", "shop")
    assert result.code == 0, result.output
    for line in result.stdout.splitlines()[1:5]:
        assert "health" in line and line.count("image ghcr.io/acme/shop") == 1, line


# --- verify: {images: false} ---------------------------------------------------------------


def _env(production: bool = False) -> Environment:
    return Environment.model_validate(
        {"metadata": {"name": "prod" if production else "dev"}, "spec": {"production": production}}
    )


def _policy(name: str, priority: int = 0, **policy: Any) -> PromotionPolicy:
    return PromotionPolicy.build(name, priority=priority, policy=policy)


def test_images_are_checked_by_default() -> None:
    effective, _ = merge([], "shop", _env())
    assert effective.verifies and effective.verify_images


def test_images_false_keeps_the_wait_and_drops_the_check() -> None:
    effective, conflicts = merge([_policy("p", verify={"images": False})], "shop", _env())
    assert conflicts == []
    assert effective.verifies and not effective.verify_images
    assert set(effective.gates) == {"sync", "health"}


def test_verify_false_drops_both() -> None:
    effective, _ = merge([_policy("p", verify=False)], "shop", _env())
    assert not effective.verifies and not effective.verify_images


def test_true_and_images_true_are_one_setting() -> None:
    policies = [_policy("a", verify=True), _policy("b", verify={"images": True})]
    effective, conflicts = merge(policies, "shop", _env())
    assert conflicts == [] and effective.verify_images


def test_equal_priorities_that_disagree_on_images_conflict() -> None:
    policies = [_policy("a", verify=True), _policy("b", verify={"images": False})]
    _, conflicts = merge(policies, "shop", _env())
    assert [c.unit for c in conflicts] == ["verify"]


def test_the_highest_priority_decides_and_the_step_overrides() -> None:
    policies = [_policy("low", verify=False), _policy("high", 10, verify={"images": False})]
    effective, _ = merge(policies, "shop", _env())
    assert effective.verifies and not effective.verify_images
    from orchestrator.model import PolicySpec

    step = PolicySpec.model_validate({"verify": True})
    effective, _ = merge(policies, "shop", _env(), step)
    assert effective.verifies and effective.verify_images


IMAGE = "  image: {repository: ghcr.io/acme/web}\n"


def _plan_checks(ws: Workspace, policy: str, image: str = IMAGE) -> dict[str, bool]:
    ws.write_base()
    ws.write(
        "template.yaml",
        "apiVersion: promoflow.dev/v1alpha1\nkind: PromotionTemplate\nmetadata: {name: helm}\n"
        "spec:\n" + SOURCE + "  files:\n    - {file: values.yaml, paths: [image.tag]}\n" + image,
    )
    if policy:
        ws.write(
            "policy.yaml",
            "apiVersion: promoflow.dev/v1alpha1\nkind: PromotionPolicy\nmetadata: {name: p}\n"
            "spec:\n  selector: {environments: {production: true}}\n"
            f"  policy: {policy}\n",
        )
    config, problems = ws.load()
    assert [p for p in problems if p.severity != "warning"] == []
    plan = plan_product(config, "shop")
    return {env.environment: env.checks_image for env in plan.environments}


def test_the_plan_checks_where_the_image_is_known_and_the_policy_waits(ws: Workspace) -> None:
    assert _plan_checks(ws, "") == {"dev": True, "staging": True, "prod": True}


def test_no_image_in_the_template_checks_nowhere(ws: Workspace) -> None:
    assert _plan_checks(ws, "", image="") == {"dev": False, "staging": False, "prod": False}


@pytest.mark.parametrize(
    "policy",
    ["{verify: {images: false}}", "{verify: false}", "{disableGates: [health]}", "{action: none}"],
)
def test_a_policy_turns_the_check_off_where_it_applies(ws: Workspace, policy: str) -> None:
    assert _plan_checks(ws, policy) == {"dev": True, "staging": True, "prod": False}


def test_the_demo_shows_a_stale_image_only_where_the_image_is_checked(ws: Workspace) -> None:
    unknown = invoke("demo", "--stale-image", "qa")
    assert unknown.code == 2 and "'qa' is not in the flow of shop" in unknown.stderr
    _plan_checks(ws, "{verify: {images: false}}")
    unchecked = invoke("demo", "-c", ".", "--stale-image", "prod")
    assert unchecked.code == 2
    assert "'prod' does not check its image" in unchecked.stderr


def test_a_kustomize_image_rule_names_the_image_unless_image_is_written() -> None:
    """Which rule names the image: an explicit ``image:`` wins; else the versionSource's
    Kustomize image rule; else the only file rule that is one (two: not known). Rules are
    read by their ``kustomize_image`` attribute, as the template model carries them."""
    from types import SimpleNamespace

    from orchestrator.model.template import kustomize_image_name

    def rule(file: str, name: str | None) -> SimpleNamespace:
        image = SimpleNamespace(name=name) if name else None
        return SimpleNamespace(file=file, kustomize_image=image)

    web, api = "ghcr.io/acme/web", "ghcr.io/acme/api"
    source = SimpleNamespace(
        file="kustomization.yaml", path=None, kustomize_image=SimpleNamespace(name=web)
    )
    ns = SimpleNamespace
    cases = [
        (ns(version_source=source, files=[rule("k.yaml", api)]), ("kustomization.yaml", web)),
        (ns(version_source=None, files=[rule("k.yaml", api), rule("v.yaml", None)]),
         ("k.yaml", api)),
        (ns(version_source=None, files=[rule("k.yaml", api), rule("o.yaml", web)]), None),
        (ns(version_source=None, files=[rule("v.yaml", None)]), None),
    ]  # fmt: skip
    for spec, expected in cases:
        assert kustomize_image_name(spec) == expected  # type: ignore[arg-type]
    explicit = SimpleNamespace(image=None, version_source=source, files=[])
    assert image_spec(explicit) == kustomize_image_spec(web)  # type: ignore[arg-type]
