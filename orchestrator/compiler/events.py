"""Argo Events objects that start promotions the way promoflow's webhook service does.

Teams that already run Argo Events can let it receive promotion requests instead of (or as
well as) ``promoflow serve``. Both must then start *one* run per delivery, so the Sensor
below creates the same Workflow object :func:`~orchestrator.compiler.workflow
.promotion_workflow` builds and names it as the webhook service's ``generic`` provider does:
``workflow_name(product, version, "generic:" + <Idempotency-Key>)``. Whichever of the two
creates the Workflow second gets ``409 AlreadyExists`` from the Kubernetes API and no second
run starts.

The request contract is the generic provider's: ``POST`` JSON ``{"product", "version",
"sourceCommit"?, "requestedBy"?, "fields"?}`` with an ``Idempotency-Key`` header and
``Authorization: Bearer <token>``.

Everything that depends on the request is filled in by trigger parameters when the event
arrives, from Go templates with the Sprig functions Argo Events provides. They compute
exactly what promoflow computes from the same delivery: texts stripped as the generic
provider strips them, the name and the version label as :mod:`orchestrator.names` makes
them; and the version's template refuses (fails the trigger) the requests the generic
provider refuses. ``tests/e2e/test_events_name_parity.py`` renders them with Go and compares.

Choices:

* One Sensor per product (``promoflow-<product>``), not one Sensor with a trigger per
  product: ``promoflow compile -p shop --events`` must be applicable on its own, and a single
  shared Sensor compiled for one product would drop every other product's trigger when
  applied. Each Sensor runs its own small pod; that is the price.
* The version label is kept: a Go template mirrors :func:`orchestrator.names.label_value`,
  so ``promoflow runs`` and label selectors find these runs as they find the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from orchestrator.compiler import names
from orchestrator.compiler.gotext import go_string
from orchestrator.compiler.sensorversion import version_rule_template
from orchestrator.compiler.workflow import PromotionRequest, promotion_workflow
from orchestrator.graph.plan import ProductPlan
from orchestrator.manifest import Manifest
from orchestrator.model.template import version_rule
from orchestrator.settings import StepSettings
from orchestrator.versionpattern import VersionRule

API_VERSION = "argoproj.io/v1alpha1"
IDEMPOTENCY_HEADER = "Idempotency-Key"
"""As Go's net/http canonicalises it: the key under which the event's ``header`` map holds it,
whatever case the caller used."""
REQUEST_PREFIX = "generic:"
"""The webhook service's generic provider prefixes the Idempotency-Key with this to make the
run's request id; the Sensor must do the same for the names to match."""
PLACEHOLDER_VERSION = "0.0.0"
"""Version of the Workflow written into the Sensor before parameters replace every field that
depends on it; any valid version would do, this one reads as a placeholder."""
DEPENDENCY = "promote"
_SUFFIX = len(names.digest(""))
_HEAD = names.MAX_NAME - _SUFFIX - 1


@dataclass(frozen=True)
class EventsSettings:
    """Names the generated EventSource and Sensors use: their defaults are what the docs
    (docs/webhooks.md) tell you to create, so change them only together with those objects."""

    event_source: str = "promoflow"
    event_name: str = "promote"
    endpoint: str = "/promote"
    port: int = 12000
    secret_name: str = "promoflow-webhook"
    """Secret holding the bearer token callers send (``Authorization: Bearer <token>``)."""
    secret_key: str = "token"
    service_account: str = "promoflow-events"
    """The Sensor pod's ServiceAccount: it needs ``create`` on workflows in its namespace."""
    retry_steps: int = 3

    def sensor_name(self, product: str) -> str:
        return f"promoflow-{product}"


EVENTS = EventsSettings()


def _labels(**extra: str) -> dict[str, str]:
    return {"app.kubernetes.io/part-of": "promoflow", **extra}


def event_source(events: EventsSettings = EVENTS) -> Manifest:
    """The webhook EventSource every product's Sensor listens to: one endpoint, ``POST``
    only, refused (401) without the bearer token of ``events.secret_name``."""
    return {
        "apiVersion": API_VERSION,
        "kind": "EventSource",
        "metadata": {"name": events.event_source, "labels": _labels()},
        "spec": {
            "service": {"ports": [{"port": events.port}]},
            "webhook": {
                events.event_name: {
                    "endpoint": events.endpoint,
                    "method": "POST",
                    "port": str(events.port),
                    # Required by the upstream schema, read by nothing for a plain webhook:
                    # the address the Service Argo Events creates answers on, for readers.
                    "url": f"http://{events.event_source}-eventsource-svc:{events.port}",
                    "authSecret": {"name": events.secret_name, "key": events.secret_key},
                }
            },
        },
    }


