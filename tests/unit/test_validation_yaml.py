"""YAML-level problems: syntax, shape, duplicate keys, hostile input; files that aren't ours."""

from __future__ import annotations

import time

from orchestrator.loading.yaml_source import MAX_FILE_BYTES, MAX_NODES
from tests.unit.conftest import Workspace

HEADER = "apiVersion: promoflow.dev/v1alpha1\n"


def test_document_that_is_not_a_mapping(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev}
        ---
        - apiVersion
        - kind
        ---
        just text
        ---
        42
        """,
    )
    assert ws.problems() == [
        "env.yaml:5:1: error: document is a list, expected a mapping with apiVersion/kind",
        "env.yaml:8:1: error: document is a str, expected a mapping with apiVersion/kind",
        "env.yaml:10:1: error: document is a int, expected a mapping with apiVersion/kind",
    ]


def test_empty_documents_are_skipped(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        ---
        # nothing here
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev}
        ---
        """,
    )
    assert list(ws.config().environments) == ["dev"]


def test_duplicate_keys_are_refused(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata:
          name: dev
          name: staging
        """,
    )
    assert ws.problems() == [
        "env.yaml:5:3: error: invalid YAML: duplicate key 'name' (first at line 4); "
        "a key may appear once per mapping"
    ]


def test_duplicate_keys_in_a_flow_mapping_deep_in_the_document(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev}
        spec:
          clusters:
            - {name: a, namespaces: [x], name: b}
        """,
    )
    assert ws.problems() == [
        "env.yaml:6:34: error: invalid YAML: duplicate key 'name' (first at line 6); "
        "a key may appear once per mapping"
    ]


