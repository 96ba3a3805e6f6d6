"""Product: a set of apps promoted together, one Argo CD application per environment."""

from __future__ import annotations

import string
from typing import ClassVar, Literal

from pydantic import field_validator

from orchestrator.model.base import Metadata, Model, Resource
from orchestrator.model.checks import GitUrl
from orchestrator.model.names import Name, Namespace, ProductName
from orchestrator.model.template import RelativeFile
from orchestrator.model.trigger import Triggers

DEFAULT_APP_NAME = "{product}-{environment}"
DEFAULT_PATH = "envs/{environment}/{product}"
DEFAULT_BRANCH_TEMPLATE = "env/{environment}"


def _check_placeholders(value: str) -> str:
    """Bare ``{product}`` and ``{environment}`` only: a format spec (``{product:>999999999}``)
    or an attribute (``{product.__class__}``) would make ``str.format`` build a gigabyte or
    reach past the value."""
    try:
        for _, field, spec, conversion in string.Formatter().parse(value):
            extra = spec or conversion or ""
            if field is not None and (extra or any(c in field for c in ".[")):
                raise ValueError(f"{field}{'!' + conversion if conversion else ''}"
                                 f"{':' + spec if spec else ''}")  # fmt: skip
        value.format(product="p", environment="e")
    except (KeyError, IndexError, ValueError) as exc:
        raise ValueError(
            f"{value!r}: only {{product}} and {{environment}} may be used ({exc})"
        ) from None
    return value


class Repo(Model):
    """The GitOps repository the product's environment configuration lives in."""

    url: GitUrl
    branch: str = "main"
    layout: Literal["directory", "branch"] = "directory"
    branch_template: str = DEFAULT_BRANCH_TEMPLATE

    @field_validator("branch_template")
    @classmethod
    def _check_branch_template(cls, value: str) -> str:
        return _check_placeholders(value)


class ApplicationRef(Model):
    """Override of the defaults for one environment's Argo CD application."""

    environment: Name
    argocd_app: Name | None = None
    path: RelativeFile | None = None
    namespace: Namespace | None = None


class ResolvedApp(Model):
    environment: str
    argocd_app: str
    path: str
    branch: str


class ProductSpec(Model):
    repo: Repo
    flow: Name
    template: Name
    app_name_template: str = DEFAULT_APP_NAME
    path_template: str = DEFAULT_PATH
    applications: list[ApplicationRef] = []
    triggers: Triggers = Triggers()
    """What starts a promotion by itself (``promoflow serve``): Git and registry pushes."""

    @field_validator("app_name_template", "path_template")
    @classmethod
    def _check_templates(cls, value: str) -> str:
        return _check_placeholders(value)


class ProductMetadata(Metadata):
    """A product's name is shorter than other names: Kubernetes names derive from it."""

    name: ProductName


class Product(Resource):
    KIND: ClassVar[str] = "Product"
    kind: Literal["Product"] = "Product"
    metadata: ProductMetadata
    spec: ProductSpec

    def application(self, environment: str) -> ResolvedApp:
        """The Argo CD app, config path and branch for ``environment``, defaults applied."""
        ref = next((a for a in self.spec.applications if a.environment == environment), None)
        names = {"product": self.name, "environment": environment}
        repo = self.spec.repo
        branch = repo.branch_template if repo.layout == "branch" else repo.branch
        return ResolvedApp(
            environment=environment,
            argocd_app=(ref.argocd_app if ref and ref.argocd_app else None)
            or self.spec.app_name_template.format(**names),
            path=(ref.path if ref and ref.path else None)
            or self.spec.path_template.format(**names),
            branch=branch.format(**names),
        )