PY_SPACE = (
    r"\t\n\v\f\r\x1c-\x20\x85\xa0\x{1680}\x{2000}-\x{200a}"
    r"\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}"
)
"""What Python's ``str.strip()`` removes (``str.isspace``), as the body of an RE2 character
class. The webhook service strips the version, the key and the optional texts before it
names a run; Go's ``TrimSpace`` (Sprig's ``trim``) would keep U+001C..U+001F, which Python
strips, so the templates trim with this class instead."""
_TRIM = f"^[{PY_SPACE}]+|[{PY_SPACE}]+$"
BODY_KEYS = ("product", "version", "sourceCommit", "requestedBy", "fields")
"""The generic provider's request keys; any other is refused."""


def _stripped(expression: str) -> str:
    """A template pipeline giving ``expression`` as text, stripped as Python strips."""
    return f'regexReplaceAll `{_TRIM}` (print {expression}) ""'


_VERSION = "{{- $v := " + _stripped(".Input.body.version") + " -}}"


def _list(items: list[str] | tuple[str, ...]) -> str:
    return "(list" + "".join(f" {go_string(i)}" for i in items) + ")"


def name_template(product: str) -> str:
    """Go template computing ``names.workflow_name(product, version, "generic:" + key)``
    from a webhook event (``.Input.body.version``, ``.Input.header``), with the version and
    the key stripped as the webhook service strips them.

    Step by step, as :mod:`orchestrator.names` does it:

    * ``slug``: lower-case, every run of characters outside ``[a-z0-9]`` becomes one ``-``
      (the same as Python's per-character replacement followed by collapsing ``--``), then
      ``-`` trimmed at both ends. Python lower-cases ``İ`` (U+0130) to ``i`` plus a
      combining dot, Go to a bare ``i``; it is replaced first so both give ``i-``.
    * head: ``<product>-<slug>`` stripped of ``-``, cut to ``MAX_NAME - 9`` bytes (all ASCII
      by then), trailing ``-`` removed (all of them, as ``rstrip`` does).
    * suffix: the first 8 hex characters of sha256 over the parts joined by U+001F.
    """
    p = go_string(product)
    key = f'(index .Input.header "{IDEMPOTENCY_HEADER}" 0)'
    return "".join(
        [
            _VERSION,
            "{{- $key := ", _stripped(key), " -}}",
            '{{- $slug := regexReplaceAll "[^a-z0-9]+" (lower (replace "\\u0130" "i\\u0307" $v))',
            ' "-" | trimAll "-" -}}',
            f'{{{{- $head := printf "%s-%s" {p} $slug | trimAll "-" | trunc {_HEAD} -}}}}',
            '{{- $head = regexReplaceAll "-+$" $head "" -}}',
            f'{{{{- $sum := printf "%s\\x1f%s\\x1f%s%s" {p} $v "{REQUEST_PREFIX}" $key',
            f" | sha256sum | trunc {_SUFFIX} -}}}}",
            '{{- printf "%s-%s" $head $sum -}}',
        ]
    )  # fmt: skip


def label_template() -> str:
    """Go template computing ``naming.label_value(version)``: runs of characters a label
    value cannot hold become ``_``, cut to 63, then ``._-`` trimmed at both ends (ASCII only
    by then, so Sprig's byte-wise ``trunc`` cuts where Python's slice does). An empty result
    makes Argo Events fall back to the parameter's ``value`` (``""``), as it should."""
    return "".join(
        [
            _VERSION,
            '{{- regexReplaceAll "[^A-Za-z0-9._-]+" $v "_"',
            f' | trunc {names.MAX_NAME} | trimAll "._-" -}}}}',
        ]
    )  # fmt: skip


