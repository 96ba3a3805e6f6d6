"""The starting content of a GitOps repository for a configuration: pure, then one commit.

For every product and every environment of its flow, the files its PromotionTemplate names
are created in the environment's directory, holding a first version, so a promotion has
something real to move: YAML paths become nested keys (``images[0].newTag`` a list entry),
glob rules get one sample file, other files a short placeholder. What a careful team keeps
apart is kept apart here too:

- each environment also gets ``environment.yaml``, settings of its own (replica count, host
  name) that no template names, so no promotion ever carries them elsewhere;
- whole-file copies hold only what all environments share (feature flags): the trigger
  environment already has the next release's flag turned on, so the demo shows it moving;
- a version written with its digest gets a digest derived from the version, so tag and
  digest always agree.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pygit2
import yaml

from orchestrator.graph.plan import ProductPlan
from orchestrator.model.yamlpath import PathPart, Selector, parse_yaml_path

Document = dict[str, Any]


def field_value(path: str, version: str) -> str:
    """The value of a version's field (``image.digest``) in the demo: derived from the
    version, as a registry's digest belongs to one tag."""
    return _value(parse_yaml_path(path), version)


def _value(path: tuple[PathPart, ...], version: str) -> str:
    leaf = str(path[-1]).lower()
    if "digest" in leaf:
        return "sha256:" + hashlib.sha256(f"image {version}".encode()).hexdigest()
    if leaf == "version" and "chart" in [str(p).lower() for p in path]:
        return "0.1.0"
    return version


def _set(document: Any, path: tuple[PathPart, ...], value: str) -> Any:
    """Set ``value`` at ``path`` inside ``document``, creating maps and lists on the way
    (a ``[field=value]`` selector finds its item, or adds one holding ``field``)."""
    head, rest = path[0], path[1:]
    if isinstance(head, Selector):
        items = document if isinstance(document, list) else []
        found = next((i for i, item in enumerate(items) if head.matches(item)), None)
        if found is None:
            items.append({head.field: head.value})
            found = len(items) - 1
        items[found] = _set(items[found], rest, value) if rest else value
        return items
    if isinstance(head, int):
        items = document if isinstance(document, list) else []
        while len(items) <= head:
            items.append({})
        items[head] = _set(items[head], rest, value) if rest else value
        return items
    mapping = document if isinstance(document, dict) else {}
    mapping[head] = _set(mapping.get(head), rest, value) if rest else value
    return mapping


def yaml_file(paths: list[str], version: str, header: str) -> bytes:
    document: Any = {}
    for text in paths:
        parsed = parse_yaml_path(text)
        document = _set(document, parsed, _value(parsed, version))
    body = yaml.safe_dump(document, sort_keys=False, default_flow_style=False)
    return f"# {header}\n{body}".encode()


def _yaml_paths(plan: ProductPlan) -> dict[str, list[str]]:
    """The YAML paths each file of the template names, the version and its fields
    included: every path a promotion reads exists in every environment."""
    paths: dict[str, list[str]] = {}
    for rule in plan.template.spec.files:
        if rule.paths:
            paths.setdefault(rule.file, []).extend(rule.paths)
        elif rule.kustomize_image is not None:
            paths.setdefault(rule.file, []).append(rule.kustomize_image.path("newTag"))
    source = plan.template.spec.version_source
    if source is not None:
        wanted = paths.setdefault(source.file, [])
        wanted.extend(p for p in (source.version_path, *source.fields) if p not in wanted)
    return paths


def product_files(plan: ProductPlan, version: str) -> dict[str, bytes]:
    """Every file of ``plan``'s product in every environment of its flow."""
    files: dict[str, bytes] = {}
    product = plan.product.name
    yaml_paths = _yaml_paths(plan)
    for env in plan.environments:
        header = f"{product} in {env.environment}: promoted by promoflow"
        for rule in plan.template.spec.files:
            target = f"{env.app.path}/{rule.file}"
            if "*" in rule.file or "?" in rule.file:
                sample = rule.file.replace("**/", "").replace("*", "features").replace("?", "x")
                flags = {"new-checkout": env.is_trigger, "dark-mode": True}
                content = {"product": product, "flags": flags}
                files[f"{env.app.path}/{sample}"] = (json.dumps(content, indent=2) + "\n").encode()
            elif rule.file in yaml_paths:
                files[target] = yaml_file(yaml_paths[rule.file], version, header)
            elif rule.file.endswith((".yaml", ".yml")):
                files[target] = f"# {header}\n{{}}\n".encode()
            else:
                files[target] = f"# {header}\nLOG_LEVEL=info\n".encode()
        for file, paths in yaml_paths.items():
            files.setdefault(f"{env.app.path}/{file}", yaml_file(paths, version, header))
        files[f"{env.app.path}/{ENVIRONMENT_FILE}"] = environment_file(plan, env.environment)
    return files


ENVIRONMENT_FILE = "environment.yaml"
"""Settings of one environment only: named by no PromotionTemplate, so never promoted."""


def environment_file(plan: ProductPlan, environment: str) -> bytes:
    env = plan.environment(environment)
    settings = {
        "environment": environment,
        "replicas": 3 if env.production else 1,
        "ingress": {"host": f"{plan.product.name}.{environment}.example.com"},
    }
    body = yaml.safe_dump(settings, sort_keys=False)
    return f"# {plan.product.name} in {environment} only: never promoted\n{body}".encode()


def commit_files(repo_path: Path, files: dict[str, bytes], message: str, branch: str) -> str:
    """One commit holding ``files`` on ``branch`` of the (bare) repository at ``repo_path``."""
    repo = pygit2.Repository(str(repo_path))
    index = pygit2.Index()
    for path, data in sorted(files.items()):
        index.add(pygit2.IndexEntry(path, repo.create_blob(data), pygit2.enums.FileMode.BLOB))
    tree = index.write_tree(repo)
    who = pygit2.Signature("promoflow demo", "demo@promoflow.dev")
    ref = f"refs/heads/{branch}"
    parents = [repo.references[ref].target] if ref in repo.references else []
    return str(repo.create_commit(ref, who, who, message, tree, parents))
