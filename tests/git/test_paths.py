"""Paths must exist: a mistyped YAML path stops every command before anything is pushed,
naming the file, the path and the nearest one that exists; items are selected by key, and
Kustomize images by name, so reordering a list cannot move a promotion onto another item.

Each command is run as users run it (``promoflow step promote`` as a workflow pod does,
``diff``, ``promote --local``, ``validate --repo-check``) against a real smart-HTTP remote.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from orchestrator.steps.edits import PromoteError
from orchestrator.steps.request import parse_files
from tests.git.conftest import (
    PROMOFLOW,
    GitHost,
    Remote,
    promote_direct,
    run_step,
    shop_request,
)

KUSTOMIZATION_DEV = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [../../base]
images:
  - name: ghcr.io/acme/web
    newTag: 2.0.0   # the release
  - name: ghcr.io/acme/worker
    newTag: 1.7.0
"""
KUSTOMIZATION_STAGING = """\
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [../../base]
images:
  # reordered by hand in staging
  - name: ghcr.io/acme/worker
    newTag: 1.6.0
  - name: ghcr.io/acme/web
    newTag: 1.9.0
"""


def kustomize_repo(host: GitHost, staging: str = KUSTOMIZATION_STAGING) -> Remote:
    remote = host.create()
    remote.commit(
        {
            "envs/dev/web/kustomization.yaml": KUSTOMIZATION_DEV,
            "envs/staging/web/kustomization.yaml": staging,
        }
    )
    return remote


def web_request(remote: Remote, files: str, **overrides: Any) -> Any:
    values: dict[str, Any] = {
        "product": "web",
        "source_path": "envs/dev/web",
        "target_path": "envs/staging/web",
        "files": parse_files(files),
        "version_file": None,
        "version_path": None,
    }
    values.update(overrides)
    return shop_request(remote, **values)


def staging_images(remote: Remote) -> list[dict[str, Any]]:
    images: list[dict[str, Any]] = yaml.safe_load(
        remote.show("envs/staging/web/kustomization.yaml")
    )["images"]
    return images


# -- typos are refused, with the nearest path ------------------------------------------------


@pytest.mark.parametrize(
    ("path", "message"),
    [
        (
            "images[0].newtag",
            "envs/dev/web/kustomization.yaml: YAML path 'images[0].newtag' not found: "
            "images[0] has no key 'newtag'; did you mean images[0].newTag?",
        ),
        (
            "image.newTag",
            "envs/dev/web/kustomization.yaml: YAML path 'image.newTag' not found: the "
            "document has no key 'image'; did you mean images[0].newTag?",
        ),
        (
            "images[name=ghcr.io/acme/wbe].newTag",
            "envs/dev/web/kustomization.yaml: YAML path 'images[name=ghcr.io/acme/wbe].newTag' "
            "not found: images has no item with name='ghcr.io/acme/wbe'; did you mean "
            "images[name=ghcr.io/acme/web].newTag?",
        ),
    ],
)
def test_a_typo_in_a_path_is_refused_and_the_remote_is_unchanged(
    host: GitHost, path: str, message: str
) -> None:
    remote = kustomize_repo(host)
    head = remote.head()
    files = f'[{{"file": "kustomization.yaml", "paths": ["{path}"]}}]'
    with pytest.raises(PromoteError) as exc:
        promote_direct(host, web_request(remote, files))
    assert str(exc.value) == message
    assert remote.head() == head and remote.count() == 1


def test_a_path_only_the_target_lacks_is_refused_naming_the_target(host: GitHost) -> None:
    remote = kustomize_repo(host)
    head = remote.head()
    dev = KUSTOMIZATION_DEV.replace("resources:", "namePrefix: dev-\nresources:")
    remote.commit({"envs/dev/web/kustomization.yaml": dev})
    head = remote.head()
    files = '[{"file": "kustomization.yaml", "paths": ["namePrefix"]}]'
    with pytest.raises(PromoteError) as exc:
        promote_direct(host, web_request(remote, files))
    assert str(exc.value) == (
        "envs/staging/web/kustomization.yaml: YAML path 'namePrefix' not found: the document "
        "has no key 'namePrefix'"
    )
    assert remote.head() == head


