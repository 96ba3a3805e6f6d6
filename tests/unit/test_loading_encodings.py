"""What a new user's files meet: byte-order marks, other encodings, and knock-on errors.

Each case runs ``promoflow validate`` as a user does (the in-process runner), on files
written byte for byte as editors save them.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke
from tests.unit.samples import ENVIRONMENTS, FLOW, PRODUCT, TEMPLATE

BOM = codecs.BOM_UTF8
ENV = b"apiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata: {name: dev}\n"


def validate(ws: Workspace) -> tuple[int, list[str], str]:
    result = invoke("validate", "-c", ".")
    return result.code, result.lines, result.stdout


def test_utf8_file_with_a_bom_is_read(ws: Workspace) -> None:
    # apiVersion on the first line, right after the BOM: the pre-filter used to miss it
    (ws.root / "env.yaml").write_bytes(BOM + ENV)
    code, lines, stdout = validate(ws)
    assert (code, lines) == (0, [])
    assert "1 Environment" in stdout


def test_mistyped_api_version_in_a_bom_file_is_reported(ws: Workspace) -> None:
    (ws.root / "env.yaml").write_bytes(BOM + ENV.replace(b".dev/", b".io/"))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == [
        "env.yaml:1:1: error: unsupported apiVersion 'promoflow.io/v1alpha1' "
        "(expected 'promoflow.dev/v1alpha1')"
    ]


def test_python_module_with_a_bom_is_read(ws: Workspace) -> None:
    module = b'from orchestrator.dsl import environment\n\ndev = environment("dev")\n'
    (ws.root / "envs.py").write_bytes(BOM + module)
    code, lines, stdout = validate(ws)
    assert (code, lines) == (0, []) and "1 Environment" in stdout


def test_promoflowignore_with_a_bom(ws: Workspace) -> None:
    ws.write("env.yaml", ENV.decode())
    ws.write("vendor/broken.yaml", "apiVersion: promoflow.dev/v1alpha1\nkind: Nope\n")
    (ws.root / ".promoflowignore").write_bytes(BOM + b"vendor/\n")
    code, lines, _ = validate(ws)
    assert (code, lines) == (0, [])


def test_latin1_file_that_is_not_ours_is_left_alone(ws: Workspace) -> None:
    ws.write_base()
    values = "# Valeurs par défaut du chart\nimage:\n  tag: 1.4.1\nlabel: café\n"
    (ws.root / "charts" / "shop").mkdir(parents=True)
    (ws.root / "charts" / "shop" / "values.yaml").write_bytes(values.encode("latin-1"))
    (ws.root / "tools.py").write_bytes("print('déjà')\n".encode("latin-1"))
    code, lines, _ = validate(ws)
    assert (code, lines) == (0, [])


def test_latin1_file_that_is_ours_points_at_the_byte(ws: Workspace) -> None:
    prod = "metadata: {name: prod}"
    text = ENVIRONMENTS.replace(prod, f"# Production (déployée)\n{prod}")
    (ws.root / "environments.yaml").write_bytes(text.encode("latin-1"))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == [
        "environments.yaml:11:16: error: not valid UTF-8 (byte 0xe9): save the file as UTF-8"
    ]


def test_python_module_with_a_coding_cookie_is_read(ws: Workspace) -> None:
    module = "# -*- coding: latin-1 -*-\nfrom orchestrator.dsl import environment\n\n"
    module += 'dev = environment("dev", description="déploiement")\n'
    (ws.root / "envs.py").write_bytes(module.encode("latin-1"))
    code, lines, _ = validate(ws)
    assert (code, lines) == (0, [])


def test_utf16_file_that_is_ours_says_so(ws: Workspace) -> None:
    # what PowerShell 5's `promoflow schema > x.yaml`-style redirection writes
    (ws.root / "env.yaml").write_bytes(codecs.BOM_UTF16_LE + ENV.decode().encode("utf-16-le"))
    (ws.root / "notes.yaml").write_bytes(codecs.BOM_UTF16_LE + "a: b\n".encode("utf-16-le"))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == ["env.yaml:1:1: error: the file is saved as UTF-16: save it as UTF-8"]


# -- knock-on errors: the cause first, its consequences marked and listed under it ----


def test_reference_to_a_flow_whose_file_does_not_parse(ws: Workspace) -> None:
    ws.write_base(flow=False)
    # "zz-" sorts after product.yaml: the cause used to be listed after its consequence
    ws.write("zz-flow.yaml", FLOW.replace("dependsOn: [dev]}", "dependsOn: [dev}"))
    ws.write("other.yaml", PRODUCT.replace("name: shop", "name: cart"))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    cause = "zz-flow.yaml:7:45: error: invalid YAML: "
    assert result.lines[0].startswith(cause), result.lines
    consequence = (
        "unknown PromotionFlow 'standard' (its document failed to load: see zz-flow.yaml:7)"
    )
    assert result.lines[1:] == [
        f"other.yaml:6:3: error: {consequence}",
        f"product.yaml:6:3: error: {consequence}",
    ]


def test_reference_to_a_document_with_a_mistyped_api_version(ws: Workspace) -> None:
    ws.write_base(flow=False)
    ws.write("flow.yaml", FLOW.replace("promoflow.dev/v1alpha1", "promoflow.io/v1alpha1"))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines == [
        "flow.yaml:1:1: error: unsupported apiVersion 'promoflow.io/v1alpha1' "
        "(expected 'promoflow.dev/v1alpha1')",
        "product.yaml:6:3: error: unknown PromotionFlow 'standard' "
        "(its document failed to load: see flow.yaml:1)",
    ]


def test_reference_to_a_document_with_a_mistyped_kind(ws: Workspace) -> None:
    ws.write_base(product=False)
    ws.write("a-product.yaml", PRODUCT)
    ws.write("template.yaml", TEMPLATE.replace("kind: PromotionTemplate", "kind: PromotionTemplat"))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert [line.split(": error: ")[0] for line in result.lines] == [
        "template.yaml:2:1",
        "a-product.yaml:7:3",
    ]
    assert result.lines[1].endswith(
        "unknown PromotionTemplate 'helm' (its document failed to load: see template.yaml:2)"
    )


def test_reference_to_an_environment_whose_module_raises(ws: Workspace) -> None:
    ws.write_base()
    ws.write("environments.yaml", ENVIRONMENTS.split("---")[0])  # dev only
    ws.write(
        "more_envs.py",
        """
        from orchestrator.dsl import environment

        staging = environment("staging")
        prod = environment("prod", production=True)
        raise RuntimeError("the inventory is unreachable")
        """,
    )
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    assert result.lines[0] == "more_envs.py:5:1: error: RuntimeError: the inventory is unreachable"
    assert result.lines[1:] == [
        "flow.yaml:7:8: error: unknown environment 'staging' "
        "(its module failed to load: see more_envs.py:5)",
        "flow.yaml:8:8: error: unknown environment 'prod' "
        "(its module failed to load: see more_envs.py:5)",
    ]


def test_names_no_failed_file_defines_are_plain_unknowns(ws: Workspace) -> None:
    ws.write_base(flow=False)
    ws.write("flow.yaml", FLOW.replace("name: standard", "name: standrd"))
    ws.write("broken.yaml", "apiVersion: promoflow.dev/v1alpha1\nkind: [\n")
    lines = invoke("validate", "-c", ".").lines
    assert lines[-1] == (
        "product.yaml:6:3: error: unknown PromotionFlow 'standard' (did you mean 'standrd'?)"
    )


def test_config_path_given_as_one_file(tmp_path: Path) -> None:
    path = tmp_path / "env.yaml"
    path.write_bytes(BOM + ENV)
    result = invoke("validate", "-c", str(path))
    assert result.code == 0 and "1 Environment" in result.stdout
