"""PromotionWindow files through the loader: every bad entry reported at its position."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.loading import load_config
from orchestrator.model import PromotionWindow
from tests.unit.conftest import Workspace

HEAD = """\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionWindow
metadata: {name: freeze}
spec:
  deny:
"""


def problems(ws: Workspace, entries: str) -> list[str]:
    ws.write("window.yaml", HEAD + entries)
    return ws.problems()


def test_the_documented_example_loads(ws: Workspace) -> None:
    ws.write(
        "window.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionWindow
        metadata: {name: weekend-freeze}
        spec:
          selector:
            environments: {production: true}
          whenClosed: fail
          deny:
            - name: weekend
              schedule: "0 16 * * 5"
              duration: 64h
              timeZone: Europe/Berlin
            - name: holiday freeze
              from: 2026-12-20
              to: "2027-01-04T08:00"
              timeZone: Europe/Berlin
          allow:
            - schedule: "0 8 * * MON-FRI"
              duration: 9h
              timeZone: Europe/Berlin
        """,
    )
    (window,) = ws.config().of(PromotionWindow)
    assert window.spec.when_closed == "fail"
    assert window.spec.deny[1].from_ == "2026-12-20"  # YAML read it as a date
    assert window.spec.selector.environments.production is True


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        ("61 * * * *", "minute field '61': 61 is above the maximum 59; the minute takes 0-59"),
        ("0 24 * * *", "hour field '24': 24 is above the maximum 23; the hour takes 0-23"),
        ("0 0 0 * *", "day of month field '0': 0 is below the minimum 1; the day of month "
                      "takes 1-31"),
        ("0 0 * 13 *", "month field '13': 13 is above the maximum 12; the month takes 1-12 or "
                       "JAN-DEC"),
        ("0 16 * * 7", "day of week field '7': 7 is above the maximum 6; the day of week takes "
                       "0-6 (0 is Sunday) or SUN-SAT"),
        ("0 16 * * FRIDAY", "day of week field 'FRIDAY': 'FRIDAY' is not a number or a name; "
                            "the day of week takes 0-6 (0 is Sunday) or SUN-SAT"),
        ("*/0 * * * *", "minute field '*/0': a step of 0; steps are 1 or more; the minute "
                        "takes 0-59"),
        ("5-1 * * * *", "minute field '5-1': the range starts at 5, after its end 1; the minute "
                        "takes 0-59"),
        ("0 16 * *", "expected 5 fields (minute hour day-of-month month day-of-week), found 4"),
        ("0 0 30 2 *", "never fires: no day 30 in February; pick a day of month up to 29"),
        ("@every 1h", "'@every' is not a window start"),
    ],
)  # fmt: skip
def test_a_bad_schedule_names_the_field_and_what_it_takes(
    ws: Workspace, schedule: str, message: str
) -> None:
    found = problems(ws, f'    - schedule: "{schedule}"\n      duration: 1h\n')
    assert len(found) == 1
    assert found[0].startswith("window.yaml:6:7: error: spec.deny[0].schedule: " + message)


def test_an_unknown_zone_suggests_the_closest(ws: Workspace) -> None:
    found = problems(
        ws,
        '    - schedule: "0 16 * * 5"\n      duration: 1h\n      timeZone: Europe/Berln\n'
        "    - {from: '2026-12-20T00:00', to: '2026-12-21T00:00', timeZone: berlin}\n",
    )
    assert found == [
        "window.yaml:8:7: error: spec.deny[0].timeZone: unknown time zone 'Europe/Berln' "
        "(did you mean 'Europe/Berlin' or 'Europe/Belfast' or 'Europe/Helsinki'?); write an "
        "IANA name such as 'Europe/Berlin', 'America/New_York' or 'UTC'",
        "window.yaml:9:58: error: spec.deny[1].timeZone: unknown time zone 'berlin' (did you "
        "mean 'Europe/Berlin'?); write an IANA name such as 'Europe/Berlin', "
        "'America/New_York' or 'UTC'",
    ]


@pytest.mark.parametrize("duration", ["0s", "0", "-1h"])
def test_a_window_lasts_longer_than_nothing(ws: Workspace, duration: str) -> None:
    (found,) = problems(ws, f'    - schedule: "0 16 * * 5"\n      duration: {duration}\n')
    assert found.startswith("window.yaml:7:7: error: spec.deny[0].duration: ")


def test_a_duration_longer_than_the_period_is_fine(ws: Workspace) -> None:
    ws.write("window.yaml", HEAD + '    - schedule: "0 * * * *"\n      duration: 3h\n')
    assert ws.problems() == []