def checked_version_template(declared: list[str], rule: VersionRule | None = None) -> str:
    """The stripped version, or a failure for a request the webhook service refuses.

    The version argument has no fallback value, so a ``fail`` here stops the trigger and
    no run starts. Refused, as the generic provider refuses them: a key other than
    :data:`BODY_KEYS`; a product or version that is not a text; a ``sourceCommit`` or
    ``requestedBy`` that is neither text nor null; ``fields`` that are not an object of
    texts, lack one of the template's ``versionSource.fields`` (``declared``) or name
    another; a version ``rule`` (the template's ``versionPattern``) refuses.
    (Empty versions and other products never pass the dependency's filters.)"""
    fields = _list(declared)
    return "".join(
        [
            "{{- $b := .Input.body -}}",
            f"{{{{- range $k, $x := $b }}}}{{{{ if not (has $k {_list(BODY_KEYS)}) }}}}",
            '{{ fail (printf "unknown key %q" $k) }}{{ end }}{{ end -}}',
            '{{- if not (and (kindIs "string" $b.product) (kindIs "string" $b.version)) }}',
            '{{ fail "product and version must be texts" }}{{ end -}}',
            '{{- range $k := list "sourceCommit" "requestedBy" }}{{ $x := index $b $k }}',
            '{{ if not (or (kindIs "invalid" $x) (kindIs "string" $x)) }}',
            '{{ fail (printf "%s must be a text" $k) }}{{ end }}{{ end -}}',
            '{{- $fields := index $b "fields" -}}',
            '{{- if not (or (kindIs "invalid" $fields) (kindIs "map" $fields)) }}',
            '{{ fail "fields must be an object" }}{{ end -}}',
            "{{- $fields = default (dict) $fields -}}",
            '{{- range $k, $x := $fields }}{{ if not (kindIs "string" $x) }}',
            '{{ fail (printf "field %q is not a text" $k) }}{{ end }}',
            f"{{{{ if not (has $k {fields}) }}}}",
            '{{ fail (printf "no version field %q" $k) }}{{ end }}{{ end -}}',
            f"{{{{- range {fields} }}}}{{{{ if not (index $fields .) }}}}",
            '{{ fail (printf "version field %q is required" .) }}{{ end }}{{ end -}}',
            _VERSION,
            version_rule_template(rule or VersionRule()),
            "{{- $v -}}",
        ]
    )  # fmt: skip


def title_template(product: str) -> str:
    """``<product> <version>``, the title ``promotion_workflow`` gives the run."""
    return _VERSION + f"{{{{ {go_string(product)} }}}} {{{{ $v }}}}"


def description_template(route: str) -> str:
    """``<route>[ · requested by <who>]``, as ``promotion_workflow`` writes it."""
    who = _stripped(".")
    return (
        f"{{{{ {go_string(route)} }}}}{{{{ with .Input.body.requestedBy }}}}"
        f"{{{{ with {who} }}}} · requested by {{{{ . }}}}{{{{ end }}}}{{{{ end }}}}"
    )


def optional_text_template(key: str) -> str:
    """``body.<key>`` stripped; nothing when absent or blank (the parameter's ``value``,
    ``""``, is used then)."""
    return f"{{{{ with .Input.body.{key} }}}}{{{{ {_stripped('.')} }}}}{{{{ end }}}}"


FIELDS_TEMPLATE = "{{ with .Input.body.fields }}{{ toJson . }}{{ end }}"
"""The version's fields as JSON, or nothing (then the parameter's ``value``, ``""``, is
used) when there are none. Go writes it compactly (``{"a":"b"}``) where promoflow writes
``{"a": "b"}``; the promote step parses the text, so both mean the same."""


def _dest(*keys: str) -> str:
    """A trigger parameter's ``dest``: an sjson path, whose ``.`` inside a key (label and
    annotation keys are full of them) must be escaped."""
    return ".".join(k.replace(".", "\\.") for k in keys)


def _param(dest: str, *, template: str, default: str | None = None) -> dict[str, Any]:
    src: dict[str, Any] = {"dependencyName": DEPENDENCY, "dataTemplate": template}
    if default is not None:
        # Used when the template fails or renders nothing: only for optional values.
        src["value"] = default
    return {"src": src, "dest": dest}


def _argument_dest(workflow: Manifest, name: str) -> str:
    parameters = workflow["spec"]["arguments"]["parameters"]
    index = next(i for i, p in enumerate(parameters) if p["name"] == name)
    return _dest("spec", "arguments", "parameters", str(index), "value")


