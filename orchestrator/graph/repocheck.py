"""The template's paths against the repository's files, before any promotion runs.

A promotion refuses a YAML path that does not exist (a typo would add a key nothing reads),
but only when it runs, after earlier environments were promoted. ``validate --repo-check``
asks the same questions of every environment's files at its branch tip, up front, and
reports each problem where it is fixed: at the path in the PromotionTemplate.

What must exist where follows what the promote step reads and writes:

- every environment's files hold every path its rules name (it is the target of one
  promotion and the source of the next), except paths of a ``create: true`` rule outside
  the trigger environment (the promotion adds them) and the entries of Kustomize image
  rules (added when missing, as ``kustomize edit set image`` does);
- the trigger environment, where every promotion starts, holds them all: the version's
  path and fields, the Kustomize images the rules copy, and each whole file that is not a
  glob.

Pure: the caller reads the files (``read``), this decides.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from orchestrator.graph.plan import EnvironmentPlan, ProductPlan
from orchestrator.model.errors import dotted
from orchestrator.model.template import is_glob
from orchestrator.problems import Problem
from orchestrator.yamledit import YamlEditError, read

Reader = Callable[[EnvironmentPlan, str], str | None]
"""``(environment, file relative to its product directory)`` -> the file's text, or
``None`` when the environment has no such file."""


def check_product(plan: ProductPlan, read_file: Reader) -> list[Problem]:
    """Every path of ``plan``'s template that an environment's files lack."""
    return list(_problems(plan, read_file))


def _problems(plan: ProductPlan, read_file: Reader) -> Iterator[Problem]:
    template = plan.template
    texts: dict[tuple[str, str], str | None] = {}

    def text(env: EnvironmentPlan, file: str) -> str | None:
        key = (env.environment, file)
        if key not in texts:
            texts[key] = read_file(env, file)
        return texts[key]

    def shown(env: EnvironmentPlan, file: str) -> str:
        return "/".join(p for p in (env.app.path.strip("/"), file) if p)

    def absent(env: EnvironmentPlan, file: str, loc: tuple[str | int, ...]) -> Problem | None:
        if text(env, file) is not None:
            return None
        return Problem(
            template.where(*loc),
            f"{dotted(loc)}: {plan.product.name} in {env.environment}: {shown(env, file)} "
            f"does not exist on {env.app.branch}",
        )

    def missing(
        env: EnvironmentPlan, file: str, path: str, loc: tuple[str | int, ...]
    ) -> Problem | None:
        content = text(env, file)
        if content is None:
            return absent(env, file, loc)
        try:
            read(content, path, shown(env, file))
        except YamlEditError as exc:
            where = f"{dotted(loc)}: {plan.product.name} in {env.environment}"
            return Problem(template.where(*loc), f"{where}: {exc}")
        return None

    found: list[Problem | None] = []
    for env in plan.environments:
        for i, rule in enumerate(template.spec.files):
            at: tuple[str | int, ...] = ("spec", "files", i)
            if rule.paths and (env.is_trigger or not rule.create):
                found += [
                    missing(env, rule.file, p, (*at, "paths", j)) for j, p in enumerate(rule.paths)
                ]
            elif rule.paths or rule.kustomize_image is not None:
                if env.is_trigger and rule.kustomize_image is not None:
                    path = rule.kustomize_image.path()
                    found.append(missing(env, rule.file, path, (*at, "kustomizeImage", "name")))
                else:
                    found.append(absent(env, rule.file, (*at, "file")))
            elif env.is_trigger and not is_glob(rule.file):
                found.append(absent(env, rule.file, (*at, "file")))
        source = template.spec.version_source
        if env.is_trigger and source is not None:
            at = ("spec", "versionSource")
            if source.kustomize_image is None:
                found.append(missing(env, source.file, source.version_path, (*at, "path")))
            else:
                found.append(absent(env, source.file, (*at, "file")))
            entry = source.kustomize_image.path() if source.kustomize_image else None
            for j, field in enumerate(source.fields):
                if entry is None or not field.startswith(entry + "."):
                    found.append(missing(env, source.file, field, (*at, "fields", j)))
    yield from (p for p in found if p is not None)
