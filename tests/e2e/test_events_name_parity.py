"""The Sensor's Go templates compute what promoflow computes in Python.

``promoflow compile --events`` writes Sensors whose trigger names the promotion Workflow with
a Go template (Sprig functions), so that Argo Events and promoflow's webhook service give a
delivery the same name and only one of them can create it. Whether the template really
computes ``workflow_name(product, version, "generic:" + key)`` (and ``label_value(version)``
for the version label) can only be told by running it in Go: this test builds a tiny
program (text/template + Sprig v3.3.0, the version Argo Events pins, and gjson, with which
Argo Events decodes the event before templating) and compares its output with Python's for
odd versions, unicode, 80-character versions and random strings.

It needs the Go toolchain and the Go module proxy, nothing of the cluster: none of the
cluster fixtures is used, so ``pytest tests/e2e/test_events_name_parity.py`` runs alone.
The program is built once into ``PROMOFLOW_CLUSTER_HOME/tools`` (``~/.cache/promoflow/
cluster/tools``), keyed by its source, its module versions and the Go version.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import shutil
import subprocess
import tempfile
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from orchestrator.compiler.events import (
    IDEMPOTENCY_HEADER,
    REQUEST_PREFIX,
    checked_version_template,
    label_template,
    name_template,
    sensor,
)
from orchestrator.compiler.names import label_value, workflow_name
from orchestrator.compiler.workflow import PromotionRequest, promotion_workflow
from orchestrator.graph.plan import plan_product
from orchestrator.model.template import version_rule
from orchestrator.versionpattern import VersionRule
from tests.compiler.helpers import EXAMPLES, SETTINGS, load
from tests.e2e.cluster.config import PATHS
from tests.e2e.cluster.gobuild import go_binary, go_env, run_logged
from tests.support.sensor_trigger import created_workflow

pytestmark = pytest.mark.e2e

MODULES = ("github.com/Masterminds/sprig/v3@v3.3.0", "github.com/tidwall/gjson@v1.19.0")

GO_SOURCE = """\
// Renders Go templates as an Argo Events Sensor renders a trigger parameter's
// dataTemplate: the webhook event is {"header": http.Header, "body": raw JSON},
// decoded with gjson and passed as .Input, with the Sprig functions.
// Reads [{"template", "header", "body"}] on stdin, writes [{"out", "error"}].
package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"text/template"

	sprig "github.com/Masterminds/sprig/v3"
	"github.com/tidwall/gjson"
)

type job struct {
	Template string              `json:"template"`
	Header   map[string][]string `json:"header"`
	Body     json.RawMessage     `json:"body"`
}

type result struct {
	Out   string `json:"out"`
	Error string `json:"error,omitempty"`
}

func render(j job) result {
	header := http.Header{}
	for name, values := range j.Header {
		for _, v := range values {
			header.Add(name, v) // canonicalises the name, as the HTTP server does
		}
	}
	data, err := json.Marshal(map[string]any{"header": header, "body": j.Body})
	if err != nil {
		return result{Error: err.Error()}
	}
	tpl, err := template.New("param").Funcs(sprig.TxtFuncMap()).Parse(j.Template)
	if err != nil {
		return result{Error: err.Error()}
	}
	var buf bytes.Buffer
	input := map[string]any{"Input": gjson.ParseBytes(data).Value()}
	if err := tpl.Execute(&buf, input); err != nil {
		return result{Error: err.Error()}
	}
	return result{Out: buf.String()}
}

