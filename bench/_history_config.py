"""The promoflow configuration the history benchmark's repository carries in ``promoflow/``.

Kept apart from the generator so the benchmark can write the same configuration with the
URL the repository is served at (a port chosen when the server starts), while the
repository itself names the URL a real one would (``https://git.example.com/...``).

Every product uses the defaults that make ``envs/{environment}/{product}/values.yaml`` its
version file and ``image.tag`` its version path; the first environment is the trigger, the
second follows it and every other follows the second, as dev -> staging -> the regions.
"""

from __future__ import annotations

from collections.abc import Sequence

FOLDER = "promoflow"
DEFAULT_REPO_URL = "https://git.example.com/acme/gitops.git"
FLOW = "standard"
TEMPLATE = "helm-values"
HEADER = "apiVersion: promoflow.dev/v1alpha1\n"


def is_production(environment: str) -> bool:
    """``prod-eu`` and the like are production: the policy and the notes' soak gate
    depend on it."""
    return environment.startswith("prod")


def upstream(environments: Sequence[str], environment: str) -> str | None:
    """The environment a promotion into ``environment`` copies from (None: the trigger)."""
    index = environments.index(environment)
    if index == 0:
        return None
    return environments[0] if index == 1 else environments[1]


def _environments(environments: Sequence[str]) -> str:
    docs = []
    for env in environments:
        docs.append(
            f"{HEADER}kind: Environment\nmetadata:\n  name: {env}\nspec:\n"
            f"  production: {str(is_production(env)).lower()}\n"
        )
    return "---\n".join(docs)


def _flow(environments: Sequence[str]) -> str:
    steps = "".join(
        f"    - environment: {env}\n      dependsOn: [{upstream(environments, env)}]\n"
        for env in environments[1:]
    )
    return (
        f"{HEADER}kind: PromotionFlow\nmetadata:\n  name: {FLOW}\nspec:\n"
        f"  trigger: {environments[0]}\n" + (f"  steps:\n{steps}" if steps else "")
    )


def _template() -> str:
    return (
        f"{HEADER}kind: PromotionTemplate\nmetadata:\n  name: {TEMPLATE}\nspec:\n"
        "  versionSource: {file: values.yaml, path: image.tag}\n"
        "  files:\n    - {file: values.yaml, paths: [image.tag]}\n"
    )


def _policies() -> str:
    return (
        f"{HEADER}kind: PromotionPolicy\nmetadata:\n  name: default\nspec:\n"
        "  policy:\n    gates: [{sync: {timeout: 10m}}, {health: {timeout: 10m}}]\n"
        f"---\n{HEADER}kind: PromotionPolicy\nmetadata:\n  name: production\nspec:\n"
        "  priority: 10\n  selector: {environments: {production: true}}\n"
        "  policy:\n    gates:\n      - sync: {timeout: 10m}\n      - health: {timeout: 10m}\n"
        "      - soak: {duration: 10m}\n"
    )


def _product(name: str, repo_url: str) -> str:
    return (
        f"{HEADER}kind: Product\nmetadata:\n  name: {name}\nspec:\n"
        f"  repo: {{url: {repo_url}, branch: main}}\n"
        f"  flow: {FLOW}\n  template: {TEMPLATE}\n"
        "  pathTemplate: envs/{environment}/{product}\n"
    )


def config_files(
    products: Sequence[str], environments: Sequence[str], repo_url: str = DEFAULT_REPO_URL
) -> dict[str, str]:
    """Relative path (under the configuration folder) -> text, one file per product as
    teams keep them (a product's owners review only their file)."""
    files = {
        "environments.yaml": _environments(environments),
        "flow.yaml": _flow(environments),
        "template.yaml": _template(),
        "policies.yaml": _policies(),
    }
    for name in products:
        files[f"products/{name}.yaml"] = _product(name, repo_url)
    return files
