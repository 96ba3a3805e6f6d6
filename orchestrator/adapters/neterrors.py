"""Connection failures in plain words, and whether waiting could fix them.

A refused connection, a reset or a timeout may pass (the server restarts, the network
recovers), so they are transient and retried. A host name that does not resolve, a
certificate that is not trusted or a TLS handshake against a plain-HTTP port will fail the
same way every time: retrying them only delays the error, so they are permanent and say
what to change. No library exception names reach the user.
"""

from __future__ import annotations

import errno
import socket
import ssl
from dataclasses import dataclass


@dataclass(frozen=True)
class Failure:
    message: str
    transient: bool


def describe(exc: BaseException, where: str) -> Failure:
    """What went wrong talking to ``where`` (a host or URL, already free of credentials)."""
    if isinstance(exc, socket.gaierror):
        return Failure(f"cannot resolve the host name of {where}: check the URL", False)
    if isinstance(exc, ssl.SSLCertVerificationError):
        reason = exc.verify_message or "certificate verification failed"
        return Failure(f"TLS certificate of {where} is not trusted ({reason})", False)
    if isinstance(exc, ssl.SSLError):
        text = str(exc).lower()
        if "wrong version number" in text or "record layer failure" in text:
            return Failure(
                f"{where} does not speak TLS (a plain-HTTP server?): use an http:// URL", False
            )
        return Failure(f"TLS handshake with {where} failed", True)
    if isinstance(exc, ConnectionRefusedError):
        return Failure(f"connection to {where} refused (is the server running?)", True)
    if isinstance(exc, ConnectionResetError | BrokenPipeError):
        return Failure(f"connection to {where} was reset", True)
    if isinstance(exc, TimeoutError | socket.timeout):
        return Failure(f"{where} did not answer in time", True)
    if isinstance(exc, OSError) and exc.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        return Failure(f"no route to {where}", True)
    if isinstance(exc, OSError) and exc.strerror:
        return Failure(f"cannot reach {where} ({exc.strerror.lower()})", True)
    return Failure(f"the connection to {where} broke", True)
