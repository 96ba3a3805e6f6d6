"""The email service against a real SMTP server on loopback (:mod:`tests.fakes.smtp`):
STARTTLS with a certificate made here, a login, and the server's refusals, each a clear
error that never holds the password."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from reporters.sinks.delivery import SinkError
from reporters.sinks.email import EmailSink, Smtp, addresses
from tests.fakes.smtp import FakeSmtp

PASSWORD = "app-pa55word-s3cr3t"

EMAIL_DOC = """
email:
  subject: Application shop has been successfully synced.
message: |
  Application shop has been successfully synced at 2026-11-27T12:00:00Z.
  Sync operation details are available at: https://argocd.example.com/applications/shop?operation=true .
"""  # noqa: E501
"""docs/services/email.md, "Template" (rendered for app ``shop``, a service not slack)."""


def notified(recipient: str, note: dict[str, Any] | None = None) -> dict[str, Any]:
    found = yaml.safe_load(EMAIL_DOC)
    notification = {
        "recipient": recipient,
        "template": "app-sync-succeeded",
        **found,
        **(note or {}),
    }
    return {"id": "n1", "type": "app.deployed", "data": {"notification": notification}}


@pytest.fixture
def trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeSmtp:
    """A server whose CA the process trusts (as a CA in the system store would be)."""
    smtp = FakeSmtp(users={"argocd@example.com": PASSWORD})
    bundle = tmp_path / "ca.pem"
    smtp.ca.cert_pem.write_to_path(str(bundle))
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    return smtp


def sink_for(smtp: FakeSmtp, *, password: str = PASSWORD, **kwargs: Any) -> EmailSink:
    server = Smtp("localhost", smtp.port, username="argocd@example.com", password=password,
                  **kwargs)  # fmt: skip
    return EmailSink(server, "argocd@example.com")


def refused(sink: EmailSink, event: dict[str, Any]) -> SinkError:
    with pytest.raises(SinkError) as caught:
        sink.send(event)
    assert PASSWORD not in str(caught.value) and "czNjcjN0" not in str(caught.value)
    return caught.value


def test_a_mail_goes_over_starttls_after_a_login(trusted: FakeSmtp) -> None:
    with trusted:
        sink_for(trusted).send(notified("dev@example.com, ops@example.com"))
    [mail] = trusted.mails
    assert mail.login == "argocd@example.com" and trusted.logins == [("argocd@example.com", True)]
    assert mail.recipients == ["dev@example.com", "ops@example.com"]
    assert mail.message["Subject"] == "Application shop has been successfully synced."
    assert mail.message["To"] == "dev@example.com, ops@example.com"
    assert mail.message.get_content_type() == "text/plain"
    assert "successfully synced at 2026-11-27" in mail.message.get_content()


def test_html_and_the_body_of_the_block(trusted: FakeSmtp) -> None:
    with trusted:
        server = Smtp("localhost", trusted.port, username="argocd@example.com",
                      password=PASSWORD)  # fmt: skip
        sink = EmailSink(server, "argocd@example.com", html=True)
        sink.send(notified("dev@example.com", {"email": {"subject": "s", "body": "<b>shop</b>"}}))
    [mail] = trusted.mails
    assert mail.message.get_content_type() == "text/html"
    assert mail.message.get_content().strip() == "<b>shop</b>"


def test_a_refused_login_is_dead_and_says_whose(trusted: FakeSmtp) -> None:
    with trusted:
        error = refused(sink_for(trusted, password="wrong-s3cr3t"), notified("dev@example.com"))
    assert error.permanent
    assert str(error) == (
        f"SMTP server localhost:{trusted.port} refused the login of 'argocd@example.com': "
        "535 5.7.8 Authentication credentials invalid"
    )
    assert "wrong-s3cr3t" not in str(error) and not trusted.mails


def test_a_refused_recipient_is_dead_and_named(trusted: FakeSmtp) -> None:
    with trusted:
        sink = sink_for(trusted)
        error = refused(sink, notified("nobody@example.com"))
        some = refused(sink, notified("dev@example.com,nobody@example.com"))
    assert error.permanent and "refused every recipient: nobody@example.com (550 5.1.1" in str(
        error
    )
    assert some.permanent and "refused nobody@example.com (550 5.1.1" in str(some)
    assert "not sent again" in str(some)
    assert [m.recipients for m in trusted.mails] == [["dev@example.com"]]


def test_a_greylisted_recipient_is_retried(trusted: FakeSmtp) -> None:
    trusted.greylisted = ("later@example.com",)
    with trusted:
        error = refused(sink_for(trusted), notified("later@example.com"))
    assert not error.permanent and "450 4.2.0" in str(error)


def test_an_untrusted_certificate_is_dead_unless_verification_is_skipped() -> None:
    smtp = FakeSmtp(users={"argocd@example.com": PASSWORD})
    with smtp:
        error = refused(sink_for(smtp), notified("dev@example.com"))
        sink_for(smtp, insecure=True).send(notified("dev@example.com"))
    assert error.permanent and "TLS certificate is not trusted" in str(error)
    assert "insecure_skip_verify" in str(error)
    assert len(smtp.mails) == 1


def test_no_server_is_retried() -> None:
    smtp = FakeSmtp()  # never started: nothing listens on its port
    error = refused(sink_for(smtp), notified("dev@example.com"))
    assert not error.permanent and error.args[0].startswith("cannot reach SMTP server localhost")


def test_recipients_split_as_upstream() -> None:
    assert addresses("a@example.com, b@example.com ,c@example.com") == [
        "a@example.com", "b@example.com", "c@example.com"
    ]  # fmt: skip
