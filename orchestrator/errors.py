"""One error type for everything a step or adapter reports, and the exit codes it maps to.

A workflow retries a step only when trying again may help, so every failure says which it
is: ``transient`` (a refused connection, a 5xx, a push that lost a race) or not (wrong
credentials, a missing branch, a Degraded app). Adapters and steps raise subclasses of
:class:`PromoflowError` named for what failed (``GitError``, ``ArgoCDError``, ...), all
with the same two facts, so a retry loop or a step's exit needs one ``except``.

Exit codes, as the README documents them: 0 done, 1 cannot be done as asked, 2 usage
error, 75 transient (``EX_TEMPFAIL`` of sysexits.h; the only code the workflow retries).
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_TRANSIENT = 75


class PromoflowError(Exception):
    """A failure to report in one line (the message is what a user reads: no traceback,
    no library exception names, no credentials), and whether trying again may help."""

    def __init__(self, message: str, *, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient

    @property
    def exit_code(self) -> int:
        return EXIT_TRANSIENT if self.transient else EXIT_FAILED


class UsageError(PromoflowError):
    """The request itself is wrong (a flag, a value): exit 2, never retried."""

    def __init__(self, message: str) -> None:
        super().__init__(message, transient=False)

    @property
    def exit_code(self) -> int:
        return EXIT_USAGE