def test_oversized_file_is_refused_unread(ws: Workspace) -> None:
    padding = "# " + "x" * 78 + "\n"
    text = HEADER + "kind: Environment\nmetadata: {name: dev}\n"
    text += padding * (MAX_FILE_BYTES // len(padding) + 1)
    assert len(text.encode()) > MAX_FILE_BYTES
    ws.write("big.yaml", text)
    assert ws.problems() == ["big.yaml:1:1: error: file is larger than 1024 KiB; split it up"]


def test_file_just_under_the_limit_is_read(ws: Workspace) -> None:
    text = HEADER + "kind: Environment\nmetadata: {name: dev}\n"
    text += "#" * (MAX_FILE_BYTES - len(text) - 1) + "\n"
    assert len(text.encode()) == MAX_FILE_BYTES
    ws.write("big.yaml", text)
    assert ws.problems() == []


def test_alias_bomb_is_refused_quickly(ws: Workspace) -> None:
    # Ten levels of ten aliases each: 10**10 nodes once expanded ("billion laughs").
    levels = ['  l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        refs = ", ".join([f"*l{i - 1}"] * 10)
        levels.append(f"  l{i}: &l{i} [{refs}]")
    text = (
        HEADER
        + "kind: Environment\nmetadata:\n  name: dev\n  labels:\n"
        + "\n".join("  " + line for line in levels)
    )
    ws.write("bomb.yaml", text + "\n")
    start = time.perf_counter()
    problems = ws.problems()
    assert time.perf_counter() - start < 2.0
    assert problems == [
        f"bomb.yaml:1:1: error: document expands to more than {MAX_NODES} nodes through "
        "aliases (an alias bomb?); write the values out or split the document"
    ]


def test_aliases_and_merge_keys_within_a_document_are_fine(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata:
          name: staging
          annotations: &common {team: shop}
          labels:
            <<: *common
            tier: pre
        """,
    )
    env = ws.config().environments["staging"]
    assert env.metadata.labels == {"team": "shop", "tier": "pre"}
    assert env.metadata.annotations == {"team": "shop"}


def test_anchors_do_not_reach_across_documents(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev, labels: &labels {team: shop}}
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: staging, labels: *labels}
        """,
    )
    assert ws.problems() == ["env.yaml:7:35: error: invalid YAML: found undefined alias"]


def test_recursive_alias_is_refused(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev}
        spec: &spec
          clusters: [*spec]
        """,
    )
    assert ws.problems() == ["env.yaml:1:1: error: recursive YAML alias: a node contains itself"]


def test_syntax_error_position(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata:
          name: dev
         labels: {}
        """,
    )
    assert ws.problems() == [
        "env.yaml:5:2: error: invalid YAML: did not find expected key "
        "(while parsing a block mapping, line 1)"
    ]


def test_unclosed_flow_mapping_position(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev
        spec: {}
        """,
    )
    assert ws.problems() == [
        "env.yaml:4:5: error: invalid YAML: did not find expected ',' or '}' "
        "(while parsing a flow mapping, line 3)"
    ]


def test_documents_before_a_syntax_error_still_load(ws: Workspace) -> None:
    ws.write(
        "env.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: dev}
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: [
        """,
    )
    config, problems = ws.load()
    assert list(config.environments) == ["dev"]
    assert [str(p) for p in problems] == [
        "env.yaml:8:1: error: invalid YAML: did not find expected node content "
        "(while parsing a flow node, line 8)"
    ]


def test_kubernetes_manifests_and_helm_values_are_ignored(ws: Workspace) -> None:
    ws.write_base()
    ws.write(
        "k8s/deployment.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: shop, unknownField: 1}
        spec: {replicas: 2}
        """,
    )
    ws.write("charts/shop/values.yaml", "image:\n  tag: 1.2.3\nreplicas: [1, 2\n")
    ws.write("charts/shop/templates/cm.yaml", "{{- if .Values.x }}\nkind: ConfigMap\n{{- end }}\n")
    ws.write(
        "mixed.yaml",
        """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings}
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: qa}
        """,
    )
    config = ws.config()
    assert sorted(config.environments) == ["dev", "prod", "qa", "staging"]


def test_values_that_embed_a_promoflow_resource_are_ignored(ws: Workspace) -> None:
    # A Helm values file of a chart that renders promoflow resources: the top-level
    # document is not ours, even though a nested key looks like a promoflow apiVersion.
    ws.write(
        "charts/promoflow/values.yaml",
        """
        replicas: 1
        extraObjects:
          - kind: Environment
            apiVersion: promoflow.dev/v1alpha1
            metadata: {name: dev}
        """,
    )
    config, problems = ws.load()
    assert (config.resources, [str(p) for p in problems]) == ([], [])


def test_hidden_directories_and_other_suffixes_are_not_read(ws: Workspace) -> None:
    ws.write(".git/env.yaml", HEADER + "kind: Environmnt\n")
    ws.write("notes/env.yaml.orig", HEADER + "kind: Environmnt\n")
    ws.write("node_modules/x/env.yml", HEADER + "kind: Environmnt\n")
    ws.write("env.yml", HEADER + "kind: Environment\nmetadata: {name: dev}\n")
    assert list(ws.config().environments) == ["dev"]


def test_file_that_is_not_utf8(ws: Workspace) -> None:
    (ws.root / "env.yaml").write_bytes(b"apiVersion: promoflow.dev/v1alpha1\nkind: \xff\n")
    assert ws.problems() == [
        "env.yaml:2:7: error: not valid UTF-8 (byte 0xff): save the file as UTF-8"
    ]


def test_promoflowignore_skips_listed_paths(ws: Workspace) -> None:
    broken = "apiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata: {name: Bad_Name}\n"
    ws.write("vendor/env.yaml", broken)
    ws.write("deep/tests/env.yaml", broken)
    ws.write("deep/keep.yaml", broken)
    ws.write(".promoflowignore", "# comment\nvendor/\ntests\n")
    problems = ws.problems()
    assert [p.split(":")[0] for p in problems] == ["deep/keep.yaml"]


def test_promoflowignore_follows_gitignore_rules(ws: Workspace) -> None:
    """Negation re-includes, a leading ``/`` anchors, ``**`` crosses directories, and a file
    inside an ignored directory cannot be re-included (git's rule)."""
    broken = "apiVersion: promoflow.dev/v1alpha1\nkind: Environment\nmetadata: {name: Bad_Name}\n"
    for path in ("gen/a.yaml", "gen/keep.yaml", "top.yaml", "sub/top.yaml",
                 "x/deep/y/z.yaml", "vendor/keep.yaml"):  # fmt: skip
        ws.write(path, broken)
    ws.write(
        ".promoflowignore",
        "gen/*.yaml\n!gen/keep.yaml\n/top.yaml\nx/**/z.yaml\nvendor/\n!vendor/keep.yaml\n",
    )
    files = sorted(p.split(":")[0] for p in ws.problems())
    assert files == ["gen/keep.yaml", "sub/top.yaml"]