func main() {
	var jobs []job
	if err := json.NewDecoder(os.Stdin).Decode(&jobs); err != nil {
		panic(err)
	}
	results := make([]result, len(jobs))
	for i, j := range jobs {
		results[i] = render(j)
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		panic(err)
	}
}
"""

Job = dict[str, Any]
Renderer = Callable[[list[Job]], list[dict[str, str]]]


def _build() -> Path:
    """The renderer binary, built unless this source, these modules and this Go built it."""
    go = go_binary()
    version = subprocess.run([go, "version"], capture_output=True, text=True, check=True).stdout
    key = hashlib.sha256("\n".join([GO_SOURCE, *MODULES, version]).encode()).hexdigest()[:16]
    home = PATHS.home / "tools" / f"sprig-render-{key}"
    binary = home / "render"
    if binary.exists():
        return binary
    log = PATHS.logs / "build-sprig-render.log"
    env = go_env()
    home.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=home.parent) as tmp:
        work = Path(tmp)
        (work / "main.go").write_text(GO_SOURCE)
        run_logged(
            [go, "mod", "init", "promoflow.local/e2e/sprig-render"], log=log, cwd=work, env=env
        )
        run_logged([go, "get", *MODULES], log=log, cwd=work, env=env)
        run_logged([go, "build", "-trimpath", "-o", "render", "."], log=log, cwd=work, env=env)
        if home.exists():  # a half-built leftover
            shutil.rmtree(home)
        os.replace(work, home)
        work.mkdir()  # for TemporaryDirectory's cleanup
    return binary


@pytest.fixture(scope="module")
def render() -> Renderer:
    binary = _build()

    def run(jobs: list[Job]) -> list[dict[str, str]]:
        done = subprocess.run(
            [str(binary)], input=json.dumps(jobs), capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        results: list[dict[str, str]] = json.loads(done.stdout)
        assert len(results) == len(jobs)
        return results

    return run


PRODUCTS = [
    "shop",
    "checkout",
    "a",
    "x--y",
    "p" * 50 + "-q",
    "p" * 52 + "--q",  # cut inside "--": every trailing "-" goes, as rstrip does
    "p" * 63,
]
VERSIONS = [
    "1.4.2",
    "1.4.2+build.7",
    "V2_RC",
    "...",
    "-",
    "v1.0.0--rc--1-",
    "2024.01.02-abcdef0",
    "release/2026-11 (hotfix)",
    "1" * 80,
    "a.b-" * 20,
    "Ä" * 80,
    "版本-1.0",
    "İstanbul-İ",  # Python lower-cases İ to i + U+0307, Go to i: the template evens it out
    "\u212a-Kelvin-3",  # KELVIN SIGN lower-cases to an ASCII k in both
    "ǅ-ß-ﬁ-Σ",
    "🚀 1.0 ✓",
    "%s%d{{.}}",
    "e\u0301",
    "0",
    # stripped as Python strips, which is more than Go's TrimSpace
    "\t1.0\n",
    " 2.0 \r\n",
    "\x1c\x1f3.0\x1d\x1e",
    "\u30004.0\u2003\u00a0",
    "\u200b5.0\u200b",  # a zero-width space is no space to either
    "\x85 6.0 \u2028\u2029",
]
KEYS = ["ci-42", "", "3f2b8c1e-6c1d-4f7a-9d0e-2b1c4a5e6f70", "a b", "k" * 200, "%x\\n", " k\t"]
ALPHABET = (
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
    ".-_+~/:@ %\t\"'{}\\"
    "éÄİ\u0131\u212aÅß\u03c3Σ版🚀\u0307\u00a0\u3000\x1f"
)


def _random_cases(count: int, seed: int) -> list[tuple[str, str, str]]:
    """Random products (valid names), versions (any text, up to 90 characters) and keys
    (printable ASCII: HTTP header values are bytes, and only ASCII reads alike to Go and to
    a Python server)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        product = rng.choice(PRODUCTS[:3]) + "-" + "".join(rng.choices("ab0-", k=rng.randint(0, 8)))
        product = product.rstrip("-")
        version = "".join(rng.choices(ALPHABET, k=rng.randint(1, 90)))
        key = "".join(chr(rng.randint(0x21, 0x7E)) for _ in range(rng.randint(1, 40)))
        cases.append((product, version, key))
    return cases


def _cases() -> list[tuple[str, str, str]]:
    fixed = [
        (PRODUCTS[i % len(PRODUCTS)], version, KEYS[i % len(KEYS)])
        for i, version in enumerate(VERSIONS)
    ]
    long_products = [(p, v, "k") for p in PRODUCTS for v in ("1.4.2", "", "-" * 3, "9" * 80)]
    return fixed + long_products + _random_cases(60, seed=20261124)


