"""A configuration directory packed into one ConfigMap and loaded back from a ConfigMap
volume (as the kubelet lays it out: ``..data`` and one link per key) with its folders;
a ConfigMap that lost, changed or gained a file, or was made without the manifest, is
refused naming what is wrong."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from orchestrator.cli import app
from orchestrator.graph import validate
from orchestrator.loading import load_config
from orchestrator.loading.packed import MANIFEST, PackError, files_under, key_for, pack

EXAMPLE = Path(__file__).resolve().parents[2] / "environments"


def volume(root: Path, data: dict[str, str]) -> Path:
    """``data`` mounted as the kubelet mounts a ConfigMap."""
    stamp = root / "..2026_11_27_18_00_00.000000001"
    stamp.mkdir(parents=True)
    for key, text in data.items():
        (stamp / key).write_text(text)
    (root / "..data").symlink_to(stamp.name)
    for key in data:
        (root / key).symlink_to(f"..data/{key}")
    return root


def errors(root: Path) -> list[str]:
    config, problems = load_config(root)
    return [str(p) for p in [*problems, *validate(config)] if p.severity == "error"]


def test_the_example_configuration_comes_back_with_its_folders(tmp_path: Path) -> None:
    files = files_under(EXAMPLE)
    assert "products/shop.yaml" in files and "flows/standard.yaml" in files
    data = pack(files)
    assert all("/" not in key for key in data)
    mounted = volume(tmp_path / "config", data)
    config, problems = load_config(mounted, python_allowed=True)
    direct, _ = load_config(EXAMPLE, python_allowed=True)
    assert not [p for p in problems if p.severity == "error"], problems
    assert sorted(config.products) == sorted(direct.products) == ["checkout", "shop"]
    assert sorted(config.flows) == sorted(direct.flows)
    shop = config.products["shop"].where("metadata", "name")
    assert shop.file.endswith("config/products/shop.yaml")  # where it came from, not a key


def test_the_command_prints_a_configmap_kubectl_accepts(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["config", "pack", str(EXAMPLE), "-n", "promoflow"])
    assert result.exit_code == 0, result.output
    document = yaml.safe_load(result.stdout)
    assert document["kind"] == "ConfigMap"
    assert document["metadata"] == {
        "name": "promoflow-config",
        "labels": {"app.kubernetes.io/part-of": "promoflow"},
        "namespace": "promoflow",
    }
    assert document["data"]["products__shop.yaml"] == (EXAMPLE / "products/shop.yaml").read_text()
    mounted = volume(tmp_path / "config", document["data"])
    assert errors(mounted) == []


def test_a_configmap_made_with_kubectl_from_file_is_refused(tmp_path: Path) -> None:
    top_level = {p.name: p.read_text() for p in EXAMPLE.iterdir() if p.is_file()}
    mounted = volume(tmp_path / "config", top_level)
    found = errors(mounted)
    assert len(found) == 1
    assert "a ConfigMap without promoflow's manifest" in found[0]
    assert "promoflow config pack" in found[0]


@pytest.mark.parametrize("damage", ["lost", "changed", "added"])
def test_a_configmap_that_lost_or_changed_a_file_is_refused(tmp_path: Path, damage: str) -> None:
    data = pack(files_under(EXAMPLE))
    if damage == "lost":
        del data["products__shop.yaml"]
    elif damage == "changed":
        data["flows__standard.yaml"] += "# edited in the cluster\n"
    else:
        data["extra.yaml"] = "apiVersion: promoflow.dev/v1alpha1\n"
    mounted = volume(tmp_path / "config", data)
    found = errors(mounted)
    expected = {
        "lost": f"config/{MANIFEST}:1:1: error: products/shop.yaml (key products__shop.yaml) "
        "is listed but missing",
        "changed": f"config/{MANIFEST}:1:1: error: flows/standard.yaml (key "
        "flows__standard.yaml) changed since it was packed",
        "added": "config/extra.yaml:1:1: error: not listed in the manifest",
    }[damage]
    assert any(expected in line for line in found), found


def test_keys_are_valid_and_distinct() -> None:
    taken: set[str] = set()
    keys = [key_for(p, taken) for p in ("a/b.yaml", "a__b.yaml", "é/x y.yaml", "a/" * 200 + "z")]
    assert keys[:2] == ["a__b.yaml", "2-a__b.yaml"]
    assert keys[2] == "-__x-y.yaml"
    assert len(keys[3]) <= 253 and len(set(keys)) == 4
    assert all(set(k) <= set("-._abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
               for k in keys)  # fmt: skip


def test_what_cannot_be_packed_is_named(tmp_path: Path) -> None:
    with pytest.raises(PackError, match=r"b\.yaml: not UTF-8"):
        pack({"b.yaml": b"\xff\xfe"})
    with pytest.raises(PackError, match="more than a ConfigMap holds"):
        pack({"big.yaml": b"x" * (1 << 20)})
    copy = tmp_path / "c"
    shutil.copytree(EXAMPLE, copy)
    (copy / "products" / "notes.yaml").write_text("a: 1\n")
    data = pack(files_under(copy))
    listed = json.loads(data[MANIFEST])["files"]
    assert {"key": "products__notes.yaml", "path": "products/notes.yaml"}.items() <= listed[
        [e["path"] for e in listed].index("products/notes.yaml")
    ].items()


def test_a_name_kubernetes_would_refuse_is_refused_before_anything_is_printed() -> None:
    result = CliRunner().invoke(app, ["config", "pack", str(EXAMPLE), "--name", "Bad Name!"])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "--name: 'Bad Name!' is not a valid ConfigMap name" in result.output
