"""git's pkt-line framing, and the errors of its wire: what every exchange of
:mod:`gitwire` is made of, apart from what the exchanges are.

A pkt-line is four hex digits of length (the digits included) and the payload; ``0000``
(flush) and ``0001`` (delimiter) separate sections. Answers are read whole, then split.
"""

from __future__ import annotations

from collections.abc import Iterator

from orchestrator.errors import PromoflowError

FLUSH, DELIM = b"0000", b"0001"


class WireError(PromoflowError):
    """The server answered something this client cannot use; ``status`` is the HTTP one."""

    def __init__(self, message: str, status: int | None = None, transient: bool = False):
        super().__init__(message, transient=transient)
        self.status = status


class Unreachable(WireError):
    """No usable answer: the connection failed or broke (``transient`` says if retrying
    may help: a refused connection may, a host name that does not resolve will not)."""


class RefUpdateRejected(WireError):
    """The server refused the ref update (it moved, or a hook said no)."""


# -- pkt-lines ---------------------------------------------------------------------------


def pkt(line: str | bytes) -> bytes:
    data = line.encode() if isinstance(line, str) else line
    return b"%04x" % (len(data) + 4) + data


def read_pkts(data: bytes) -> Iterator[bytes | None]:
    """Payloads in order; ``None`` for flush/delim/response-end packets."""
    pos = 0
    while pos + 4 <= len(data):
        try:
            size = int(data[pos : pos + 4], 16)
        except ValueError:
            raise WireError("the server's answer is not in git's pkt-line format") from None
        if size < 4:
            pos += 4
            yield None
            continue
        if pos + size > len(data):
            raise WireError("the server's answer is truncated", transient=True)
        yield data[pos + 4 : pos + size]
        pos += size