def test_create_lets_a_rule_add_what_the_target_lacks(host: GitHost) -> None:
    remote = kustomize_repo(host)
    dev = KUSTOMIZATION_DEV.replace("resources:", "namePrefix: web-\nresources:")
    remote.commit({"envs/dev/web/kustomization.yaml": dev})
    files = '[{"file": "kustomization.yaml", "paths": ["namePrefix"], "create": true}]'
    result = promote_direct(host, web_request(remote, files))
    assert result.changed
    staging = yaml.safe_load(remote.show("envs/staging/web/kustomization.yaml"))
    assert staging["namePrefix"] == "web-"
    assert staging["images"] == yaml.safe_load(KUSTOMIZATION_STAGING)["images"]


# -- items by key -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "files",
    [
        '[{"file": "kustomization.yaml", "paths": ["images[name=ghcr.io/acme/web].newTag"]}]',
        '[{"file": "kustomization.yaml", "kustomizeImage": {"name": "ghcr.io/acme/web"}}]',
    ],
    ids=["selector", "kustomize-image"],
)
def test_a_reordered_list_still_promotes_the_named_image(host: GitHost, files: str) -> None:
    remote = kustomize_repo(host)
    result = promote_direct(host, web_request(remote, files))
    assert result.changed
    assert staging_images(remote) == [
        {"name": "ghcr.io/acme/worker", "newTag": "1.6.0"},
        {"name": "ghcr.io/acme/web", "newTag": "2.0.0"},
    ]
    text = remote.show("envs/staging/web/kustomization.yaml")
    assert text == KUSTOMIZATION_STAGING.replace("newTag: 1.9.0", "newTag: 2.0.0")


def test_an_index_follows_the_position_not_the_image(host: GitHost) -> None:
    """What selecting by key prevents: ``images[0]`` is the worker in staging."""
    remote = kustomize_repo(host)
    files = '[{"file": "kustomization.yaml", "paths": ["images[0].newTag"]}]'
    promote_direct(host, web_request(remote, files))
    assert staging_images(remote)[0] == {"name": "ghcr.io/acme/worker", "newTag": "2.0.0"}


KUSTOMIZE_WEB = '[{"file": "kustomization.yaml", "kustomizeImage": {"name": "ghcr.io/acme/web"}}]'


def test_a_kustomize_image_entry_is_added_when_the_overlay_has_none(host: GitHost) -> None:
    staging = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n"
    staging += "resources: [../../base]\n"
    remote = kustomize_repo(host, staging)
    promote_direct(host, web_request(remote, KUSTOMIZE_WEB))
    assert staging_images(remote) == [{"name": "ghcr.io/acme/web", "newTag": "2.0.0"}]


def test_tag_and_digest_move_together_and_new_name_stays(host: GitHost) -> None:
    dev = KUSTOMIZATION_DEV.replace(
        "    newTag: 2.0.0   # the release\n", "    digest: sha256:1234\n"
    )
    staging = KUSTOMIZATION_STAGING.replace(
        "  - name: ghcr.io/acme/web\n    newTag: 1.9.0\n",
        "  - name: ghcr.io/acme/web\n    newName: mirror.eu/acme/web\n    newTag: 1.9.0\n",
    )
    remote = kustomize_repo(host, staging)
    remote.commit({"envs/dev/web/kustomization.yaml": dev})
    promote_direct(host, web_request(remote, KUSTOMIZE_WEB))
    web = next(i for i in staging_images(remote) if i["name"] == "ghcr.io/acme/web")
    # the digest is the version now: a tag left beside it would be written name:tag@digest
    assert web == {
        "name": "ghcr.io/acme/web",
        "newName": "mirror.eu/acme/web",
        "digest": "sha256:1234",
    }


