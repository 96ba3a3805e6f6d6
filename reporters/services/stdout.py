"""``service.stdout`` and ``--sink stdout``: one JSON line per event on standard output."""

from __future__ import annotations

from reporters.services import Flags, Kind, Options, register
from reporters.sinks.delivery import Sink


class StdoutOptions(Options):
    pass


def build(name: str, options: Options) -> Sink:
    from reporters.sinks.stdout import StdoutSink

    del options
    return StdoutSink(name=name or "stdout")


def flags(value: str, given: Flags) -> Sink | None:
    del given
    return build("stdout", StdoutOptions()) if value == "stdout" else None


KIND = register(Kind("stdout", StdoutOptions, build, flags=flags, flag_help="stdout", block=False))