def _job(
    template: str, body: dict[str, Any], key: str = "k", header: str = IDEMPOTENCY_HEADER
) -> Job:
    return {"template": template, "header": {header: [key]}, "body": body}


def _name(product: str, version: str, key: str) -> str:
    """The webhook service's name for the request: it strips the version and the key."""
    return workflow_name(product, version.strip(), REQUEST_PREFIX + key.strip())


def test_name_template_computes_workflow_name(render: Renderer) -> None:
    cases = _cases()
    assert len(cases) >= 50
    results = render([_job(name_template(p), {"version": v}, k) for p, v, k in cases])
    mismatches = [
        (p, v, k, r.get("out") or r.get("error"), _name(p, v, k))
        for (p, v, k), r in zip(cases, results, strict=True)
        if r.get("error") or r["out"] != _name(p, v, k)
    ]
    assert mismatches == []


def test_the_key_is_found_whatever_case_the_caller_wrote(render: Renderer) -> None:
    headers = ["idempotency-key", "IDEMPOTENCY-KEY", "Idempotency-Key"]
    template = name_template("shop")
    results = render([_job(template, {"version": "1.0"}, "ci-1", h) for h in headers])
    assert [r.get("out") for r in results] == [_name("shop", "1.0", "ci-1")] * 3


def test_label_template_computes_label_value(render: Renderer) -> None:
    versions = [v for _, v, _ in _cases()]
    results = render([_job(label_template(), {"version": v}) for v in versions])
    # Argo Events falls back to the parameter's value ("") when a template renders nothing
    got = [r.get("out", "") for r in results]
    assert got == [label_value(v.strip()) for v in versions]


def _filter_template(manifest: dict[str, Any], path: str) -> str:
    """A data filter of the Sensor as a template answering whether it passes: Argo Events
    matches a string filter with Go's ``regexp`` ``Match``, as Sprig's ``regexMatch`` does."""
    [data_filter] = [
        f for f in manifest["spec"]["dependencies"][0]["filters"]["data"] if f["path"] == path
    ]
    [pattern] = data_filter["value"]
    header = f'index .Input.header "{IDEMPOTENCY_HEADER}" 0'
    value = header if path.startswith("header.") else f".Input.{path}"
    return f"{{{{ regexMatch `{pattern}` (print ({value})) }}}}"


def test_filters_pass_what_the_webhook_service_takes(render: Renderer) -> None:
    """The product as it strips it; a version and a key with something left after strip."""
    manifest = sensor(plan_product(load(EXAMPLES), "shop"), SETTINGS)
    texts = ["shop", " shop\n", "\x1fshop\u3000", "shops", "my shop", "sh.p", "", "\u200bshop"]
    texts += [v for v in VERSIONS] + [" \t", "\x1c\x1d", "\u2003\u00a0", "\u200b"]
    checks: list[tuple[str, Callable[[str], bool]]] = [
        ("body.product", lambda t: t.strip() == "shop"),
        ("body.version", lambda t: t.strip() != ""),
        (f"header.{IDEMPOTENCY_HEADER}.0", lambda t: t.strip() != ""),
    ]
    for path, accepts in checks:
        template = _filter_template(manifest, path)
        jobs = [_job(template, {"product": t, "version": t}, key=t) for t in texts]
        got = [r.get("out") or r.get("error") for r in render(jobs)]
        assert got == [str(accepts(t)).lower() for t in texts], path


