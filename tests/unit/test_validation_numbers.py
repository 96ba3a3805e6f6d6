"""Numbers in the configuration are bounded and strict: a value that loads is one the
compiler, Argo and the steps can use (``float(10**400)`` overflowed in the policy merge)."""

from __future__ import annotations

import pytest

from tests.support.cli import promoflow
from tests.unit.conftest import Workspace
from tests.unit.invoke import assert_clean_failure, invoke

POLICY = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionPolicy
metadata: {{name: p}}
spec:
  priority: {priority}
  policy:
    gates:
      - http: {{url: "https://status.example.com", expectStatus: {status}, retries: {retries}}}
"""
HUGE = "9" * 400


def _policy(priority: str = "0", status: str = "200", retries: str = "3") -> str:
    return POLICY.format(priority=priority, status=status, retries=retries)


@pytest.mark.parametrize(
    ("values", "where", "message"),
    [
        (
            {"priority": HUGE},
            "5:3",
            "spec.priority: Input should be less than or equal to 1000000000",
        ),
        ({"priority": "-" + HUGE}, "5:3", "spec.priority: Input should be greater than or equal"),
        ({"priority": "true"}, "5:3", "spec.priority: Input should be a valid integer"),
        ({"priority": ".inf"}, "5:3", "spec.priority: Input should be a valid integer"),
        ({"priority": ".nan"}, "5:3", "spec.priority: Input should be a valid integer"),
        ({"priority": "2.5"}, "5:3", "spec.priority: Input should be a valid integer"),
        ({"priority": '"10"'}, "5:3", "spec.priority: Input should be a valid integer"),
        (
            {"status": "99"},
            "8:51",
            "http.expectStatus: Input should be greater than or equal to 100",
        ),
        ({"status": "600"}, "8:51", "http.expectStatus: Input should be less than or equal to 599"),
        ({"status": HUGE}, "8:51", "http.expectStatus: Input should be less than or equal to 599"),
        ({"status": "200.0"}, "8:51", "http.expectStatus: Input should be a valid integer"),
        ({"status": "yes"}, "8:51", "http.expectStatus: Input should be a valid integer"),
        ({"retries": "-1"}, "8:70", "http.retries: Input should be greater than or equal to 0"),
        ({"retries": "101"}, "8:70", "http.retries: Input should be less than or equal to 100"),
        ({"retries": "1e3"}, "8:70", "http.retries: Input should be a valid integer"),
        ({"retries": ".inf"}, "8:70", "http.retries: Input should be a valid integer"),
    ],
    ids=lambda v: "-".join(f"{k}={v[:8]}" for k, v in v.items()) if isinstance(v, dict) else None,
)
def test_numbers_out_of_range_are_refused(
    ws: Workspace, values: dict[str, str], where: str, message: str
) -> None:
    ws.write_base()
    ws.write("policy.yaml", _policy(**values))
    result = invoke("validate", "-c", ".")
    assert_clean_failure(result, 1)
    [line] = result.lines
    assert line.startswith(f"policy.yaml:{where}: error: ") and message in line, line


def test_a_huge_priority_no_longer_crashes_compile(ws: Workspace) -> None:
    """The user's case: merging ranks policies with float(priority), which overflowed."""
    ws.write_base()
    ws.write("policy.yaml", _policy(priority=HUGE))
    result = promoflow("compile", "-c", ".", "-p", "shop", cwd=ws.root)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "spec.priority: Input should be less than or equal to 1000000000" in result.stderr


def test_numbers_in_range_load(ws: Workspace) -> None:
    ws.write_base()
    ws.write("policy.yaml", _policy(priority="-1000000000", status="599", retries="100"))
    assert ws.problems() == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--expect-status", "600"], "600 is not in the range 100<=x<=599"),
        (["--expect-status", "x"], "'x' is not a valid int"),
        (["--retries", "1000"], "1000 is not in the range 0<=x<=100"),
        (["--retries", "-1"], "-1 is not in the range 0<=x<=100"),
    ],
)
def test_http_check_step_numbers_are_bounded(args: list[str], message: str) -> None:
    result = invoke("step", "http-check", "--url", "https://status.example.com", *args)
    assert_clean_failure(result, 2)
    assert message in result.stderr


def test_backoff_is_capped() -> None:
    """Doubling a wait a hundred times overflows time.sleep; the gate caps it."""
    import httpx

    from orchestrator.adapters.web import Web
    from orchestrator.steps.http_check import MAX_BACKOFF, Check, run_check

    waits: list[float] = []
    client = Web(timeout=1, transport=httpx.MockTransport(lambda _: httpx.Response(503)))
    outcome = run_check(Check("https://s", retries=100), client=client, sleep=waits.append)
    assert (outcome.ok, outcome.attempts, max(waits)) == (False, 101, MAX_BACKOFF)


@pytest.mark.parametrize("value", ["inf", "nan", "-5", "1e9", "abc"])
def test_soak_scale_and_demo_soak_are_bounded(value: str) -> None:
    """``nan`` passed click's range check (every comparison with it is false) and ran the
    demo with a soak that never ends."""
    result = invoke("demo", "--soak", value)
    assert_clean_failure(result, 2)
    result = invoke("promote", "--local", "-p", "shop", "-v", "1", "--soak-scale", value)
    assert_clean_failure(result, 2)