def trigger_parameters(plan: ProductPlan, workflow: Manifest) -> list[dict[str, Any]]:
    """Where each value that depends on the request goes in ``workflow``, and from where
    in the event it comes. The product is fixed (the dependency filters on it)."""
    product = plan.product.name
    source = plan.template.spec.version_source
    declared = list(source.fields) if source is not None else []
    label, annotation = ("metadata", "labels"), ("metadata", "annotations")
    return [
        _param(_dest("metadata", "name"), template=name_template(product)),
        _param(_dest(*label, "promoflow.dev/version"), template=label_template(), default=""),
        _param(_dest(*annotation, "promoflow.dev/version"), template=_VERSION + "{{ $v }}"),
        _param(_dest(*annotation, "workflows.argoproj.io/title"), template=title_template(product)),
        _param(
            _dest(*annotation, "workflows.argoproj.io/description"),
            template=description_template(plan.route()),
        ),
        _param(
            _argument_dest(workflow, "version"),
            template=checked_version_template(declared, version_rule(plan.template)),
        ),
        _param(_argument_dest(workflow, "version-fields"), template=FIELDS_TEMPLATE, default=""),
        _param(
            _argument_dest(workflow, "source-commit"),
            template=optional_text_template("sourceCommit"),
            default="",
        ),
        _param(
            _argument_dest(workflow, "requested-by"),
            template=optional_text_template("requestedBy"),
            default="",
        ),
    ]


def _quote(text: str) -> str:
    """``text`` as a Go (RE2) regular expression matching itself."""
    return re.sub(r"([\\.+*?()|\[\]{}^$])", r"\\\1", text)


def _text_filter(path: str, pattern: str) -> dict[str, Any]:
    """A data filter passing when the text at ``path`` contains a match of ``pattern``
    (Argo Events searches: anchor the pattern to match the whole text)."""
    return {"path": path, "type": "string", "value": [pattern]}


def sensor(plan: ProductPlan, settings: StepSettings, events: EventsSettings = EVENTS) -> Manifest:
    """The product's Sensor: on a request for this product carrying an Idempotency-Key and a
    version, create its promotion Workflow under the webhook service's name for it.

    The create is retried (``retryStrategy``) on errors such as an API server restart; a
    ``409 AlreadyExists`` is the duplicate being dropped, and retrying it changes nothing.
    """
    product = plan.product.name
    request = PromotionRequest(product, PLACEHOLDER_VERSION)
    workflow = promotion_workflow(plan, request, settings).to_dict()
    return {
        "apiVersion": API_VERSION,
        "kind": "Sensor",
        "metadata": {
            "name": events.sensor_name(product),
            "labels": _labels(**{"promoflow.dev/product": product}),
        },
        "spec": {
            "template": {"serviceAccountName": events.service_account},
            "dependencies": [
                {
                    "name": DEPENDENCY,
                    "eventSourceName": events.event_source,
                    "eventName": events.event_name,
                    "filters": {
                        "data": [
                            # the product, with the spaces the webhook service strips
                            _text_filter(
                                "body.product", f"^[{PY_SPACE}]*{_quote(product)}[{PY_SPACE}]*$"
                            ),
                            # a version that is not blank, as the webhook service asks
                            _text_filter("body.version", f"[^{PY_SPACE}]"),
                            # no key, no name shared with the webhook service: no run
                            _text_filter(f"header.{IDEMPOTENCY_HEADER}.0", f"[^{PY_SPACE}]"),
                        ]
                    },
                }
            ],
            "triggers": [
                {
                    "template": {
                        "name": "promote",
                        "k8s": {
                            "operation": "create",
                            "source": {"resource": workflow},
                            "parameters": trigger_parameters(plan, workflow),
                        },
                    },
                    "retryStrategy": {
                        "steps": events.retry_steps,
                        "duration": "2s",
                        "factor": 2.0,
                        "jitter": 0.2,
                    },
                }
            ],
        },
    }


def events_manifests(
    plans: list[ProductPlan], settings: StepSettings, events: EventsSettings = EVENTS
) -> list[Manifest]:
    """The EventSource, then one Sensor per plan (in the order given) whose product takes
    direct requests (``spec.triggers``: ``enabled`` and ``generic``), as ``promoflow
    serve`` would: a product that turned them off gets no Sensor."""
    accepting = [
        plan
        for plan in plans
        if plan.product.spec.triggers.enabled and plan.product.spec.triggers.generic
    ]
    return [event_source(events), *(sensor(plan, settings, events) for plan in accepting)]
