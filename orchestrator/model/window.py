"""PromotionWindow: when promotions into matching environments may happen.

A window selects (product, environment) pairs exactly as a policy does, then names the
times they are closed (``deny``) and, optionally, the only times they are open
(``allow``). Each entry is a recurring window (a cron ``schedule`` plus a ``duration``) or
a one-off range (``from``/``to``), read in its ``timeZone``. Everything is checked here, at
load time, so a window that says something impossible is an error with its position, never
a freeze that silently does not happen. What the times mean across DST changes is
:mod:`orchestrator.schedules`'s rule; what a set of windows makes of one instant is
:mod:`orchestrator.windows`'.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from typing import Annotated, Any, ClassVar, Literal
from zoneinfo import ZoneInfo

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    ValidationInfo,
    field_validator,
    model_validator,
)

from orchestrator.model.base import Model, Resource
from orchestrator.model.duration import Duration
from orchestrator.model.policy import PolicySelector
from orchestrator.schedules import cron, zones
from orchestrator.schedules.walltime import first_reading

WhenClosed = Literal["wait", "fail"]
"""What a promotion does at a closed window: wait for it to open, or fail at once."""


def _check_schedule(text: str) -> str:
    cron.parse(text)  # CronError is a ValueError: pydantic places it at the field
    return text


def _check_zone(name: str) -> str:
    zones.zone(name)
    return name


def _as_text(value: Any) -> Any:
    """YAML reads ``2026-12-20`` and ``2026-12-20 08:00:00`` as dates: keep what was meant."""
    if isinstance(value, datetime):
        return value.isoformat(timespec="minutes")
    if isinstance(value, date):
        return value.isoformat()
    return value


def _check_local_time(text: str) -> str:
    parsed(text)
    return text


def parsed(text: str) -> datetime:
    """A ``from``/``to`` as written: naive (the window's zone) or with an offset."""
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        raise ValueError(
            f"{text!r} is not a date and time; write YYYY-MM-DDTHH:MM in the window's "
            "timeZone (2026-12-20T08:00) or with an offset (2026-12-20T08:00+01:00)"
        ) from None


def _stripped(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


CronText = Annotated[str, BeforeValidator(_stripped), AfterValidator(_check_schedule)]
ZoneName = Annotated[str, AfterValidator(_check_zone)]
LocalTime = Annotated[str, BeforeValidator(_as_text), AfterValidator(_check_local_time)]


class WindowEntry(Model):
    """One closed (``deny``) or open (``allow``) period, recurring or one-off."""

    name: Annotated[str, Field(min_length=1, max_length=100)] | None = None
    """Shown in messages (``frozen until ... (holiday freeze)``)."""
    time_zone: ZoneName = zones.UTC_NAME
    """IANA name: the schedule, ``from`` and ``to`` are read on this zone's clock."""
    schedule: CronText | None = None
    """When the window starts: five cron fields, as an Argo CronWorkflow reads them."""
    duration: Duration | None = None
    """How long each start stays in effect, in wall-clock time of ``timeZone``."""
    from_: LocalTime | None = Field(default=None, alias="from")
    to: LocalTime | None = None

    @field_validator("name")
    @classmethod
    def _plain(cls, value: str | None) -> str | None:
        """The window travels into the workflow as a parameter, where Argo would read
        ``{{...}}`` as one of its expressions and change or refuse the text."""
        if value is not None and ("{{" in value or "}}" in value):
            raise ValueError("must not hold '{{' or '}}' (Argo reads them as an expression)")
        return value

    @field_validator("duration")
    @classmethod
    def _positive(cls, value: timedelta | None) -> timedelta | None:
        if value is not None and value <= timedelta(0):
            raise ValueError("a window lasts longer than 0s; write e.g. '9h' or '2d'")
        return value

    @field_validator("from_")
    @classmethod
    def _check_from(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        if info.data.get("schedule") is not None:
            raise ValueError(
                "an entry has either 'schedule' (with 'duration') or 'from' and 'to', not both"
            )
        return value

    @field_validator("to")
    @classmethod
    def _after_from(cls, value: str | None, info: ValidationInfo) -> str | None:
        if value is None:
            return None
        end = parsed(value)
        start_text, zone_name = info.data.get("from_"), info.data.get("time_zone")
        if isinstance(start_text, str) and isinstance(zone_name, str):
            zone = zones.zone(zone_name)
            if instant(end, zone) <= instant(parsed(start_text), zone):
                raise ValueError(f"'to' ({value}) is not after 'from' ({start_text})")
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> WindowEntry:
        ranged = self.from_ is not None or self.to is not None
        if self.schedule is None and not ranged:
            raise ValueError(
                "an entry needs either 'schedule' with 'duration' (a recurring window) or "
                "'from' and 'to' (a one-off range)"
            )
        if self.schedule is not None and self.duration is None:
            raise ValueError("a 'schedule' needs a 'duration': how long each window lasts")
        if self.schedule is None and self.duration is not None:
            raise ValueError("'duration' belongs to a 'schedule'; a range ends at its 'to'")
        if ranged and (self.from_ is None or self.to is None):
            raise ValueError(f"a range needs both 'from' and 'to' (missing "
                             f"{'from' if self.from_ is None else 'to'!r})")  # fmt: skip
        return self

    @property
    def zone(self) -> ZoneInfo:
        return zones.zone(self.time_zone)

    def recurring(self) -> cron.Schedule | None:
        """The parsed schedule, ``None`` for a one-off range."""
        return cron.parse(self.schedule) if self.schedule is not None else None

    def one_off(self) -> tuple[datetime, datetime] | None:
        """The one-off range as instants (UTC), ``None`` for a recurring entry."""
        if self.from_ is None or self.to is None:
            return None
        return instant(parsed(self.from_), self.zone), instant(parsed(self.to), self.zone)


def instant(value: datetime, zone: ZoneInfo) -> datetime:
    """A written time as an instant: its own offset, else the zone's clock (the first
    instant the clock shows it or later, see :mod:`orchestrator.schedules.walltime`)."""
    if value.tzinfo is not None:
        return value.astimezone(UTC)
    return first_reading(value, zone)


class PromotionWindowSpec(Model):
    selector: PolicySelector = PolicySelector()
    when_closed: WhenClosed = "wait"
    deny: list[WindowEntry] = []
    """Closed during each of these (deny beats allow)."""
    allow: list[WindowEntry] = []
    """When given, closed outside all of these."""

    @model_validator(mode="after")
    def _says_something(self) -> PromotionWindowSpec:
        if not self.deny and not self.allow:
            raise ValueError(
                "a window with no 'deny' and no 'allow' entries closes nothing; "
                "add a 'deny' entry such as {schedule: '0 16 * * 5', duration: 64h}"
            )
        return self


class PromotionWindow(Resource):
    KIND: ClassVar[str] = "PromotionWindow"
    kind: Literal["PromotionWindow"] = "PromotionWindow"
    spec: PromotionWindowSpec