EVENTS: list[dict[str, Any]] = [
    {"product": "shop", "version": "1.4.2", "fields": {"image.digest": "sha256:0f3<&>"}},
    {
        "product": "shop",
        "version": " V2_RC+Build.7\n",
        "sourceCommit": "0123abcd ",
        "requestedBy": " Ada Lovelace",
        "fields": {"image.digest": " sha256:ab"},
    },
    {"product": "checkout", "version": "...", "requestedBy": "  "},
    {"product": "checkout", "version": "İ" + "9" * 80, "fields": {}, "sourceCommit": None},
    {"product": " checkout ", "version": "\x1f2.0", "fields": None, "requestedBy": None},
    # tags the templates accept, with the odd texts around them of the refused ones above
    {
        "product": "shop",
        "version": " V2_RC-Build.7\n",
        "sourceCommit": "0123abcd ",
        "requestedBy": " Ada Lovelace",
        "fields": {"image.digest": " sha256:ab"},
    },
    {"product": "checkout", "version": "9" * 80, "requestedBy": "  ", "sourceCommit": None},
]


def _go(
    render: Renderer, header: dict[str, list[str]]
) -> Callable[[str, dict[str, Any]], str | None]:
    """Renders as Argo Events resolves a dataTemplate: a failure or nothing is no value."""

    def go(template: str, event: dict[str, Any]) -> str | None:
        [result] = render([{"template": template, "header": header, "body": event["body"]}])
        out = result.get("out", "")
        return None if result.get("error") or out in ("", "<no value>") else out

    return go


@pytest.mark.parametrize(
    "body", EVENTS, ids=[f"{e['product'].strip()}-{i}" for i, e in enumerate(EVENTS)]
)
def test_the_sensor_creates_what_the_webhook_service_would(
    render: Renderer, body: dict[str, Any]
) -> None:
    """Every parameter applied, templates rendered by Go: the Workflow the Sensor creates is
    the one promotion_workflow builds for the request the webhook service reads from the
    same delivery (texts stripped; ``version-fields`` compared as JSON: Go writes it
    without spaces)."""
    product = body["product"].strip()
    plan = plan_product(load(EXAMPLES), product)
    manifest = sensor(plan, SETTINGS)
    key = " delivery-7f3a"
    header = {"Content-Type": ["application/json"], IDEMPOTENCY_HEADER: [key]}
    event = {"header": header, "body": body}
    if version_rule(plan.template).refusal(body["version"].strip()) is not None:
        with pytest.raises(LookupError, match="no value"):  # refused, as the service does
            created_workflow(manifest, event, _go(render, header))
        return
    created = created_workflow(manifest, event, _go(render, header))
    request = PromotionRequest(
        product,
        body["version"].strip(),
        (body.get("sourceCommit") or "").strip(),
        (body.get("requestedBy") or "").strip(),
        REQUEST_PREFIX + key.strip(),
        body.get("fields") or {},
    )
    expected = promotion_workflow(plan, request, SETTINGS).to_dict()
    names = [p["name"] for p in expected["spec"]["arguments"]["parameters"]]
    got_fields = created["spec"]["arguments"]["parameters"][names.index("version-fields")]
    want_fields = expected["spec"]["arguments"]["parameters"][names.index("version-fields")]
    assert json.loads(got_fields["value"] or "{}") == json.loads(want_fields["value"] or "{}")
    got_fields["value"] = want_fields["value"]
    assert created == expected


# Requests as orchestrator/webhooks/providers/generic.py and triggers.for_request judge them
# (shop's template declares the version field image.digest, checkout's none).
SHOP: dict[str, Any] = {
    "product": "shop",
    "version": "1.0",
    "fields": {"image.digest": "sha256:ab"},
}
ACCEPTED: list[tuple[str, dict[str, Any]]] = [
    ("shop", SHOP),
    ("shop", {**SHOP, "sourceCommit": "abc", "requestedBy": None}),
    ("checkout", {"product": "checkout", "version": "1.0"}),
    ("checkout", {"product": "checkout", "version": "1.0", "fields": {}}),
    ("checkout", {"product": "checkout", "version": "1.0", "fields": None, "sourceCommit": ""}),
]
REFUSED: list[tuple[str, dict[str, Any]]] = [
    ("shop", {"product": "shop", "version": "1.0"}),  # image.digest missing
    ("shop", {**SHOP, "fields": {"image.digest": ""}}),  # ... or empty
    ("shop", {**SHOP, "fields": {"image.digest": "x", "image.tag": "1"}}),  # undeclared
    ("shop", {**SHOP, "fields": {"image.digest": 7}}),  # not a text
    ("shop", {**SHOP, "fields": ["image.digest"]}),
    ("shop", {**SHOP, "fields": 0}),
    ("shop", {**SHOP, "sourceComit": "abc"}),  # unknown key
    ("shop", {**SHOP, "version": 1.0}),
    ("shop", {**SHOP, "version": True}),
    ("shop", {**SHOP, "requestedBy": 3}),
    ("shop", {**SHOP, "sourceCommit": {"sha": "abc"}}),
    ("checkout", {"product": "checkout", "version": "1.0", "fields": {"image.digest": "x"}}),
]