def test_a_missing_kustomize_image_in_the_source_is_refused_with_the_names_there(
    host: GitHost,
) -> None:
    remote = kustomize_repo(host)
    head = remote.head()
    files = '[{"file": "kustomization.yaml", "kustomizeImage": {"name": "ghcr.io/acme/wbe"}}]'
    with pytest.raises(PromoteError, match=re.escape("did you mean images[name=ghcr.io/acme/web]")):
        promote_direct(host, web_request(remote, files))
    assert remote.head() == head


def test_the_version_is_a_kustomize_images_new_tag_and_a_stale_digest_goes(
    host: GitHost,
) -> None:
    dev = KUSTOMIZATION_DEV.replace(
        "    newTag: 2.0.0   # the release\n", "    newTag: 2.0.0\n    digest: sha256:old\n"
    )
    remote = kustomize_repo(host)
    remote.commit({"envs/dev/web/kustomization.yaml": dev})
    request = web_request(
        remote,
        KUSTOMIZE_WEB,
        environment="dev",
        source_environment=None,
        source_path=None,
        target_path="envs/dev/web",
        version="2.1.0",
        version_file="kustomization.yaml",
        version_path="images[name=ghcr.io/acme/web].newTag",
        version_kustomize_image="ghcr.io/acme/web",
    )
    promote_direct(host, request)
    images = yaml.safe_load(remote.show("envs/dev/web/kustomization.yaml"))["images"]
    assert images[0] == {"name": "ghcr.io/acme/web", "newTag": "2.1.0"}
    assert images[1] == {"name": "ghcr.io/acme/worker", "newTag": "1.7.0"}


# -- every command refuses the typo -----------------------------------------------------------

CONFIG = """\
apiVersion: promoflow.dev/v1alpha1
kind: Environment
metadata: {{name: dev}}
---
apiVersion: promoflow.dev/v1alpha1
kind: Environment
metadata: {{name: staging}}
---
apiVersion: promoflow.dev/v1alpha1
kind: PromotionFlow
metadata: {{name: standard}}
spec:
  trigger: dev
  steps:
    - {{environment: staging, dependsOn: [dev]}}
---
apiVersion: promoflow.dev/v1alpha1
kind: PromotionTemplate
metadata: {{name: kustomize}}
spec:
  versionSource: {{file: kustomization.yaml, path: "{version_path}"}}
  files:
    - file: kustomization.yaml
      paths: ["{path}"]
---
apiVersion: promoflow.dev/v1alpha1
kind: Product
metadata: {{name: web}}
spec:
  repo: {{url: "{url}"}}
  flow: standard
  template: kustomize
---
apiVersion: promoflow.dev/v1alpha1
kind: PromotionPolicy
metadata: {{name: unverified}}
spec:
  policy: {{verify: false}}
"""
TYPO = "images[0].newtag"
DID_YOU_MEAN = "did you mean images[0].newTag?"


def write_config(
    tmp_path: Path, remote: Remote, path: str = TYPO, version_path: str = TYPO
) -> Path:
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "web.yaml").write_text(
        CONFIG.format(url=remote.url, path=path, version_path=version_path)
    )
    return config


def promoflow(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PROMOFLOW), *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def assert_refused_unchanged(
    result: subprocess.CompletedProcess[str],
    remote: Remote,
    head: str,
    expected: str = DID_YOU_MEAN,
) -> None:
    output = result.stdout + result.stderr
    assert result.returncode not in (0,), output
    assert "Traceback" not in output
    assert expected in output, output
    assert remote.head() == head and remote.count() == 1