def test_a_range_ends_after_it_starts(ws: Workspace) -> None:
    found = problems(
        ws,
        "    - from: '2026-12-20T08:00'\n      to: '2026-12-20T08:00'\n"
        "    - from: '2026-12-20T08:00+01:00'\n      to: '2026-12-20T06:30Z'\n"
        "    - from: '2026-12-20T08:00'\n      to: '2026-12-20T09:00'\n",
    )
    assert found == [
        "window.yaml:7:7: error: spec.deny[0].to: 'to' (2026-12-20T08:00) is not after "
        "'from' (2026-12-20T08:00)",
        "window.yaml:9:7: error: spec.deny[1].to: 'to' (2026-12-20T06:30Z) is not after "
        "'from' (2026-12-20T08:00+01:00)",
    ]


def test_an_entry_is_a_schedule_or_a_range(ws: Workspace) -> None:
    found = problems(
        ws,
        '    - schedule: "0 1 * * *"\n      duration: 1h\n'
        "      from: '2026-12-20T00:00'\n      to: '2026-12-21T00:00'\n"
        "    - name: nothing\n"
        '    - schedule: "0 1 * * *"\n'
        "    - from: '2026-12-20T00:00'\n"
        "    - {from: 'Dec 20', to: '2026-12-21T00:00'}\n"
        "    - {from: '2026-12-20T00:00', to: '2026-12-21T00:00', duration: 1h}\n",
    )
    assert found == [
        "window.yaml:8:7: error: spec.deny[0].from: an entry has either 'schedule' (with "
        "'duration') or 'from' and 'to', not both",
        "window.yaml:10:7: error: spec.deny[1]: an entry needs either 'schedule' with "
        "'duration' (a recurring window) or 'from' and 'to' (a one-off range)",
        "window.yaml:11:7: error: spec.deny[2]: a 'schedule' needs a 'duration': how long "
        "each window lasts",
        "window.yaml:12:7: error: spec.deny[3]: a range needs both 'from' and 'to' (missing 'to')",
        "window.yaml:13:8: error: spec.deny[4].from: 'Dec 20' is not a date and time; write "
        "YYYY-MM-DDTHH:MM in the window's timeZone (2026-12-20T08:00) or with an offset "
        "(2026-12-20T08:00+01:00)",
        "window.yaml:14:7: error: spec.deny[5]: 'duration' belongs to a 'schedule'; a range "
        "ends at its 'to'",
    ]


def test_a_window_that_closes_nothing_and_a_bad_when_closed(ws: Workspace) -> None:
    ws.write(
        "window.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionWindow
        metadata: {name: empty}
        spec:
          selector: {environments: {production: true}}
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionWindow
        metadata: {name: never}
        spec:
          whenClosed: never
          allow: [{schedule: "0 8 * * *", duration: 9h}]
        """,
    )
    assert ws.problems() == [
        "window.yaml:4:1: error: spec: a window with no 'deny' and no 'allow' entries closes "
        "nothing; add a 'deny' entry such as {schedule: '0 16 * * 5', duration: 64h}",
        "window.yaml:11:3: error: spec.whenClosed: Input should be 'wait' or 'fail'",
    ]


def test_a_window_in_python(ws: Workspace) -> None:
    ws.write(
        "windows.py",
        """
        from orchestrator import dsl

        weekend = dsl.window(
            "weekend",
            selector={"environments": {"production": True}},
            deny=[{"schedule": "0 16 * * FRI", "duration": "64h", "time_zone": "Europe/Berlin"}],
        )
        """,
    )
    (window,) = ws.config().of(PromotionWindow)
    assert (window.name, window.source.origin.line) == ("weekend", 3)
    assert window.spec.deny[0].time_zone == "Europe/Berlin"


def test_a_broken_python_window_is_an_error_at_its_call(ws: Workspace) -> None:
    ws.write(
        "windows.py",
        """
        from orchestrator import dsl

        weekend = dsl.window("weekend", deny=[{"schedule": "0 16 * * 7", "duration": "1h"}])
        """,
    )
    (found,) = ws.problems()
    assert found.startswith("windows.py:3:")
    assert "day of week field '7'" in found


def test_a_window_name_argo_would_read_as_an_expression_is_refused(tmp_path: Path) -> None:
    """The window reaches the workflow as a parameter: ``{{...}}`` would be Argo's."""
    (tmp_path / "w.yaml").write_text(
        "apiVersion: promoflow.dev/v1alpha1\nkind: PromotionWindow\nmetadata: {name: w}\n"
        "spec:\n  deny:\n    - name: 'freeze {{workflow.name}}'\n"
        "      schedule: '0 16 * * 5'\n      duration: 64h\n"
    )
    _, problems = load_config(tmp_path)
    assert [(Path(p.position.file).name, p.position.line, p.position.col, p.message)
            for p in problems] == [
        ("w.yaml", 6, 7, "spec.deny[0].name: must not hold '{{' or '}}' (Argo reads them "
         "as an expression)"),
    ]  # fmt: skip
