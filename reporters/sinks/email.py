"""``service.email``: a mail per notification over SMTP, as notifications-engine sends it.

To: the recipient split at ``,`` (spaces trimmed); Subject: the template's
``email.subject``; the body: ``email.body``, else the message, as ``text/plain`` or, with
``html``, ``text/html``. The connection is TLS from the start on port 465 and otherwise
upgraded with STARTTLS when the server offers it (the certificate verified unless
``insecure_skip_verify``); it authenticates when a username is given, and only over
TLS, so a password never crosses the network in the clear.

Python's ``smtplib`` speaks the protocol; this module says what an answer means for the
delivery. A 5xx reply is final (a refused login, a refused sender or recipient, a message
refused): dead, with the server's words. A 4xx reply (greylisting, a full mailbox, a
server busy) and a broken connection are retried. A mail refused for some of its
recipients was delivered to the others, so it is not retried either (they would get it
twice), and the error names who did not get it. The password is never part of an error:
errors carry the server's replies, masked of it in every form.
"""

from __future__ import annotations

import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

from orchestrator.urls import scrub
from reporters.sinks.delivery import SinkError
from reporters.sinks.notified import block_of, notification_of, recipient_of, text

IMPLICIT_TLS = 465


def addresses(recipient: str) -> list[str]:
    """Upstream's ``parseTo``: the recipient split at commas, each trimmed of spaces."""
    return [part.strip(" ") for part in recipient.split(",")]


def message_of(
    notification: dict[str, Any], sender: str, to: list[str], *, html: bool
) -> EmailMessage:
    block = block_of(notification, "email")
    mail = EmailMessage()
    mail["From"] = sender
    mail["To"] = ", ".join(to)
    mail["Subject"] = text(block, "subject")
    mail["Date"] = formatdate(localtime=False, usegmt=True)
    mail["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2] or None)
    body = text(block, "body") or text(notification, "message")
    mail.set_content(body, subtype="html" if html else "plain")
    return mail


@dataclass
class Smtp:
    """Where and how to connect."""

    host: str
    port: int
    username: str = ""
    password: str = field(default="", repr=False)
    insecure: bool = False
    timeout: float = 10

    def tls(self) -> ssl.SSLContext:
        context = ssl.create_default_context()
        if self.insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        return context

    def open(self) -> smtplib.SMTP:
        """A session ready to send: TLS, and logged in when there is a username."""
        if self.port == IMPLICIT_TLS:
            session: smtplib.SMTP = smtplib.SMTP_SSL(
                self.host, self.port, timeout=self.timeout, context=self.tls()
            )
        else:
            session = smtplib.SMTP(self.host, self.port, timeout=self.timeout)
        try:
            self._secure(session)
        except BaseException:
            session.close()
            raise
        return session

    def _secure(self, session: smtplib.SMTP) -> None:
        secure = self.port == IMPLICIT_TLS
        if not secure:
            session.ehlo()
            secure = session.has_extn("starttls")
            if secure:
                session.starttls(context=self.tls())
                session.ehlo()
        if not self.username:
            return
        if not secure:
            raise SinkError(
                f"SMTP server {self.host}:{self.port} offers no STARTTLS: the password is "
                "not sent in the clear (use port 465, or a server that offers TLS)",
                permanent=True,
            )
        session.login(self.username, self.password)


class EmailSink:
    def __init__(self, server: Smtp, sender: str, *, html: bool = False, name: str = "email"):
        self.name = name
        self.server = server
        self.sender = sender
        self.html = html
        self._secrets = tuple(s for s in (server.password,) if s)

    def send(self, event: dict[str, Any]) -> None:
        notification = notification_of(event, "email")
        to = addresses(recipient_of(notification, "email", "address"))
        mail = message_of(notification, self.sender, to, html=self.html)
        where = f"SMTP server {self.server.host}:{self.server.port}"
        try:
            session = self.server.open()
            try:
                refused = session.send_message(mail, from_addr=self.sender, to_addrs=to)
            finally:
                _quit(session)
        except SinkError:
            raise
        except smtplib.SMTPRecipientsRefused as exc:
            said = f"{where} refused every recipient: {_refused(exc.recipients)}"
            raise self._error(said, _codes(exc.recipients)) from None
        except smtplib.SMTPAuthenticationError as exc:
            raise self._error(
                f"{where} refused the login of {self.server.username!r}: {_reply(exc)}",
                [exc.smtp_code],
            ) from None
        except smtplib.SMTPSenderRefused as exc:
            said = f"{where} refused the sender {self.sender}: {_reply(exc)}"
            raise self._error(said, [exc.smtp_code]) from None
        except smtplib.SMTPResponseException as exc:
            raise self._error(f"{where} answered {_reply(exc)}", [exc.smtp_code]) from None
        except smtplib.SMTPNotSupportedError as exc:
            raise SinkError(f"{where}: {exc}", permanent=True) from None
        except ssl.SSLCertVerificationError as exc:
            raise SinkError(
                f"{where}: its TLS certificate is not trusted ({exc.verify_message}): trust "
                "its CA, or set insecure_skip_verify",
                permanent=True,
            ) from None
        except (smtplib.SMTPException, OSError) as exc:
            reason = str(exc) or type(exc).__name__
            raise SinkError(scrub(f"cannot reach {where}: {reason}", self._secrets)) from None
        if refused:
            raise SinkError(
                f"{where} took the mail for some recipients but refused {_refused(refused)}"
                " (not sent again: the others have it)",
                permanent=True,
            )

    def _error(self, reason: str, codes: list[int]) -> SinkError:
        """Retried when every reply was a 4xx (try later), dead otherwise."""
        transient = bool(codes) and all(400 <= code < 500 for code in codes)
        return SinkError(scrub(reason, self._secrets), permanent=not transient)

    def close(self) -> None:
        pass


def _reply(exc: smtplib.SMTPResponseException) -> str:
    said = exc.smtp_error
    words = said.decode(errors="replace") if isinstance(said, bytes) else str(said)
    return f"{exc.smtp_code} {' '.join(words.split())}"


def _refused(recipients: dict[str, tuple[int, bytes]]) -> str:
    return "; ".join(
        f"{address} ({code} {' '.join(said.decode(errors='replace').split())})"
        for address, (code, said) in recipients.items()
    )


def _codes(recipients: dict[str, tuple[int, bytes]]) -> list[int]:
    return [code for code, _ in recipients.values()]


def _quit(session: smtplib.SMTP) -> None:
    try:
        session.quit()
    except (smtplib.SMTPException, OSError):
        session.close()