def test_the_version_check_refuses_what_the_webhook_service_refuses(render: Renderer) -> None:
    config = load(EXAMPLES)
    templates = {
        product: next(
            p["src"]["dataTemplate"]
            for p in sensor(plan_product(config, product), SETTINGS)["spec"]["triggers"][0][
                "template"
            ]["k8s"]["parameters"]
            if p["dest"] == "spec.arguments.parameters.1.value"
        )
        for product in ("shop", "checkout")
    }
    cases = ACCEPTED + REFUSED
    results = render([_job(templates[product], body) for product, body in cases])
    accepted = [r.get("out") == "1.0" and not r.get("error") for r in results]
    assert accepted == [True] * len(ACCEPTED) + [False] * len(REFUSED), results


def _assigned_sample() -> list[str]:
    """Characters of every category Python knows (one in 37 code points, no surrogates,
    which JSON cannot carry), and code points unassigned in every Unicode version: the
    noncharacters and U+0378."""
    chars = [
        chr(c)
        for c in range(0, 0x110000, 37)
        if not 0xD800 <= c <= 0xDFFF and unicodedata.category(chr(c)) != "Cn"
    ]
    return [*chars, "\u0378", "\ufdd0", "\uffff", "\U0002ffff", "\U0010ffff"]


RULE_VERSIONS = [
    "1.4.2", "v2.0.0-rc.1", "6063e25", "2026-11-27", "1.4", "latest", "_x", "a" * 128,
    "a" * 129, "1.0+build", "1.0/beta", ".x", "-x", "1.0 beta", "1.0\tb", "1.0\u200bb",
    "1.0\u202eb", "1\u00a0b", "1\x7fb", "1\x85b", "١٢٣", "1.٢", "1.a_é", "1.2.3.4", "v1.2.3\n4",
]  # fmt: skip
RULES = [
    VersionRule(),
    VersionRule(image_tag=True),
    VersionRule(r"v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?", image_tag=True),
    VersionRule(r"[^/]+"),
    VersionRule(r"\d+(\.\w+)*"),
]


@pytest.mark.parametrize("rule", RULES, ids=["any", "tag", "semver", "no-slash", "digits"])
def test_the_sensor_refuses_the_versions_the_template_refuses(
    render: Renderer, rule: VersionRule
) -> None:
    """Go's RE2 classes select what Python's rule refuses: whitespace, control characters
    and unassigned code points always; the tag grammar or the versionPattern besides. The
    version is stripped first, as the webhook service strips it."""
    template = checked_version_template([], rule)
    versions = [*RULE_VERSIONS, *(f"1{c}2" for c in _assigned_sample())]
    results = render([_job(template, {"product": "x", "version": v}) for v in versions])
    go = {
        v: not r.get("error") and r.get("out") == v.strip()
        for v, r in zip(versions, results, strict=True)
    }
    python = {v: rule.refusal(v.strip()) is None for v in versions}
    assert {v for v in versions if go[v] != python[v]} == set()


def test_a_pattern_go_cannot_read_refuses_every_version(render: Renderer) -> None:
    """Look-behind is Python's, not RE2's: the Sensor fails closed, never lets it through."""
    template = checked_version_template([], VersionRule(r"\d+(?<=0)"))
    [result] = render([_job(template, {"product": "x", "version": "10"})])
    assert result.get("error")