@pytest.mark.parametrize("version", [None, "2.1.0"], ids=["copy", "version"])
def test_step_promote_refuses_the_typo_in_both_forms(
    host: GitHost, tmp_path: Path, version: str | None
) -> None:
    remote = kustomize_repo(host)
    head = remote.head()
    config = write_config(tmp_path, remote)
    to = ["--to", "dev", "--version", version] if version else ["--to", "staging", "--from", "dev"]
    result = run_step("promote", "-c", str(config), "-p", "web", *to, env=host.env())
    assert_refused_unchanged(result, remote, head)
    flags = [
        "promote", "--product", "web", *to, "--repo", remote.url, "--branch", "main",
        "--source-path", "envs/dev/web",
        "--target-path", "envs/dev/web" if version else "envs/staging/web",
        "--files", f'[{{"file": "kustomization.yaml", "paths": ["{TYPO}"]}}]',
        "--version-file", "kustomization.yaml", "--version-path", TYPO,
    ]  # fmt: skip
    result = run_step(*flags, env=host.env())
    assert_refused_unchanged(result, remote, head)


def test_diff_refuses_the_typo(host: GitHost, tmp_path: Path) -> None:
    remote = kustomize_repo(host)
    head = remote.head()
    config = write_config(tmp_path, remote)
    result = promoflow(
        "diff", "-c", str(config), "-p", "web", "--to", "staging", env=host.env(), cwd=tmp_path
    )
    assert_refused_unchanged(result, remote, head)
    result = promoflow(
        "diff",
        "-c",
        str(config),
        "-p",
        "web",
        "--to",
        "dev",
        "-v",
        "2.1.0",
        env=host.env(),
        cwd=tmp_path,
    )
    assert_refused_unchanged(result, remote, head)


def test_a_version_field_that_the_file_lacks_is_refused(host: GitHost, tmp_path: Path) -> None:
    remote = kustomize_repo(host)
    head = remote.head()
    good = "images[name=ghcr.io/acme/web].newTag"
    config = write_config(tmp_path, remote, path=good, version_path=good)
    web = config / "web.yaml"
    web.write_text(
        web.read_text().replace(
            f'path: "{good}"}}',
            f'path: "{good}", fields: ["images[name=ghcr.io/acme/web].digst"]}}',
        )
    )
    result = promoflow(
        "diff", "-c", str(config), "-p", "web", "--to", "dev", "-v", "2.1.0",
        "--set", "images[name=ghcr.io/acme/web].digst=sha256:abcd",
        env=host.env(), cwd=tmp_path,
    )  # fmt: skip
    assert_refused_unchanged(
        result, remote, head, "images[name=ghcr.io/acme/web] has no key 'digst'"
    )


def test_promote_local_refuses_the_typo_before_anything_is_pushed(
    host: GitHost, tmp_path: Path
) -> None:
    remote = kustomize_repo(host)
    head = remote.head()
    config = write_config(tmp_path, remote, version_path="images[name=ghcr.io/acme/web].newTag")
    result = promoflow(
        "promote", "--local", "-c", str(config), "-p", "web", "-v", "2.1.0", "--auto-approve",
        "--runs-dir", str(tmp_path / "runs"),
        env=host.env(), cwd=tmp_path,
    )  # fmt: skip
    assert_refused_unchanged(result, remote, head)


def test_validate_repo_check_reports_the_typo_at_the_template(
    host: GitHost, tmp_path: Path
) -> None:
    remote = kustomize_repo(host)
    config = write_config(tmp_path, remote, version_path="images[name=ghcr.io/acme/web].newTag")
    result = promoflow("validate", "-c", str(config), env=host.env(), cwd=config)
    assert result.returncode == 0, result.stderr
    result = promoflow("validate", "-c", ".", "--repo-check", env=host.env(), cwd=config)
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.splitlines() == [
        f"web.yaml:{line}:{col}: error: spec.files[0].paths[0]: web in {env}: "
        f"envs/{env}/web/kustomization.yaml: YAML path '{TYPO}' not found: images[0] has no "
        f"key 'newtag'; did you mean images[0].newTag?"
        for env, line, col in (("dev", 24, 15), ("staging", 24, 15))
    ]
    fixed = write_config(
        tmp_path,
        remote,
        path="images[name=ghcr.io/acme/web].newTag",
        version_path="images[name=ghcr.io/acme/web].newTag",
    )
    result = promoflow("validate", "-c", str(fixed), "--repo-check", env=host.env(), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
