"""Go's text/template with notifications-engine's function map, for Argo CD templates.

Argo CD Notifications templates (``template.<name>`` in ``argocd-notifications-cm``) are Go
text/template texts run with sprig's functions over the Application; this package parses
and executes them as Go does, proved by tests/vectors/gotemplate. See
:func:`reporters.gotemplate.template.parse`.
"""

from reporters.gotemplate.errors import (
    TemplateError,
    TemplateExecError,
    TemplateLimitError,
    TemplateSyntaxError,
)
from reporters.gotemplate.executor import Limits
from reporters.gotemplate.references import Reference
from reporters.gotemplate.template import Template, default_funcs, parse

__all__ = [
    "Limits",
    "Reference",
    "Template",
    "TemplateError",
    "TemplateExecError",
    "TemplateLimitError",
    "TemplateSyntaxError",
    "default_funcs",
    "parse",
]
