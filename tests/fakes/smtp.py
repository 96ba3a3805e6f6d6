"""A real SMTP server on loopback (aiosmtpd), as a mail relay answers a sender.

It offers STARTTLS with a certificate made in the test (``trustme``) and requires it
before ``AUTH`` (``auth_require_tls``) and before mail (``require_starttls``), as
submission servers on port 587 do; with ``users`` it requires a login, refusing a wrong
one ``535 5.7.8 Authentication credentials invalid``. A recipient outside ``mailboxes``
is refused ``550 5.1.1 ... User unknown``, one in ``greylisted`` ``450 4.2.0 ...
Greylisted``, as Postfix words them. Mails taken are in :attr:`FakeSmtp.mails`, parsed.
"""

from __future__ import annotations

import ssl
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from typing import Any, Self

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session

from orchestrator.simulator.serve import free_port


@dataclass
class Mail:
    sender: str
    recipients: list[str]
    message: EmailMessage
    login: str


@dataclass
class FakeSmtp:
    ca: trustme.CA = field(default_factory=trustme.CA)
    users: dict[str, str] = field(default_factory=dict)
    """Login → password; empty: no login asked."""
    mailboxes: tuple[str, ...] = ("dev@example.com", "ops@example.com")
    greylisted: tuple[str, ...] = ()
    mails: list[Mail] = field(default_factory=list)
    port: int = field(default_factory=free_port)
    logins: list[tuple[str, bool]] = field(default_factory=list)
    """Each login tried: (user, accepted)."""
    _controller: Controller | None = None

    # aiosmtpd's hooks, by name ------------------------------------------------------

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        if address in self.greylisted:
            return f"450 4.2.0 <{address}>: Recipient address rejected: Greylisted, try later"
        if address not in self.mailboxes:
            return (
                f"550 5.1.1 <{address}>: Recipient address rejected: User unknown in local "
                "recipient table"
            )
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 Ok"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        message = message_from_bytes(raw, policy=policy.default)
        assert isinstance(message, EmailMessage)
        login = session.auth_data.login.decode() if session.auth_data else ""
        self.mails.append(Mail(str(envelope.mail_from), list(envelope.rcpt_tos), message, login))
        return "250 2.0.0 Ok: queued"

    def _authenticate(
        self, server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        ok = (
            isinstance(data, LoginPassword)
            and self.users.get(data.login.decode()) == data.password.decode()
        )
        user = data.login.decode() if isinstance(data, LoginPassword) else ""
        self.logins.append((user, ok))
        return AuthResult(success=ok, handled=False, auth_data=data if ok else None)

    # life ---------------------------------------------------------------------------

    def __enter__(self) -> Self:
        cert = self.ca.issue_cert("127.0.0.1", "localhost")
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        cert.configure_cert(context)
        self._controller = Controller(
            self,
            hostname="127.0.0.1",
            port=self.port,
            server_hostname="localhost",
            tls_context=context,
            require_starttls=True,
            auth_require_tls=True,
            auth_required=bool(self.users),
            authenticator=self._authenticate,
        )
        self._controller.start()
        return self

    def __exit__(self, *_: object) -> None:
        if self._controller is not None:
            self._controller.stop()
