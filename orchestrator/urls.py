"""URLs from users: check them once, where they enter, and keep credentials out of output.

Why one module: URLs arrive from the configuration (repository, clusters, HTTP gates), from
flags (``--argo-server``, ``--repo``, ``--url``) and from the environment (``ARGO_SERVER``,
``ARGOCD_SERVER``, ``PROMOFLOW_REPORT_URL``, ...). Each of them may be malformed (Python's
``urlsplit`` raises ``ValueError`` on ``.port`` of ``host:99999``) or carry a credential
(``https://bot:TOKEN@host``, ``?access_token=...``) that would otherwise be printed in
compiled YAML, run records and error messages. The checks here refuse both with words a
person can act on, and never repeat the URL itself: a malformed URL cannot be reliably
split into "the secret part" and the rest, so no message echoes one.

:func:`scrub` is the other half: every message, record and printed output passes through it,
so a credential that arrives some other way is masked before anyone sees it. It is pure
(``re`` and ``urllib`` only), so the promote step can use it without start-up cost:
``orchestrator.urls.scrub(text, secrets=credentials.secrets())``.
"""

from __future__ import annotations

import base64
import functools
import re
from collections.abc import Iterable, Iterator
from typing import Any
from urllib.parse import parse_qsl, urlsplit

MASK = "***"

_SECRET_NAME = (
    r"(?:[\w.\-]*[_\-.])?"
    r"(?:token|secret|password|passwd|pwd|signature|sig|api_?key|apikey|key|credentials?|auth)"
)
_SECRET_PARAM_NAME = re.compile(rf"^{_SECRET_NAME}$", re.IGNORECASE)
"""Query parameters that carry credentials: ``token``, ``access_token``, ``private_token``,
``api_key``, ``X-Amz-Signature``, ``sig`` (Azure SAS), ``client_secret``, ``password``..."""

_USERINFO = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<userinfo>[^/?#\s\"'<>\\`]*)@")
_QUERY_SECRET = re.compile(rf"(?P<name>[?&;]{_SECRET_NAME}=)[^&#\s\"'<>]+", re.IGNORECASE)
_AUTH_HEADER = re.compile(r"\b(?P<scheme>Bearer|Basic|bearer)\s+(?P<value>[A-Za-z0-9._~+/=\-]{8,})")
_HEADER_ECHO = re.compile(
    r"(?P<name>\b(?:proxy-)?(?:authorization|private-token|x-api-key|api-key|x-auth-token"
    r"|x-gitlab-token|x-access-token|x-hub-signature(?:-256)?|cookie|set-cookie)[\"']?\s*[:=]\s*"
    r"[\"']?)(?:(?P<scheme>bearer|basic|token|bot|sha256=|sha1=)\s*)?(?P<value>[^\s\"',;]+)",
    re.IGNORECASE,
)
"""A request header echoed in an error body or a log (``Authorization: token ghp_...``,
``PRIVATE-TOKEN: ...``, ``X-Api-Key=...``): its value."""
_PATH_SECRET = re.compile(
    r"(?P<keep>(?:hooks\.slack\.com/(?:services|workflows|triggers)/"
    r"|discord(?:app)?\.com/api/webhooks/\d+/"
    r"|\.webhook\.office\.com/webhookb2/"
    r"|://[^/\s\"'<>]+/webhooks/[A-Za-z0-9_\-]+/))[^\s\"'<>?#]+",
    re.IGNORECASE,
)
"""URLs whose path is the credential: Slack's ``/services/T/B/SECRET``, Discord's and
Teams' incoming webhooks, and promoflow's own ``/webhooks/PROVIDER/TOKEN``."""
_MAY_HOLD = re.compile(
    r"://|=|@|bearer|basic|authorization|token|key|signature|cookie", re.IGNORECASE
)
"""What every pattern below needs somewhere in the text: one search rules most strings out
(timestamps, names, revisions, image references)."""
_TOKEN_LIKE = re.compile(r"[A-Z0-9+/=]")
"""A header value has digits, capitals or base64 signs; a word (``Basic authentication``)
has none and is left alone."""
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_HOST_LABEL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_\-]*[A-Za-z0-9_])?$")


class UrlError(ValueError):
    """A URL that cannot be used; the message names the problem, never the URL."""


def scrub(text: str, secrets: Iterable[str] = ()) -> str:
    """``text`` with credentials masked: the user-info of URLs (``https://***@host``),
    credential query parameters (``?token=***``), URL paths that are the credential
    (Slack's ``/services/T/B/***``), echoed headers (``Authorization: ***``,
    ``PRIVATE-TOKEN: ***``), ``Bearer``/``Basic`` values and each of ``secrets`` (e.g. the
    token a step was given) in whatever form a server echoes it: whole, a prefix of it,
    in another case, or base64-encoded (alone or inside ``user:secret``)."""
    known = tuple(s for s in secrets if s)
    if len(text) <= CACHED_TEXT:
        return _scrub_short(text, known)
    return _scrub(text, known)


CACHED_TEXT = 512
"""Strings up to this long are scrubbed once per set of secrets and remembered: the
reporter scrubs every state it keeps, and an app's states repeat most of their strings
(names, revisions, images, messages) from one watch event to the next."""


@functools.lru_cache(maxsize=1 << 16)
def _scrub_short(text: str, known: tuple[str, ...]) -> str:
    return _scrub(text, known)


def _scrub(text: str, known: tuple[str, ...]) -> str:
    if not _MAY_HOLD.search(text):
        return _mask_echoes(text, _echoes(known)) if known else text
    if "://" in text:
        text = _USERINFO.sub(_mask_userinfo, text)
        text = _PATH_SECRET.sub(lambda m: m.group("keep") + MASK, text)
    if "=" in text:
        text = _QUERY_SECRET.sub(lambda m: m.group("name") + MASK, text)
    if ":" in text or "=" in text:
        text = _HEADER_ECHO.sub(_mask_header_echo, text)
    text = _AUTH_HEADER.sub(_mask_header, text)
    return _mask_echoes(text, _echoes(known)) if known else text


MIN_PREFIX = 8
"""Characters of a secret (of 12 or more) that, at the start of an echo, mark it as one:
a server that prints ``token ghp_a1b2c3d4...`` has printed part of the secret."""
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


@functools.lru_cache(maxsize=256)
def _echoes(secrets: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    """What to look for, lower-cased, each with the length a match needs: every secret
    (a prefix of :data:`MIN_PREFIX` of it, or all of a short one) and its base64 forms
    (standard and URL-safe) at each of the three alignments it can have inside a longer
    encoded text, such as ``Basic base64(user:secret)``."""
    found: dict[str, int] = {}
    for secret in secrets:
        lowered = secret.translate(_ASCII_LOWER)
        whole = "://" in secret  # a URL kept as a secret: its scheme is no echo of it
        needed = len(lowered) if whole else _needed(len(lowered))
        found[lowered] = min(found.get(lowered, len(lowered)), needed)
        raw = secret.encode()
        for offset in range(3):
            encoded = base64.b64encode(b"\0" * offset + raw).decode()
            start, end = -(-offset * 4 // 3), (offset + len(raw)) * 8 // 6
            for form in (encoded, encoded.replace("+", "-").replace("/", "_")):
                middle = form[start:end].translate(_ASCII_LOWER)
                if len(middle) >= 8:
                    found.setdefault(middle, _needed(len(middle)))
    return tuple(found.items())


def _needed(length: int) -> int:
    return length if length < 12 else MIN_PREFIX


def _mask_echoes(text: str, echoes: tuple[tuple[str, int], ...]) -> str:
    """``text`` with every span that starts like one of ``echoes`` (at least its needed
    length, any ASCII case) and goes on matching it, masked."""
    lowered = text.translate(_ASCII_LOWER)  # ASCII only: indexes stay those of ``text``
    spans: list[tuple[int, int]] = []
    for echo, needed in echoes:
        head = echo[:needed]
        at = lowered.find(head)
        while at >= 0:
            end = at + needed
            while end - at < len(echo) and end < len(lowered) and lowered[end] == echo[end - at]:
                end += 1
            spans.append((at, end))
            at = lowered.find(head, end)
    if not spans:
        return text
    out, last = [], 0
    for start, end in sorted(spans):
        if end <= last:
            continue
        out.append(text[last:start] if start > last else "")
        if start >= last:
            out.append(MASK)
        last = end
    out.append(text[last:])
    return "".join(out)


def _mask_header_echo(match: re.Match[str]) -> str:
    scheme = match.group("scheme")
    if not scheme:
        return f"{match.group('name')}{MASK}"
    return f"{match.group('name')}{scheme}{'' if scheme.endswith('=') else ' '}{MASK}"


def _mask_header(match: re.Match[str]) -> str:
    if _TOKEN_LIKE.search(match.group("value")):
        return f"{match.group('scheme')} {MASK}"
    return match.group(0)


def _mask_userinfo(match: re.Match[str]) -> str:
    scheme, userinfo = match.group("scheme"), match.group("userinfo")
    if ":" not in userinfo and scheme.lower().startswith(("ssh:", "git+ssh:", "ssh+git:")):
        return match.group(0)  # ssh://git@host: a login name, not a credential
    return f"{scheme}{MASK}@"


def scrub_data(value: Any, secrets: Iterable[str] = ()) -> Any:
    """:func:`scrub` applied to every string inside ``value`` (dicts, lists, tuples)."""
    known = secrets if type(secrets) is tuple and all(secrets) else tuple(s for s in secrets if s)
    return _scrub_data(value, known)


def scrub_like(value: Any, clean: Any, secrets: tuple[str, ...] = ()) -> Any:
    """:func:`scrub_data` of ``value``, given ``clean``: an earlier value already scrubbed
    with the same ``secrets`` (the state kept of the same object). The parts of ``value``
    equal to their place in ``clean`` hold nothing to mask, so they are taken from it and
    only what changed is scrubbed: a watch event changes a few fields of an object, and
    comparing is much cheaper than scrubbing. A part that held a credential differs from
    its masked form, so it is scrubbed again."""
    if value == clean:
        return clean
    known = tuple(s for s in secrets if s)
    return _scrub_like(value, clean, known)


def _scrub_like(value: Any, clean: Any, known: tuple[str, ...]) -> Any:
    if type(value) is dict and type(clean) is dict:
        out = {}
        for key, item in value.items():
            if key in clean:  # a key scrub would change is kept masked, so not found
                before = clean[key]
                out[key] = before if item == before else _scrub_like(item, before, known)
            else:
                out[_scrub_data(key, known)] = _scrub_data(item, known)
        return out
    if type(value) is list and type(clean) is list and len(value) == len(clean):
        return [
            before if item == before else _scrub_like(item, before, known)
            for item, before in zip(value, clean, strict=True)
        ]
    return _scrub_data(value, known)


def _scrub_data(value: Any, known: tuple[str, ...]) -> Any:
    kind = type(value)  # exact types first: this runs on every state the reporter keeps
    if kind is dict:
        return {_scrub_data(k, known): _scrub_data(v, known) for k, v in value.items()}
    if kind is str:
        return _scrub_short(value, known) if len(value) <= CACHED_TEXT else _scrub(value, known)
    if kind is list:
        return [_scrub_data(v, known) for v in value]
    if value is None or kind is int or kind is bool or kind is float:
        return value
    if isinstance(value, str):
        return scrub(value, known)
    if isinstance(value, dict):
        return {_scrub_data(k, known): _scrub_data(v, known) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_scrub_data(v, known) for v in value)
    return value


Loc = tuple[str | int, ...]


def find_credentials(value: Any, path: Loc = ()) -> Iterator[Loc]:
    """Paths of the strings inside ``value`` that :func:`scrub` would change."""
    if isinstance(value, str):
        if _may_hold_credential(value) and scrub(value) != value:
            yield path
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from find_credentials(item, (*path, str(key)))
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            yield from find_credentials(item, (*path, index))


def _may_hold_credential(text: str) -> bool:
    """What every pattern of :func:`scrub` needs: a quick test before the regexes run."""
    return (
        "@" in text
        or "=" in text
        or ":" in text
        or "Bearer" in text
        or "Basic" in text
        or "bearer" in text
    )


def _split(value: str) -> Any:
    """``urlsplit`` with its ``ValueError`` turned into words (without the value)."""
    try:
        parts = urlsplit(value)
        port = parts.port  # parsed lazily: this is where "host:99999" raises
    except ValueError as exc:
        text = str(exc)
        if "IPv6" in text or "IPv4" in text:
            raise UrlError("not a valid URL: invalid IP address in brackets") from None
        if "out of range" in text:
            raise UrlError("not a valid URL: the port must be between 1 and 65535") from None
        if "Port" in text:
            raise UrlError("not a valid URL: the port is not a number") from None
        raise UrlError("not a valid URL") from None
    if port == 0:
        raise UrlError("not a valid URL: the port must be between 1 and 65535")
    return parts


def _check_host(host: str | None) -> None:
    import ipaddress  # here: the promote step imports this module on every start

    if not host:
        raise UrlError("not a valid URL: it names no host")
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    try:
        ascii_host = host.encode("idna").decode("ascii")
    except UnicodeError:
        raise UrlError("not a valid URL: the host name is not valid") from None
    labels = ascii_host.removesuffix(".").split(".")
    if len(ascii_host) > 253 or not all(_HOST_LABEL.match(label) for label in labels):
        raise UrlError("not a valid URL: the host name is not valid")


def credential_in(value: str) -> str | None:
    """What credential ``value`` carries, in words, or ``None`` (the value is not echoed)."""
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = None
    if parts is not None and "@" in parts.netloc:
        userinfo = parts.netloc.rpartition("@")[0]
        login_only = ":" not in userinfo and parts.scheme in ("ssh", "git+ssh", "ssh+git")
        if not login_only:
            return "a user name or password before '@'"
    if parts is not None:
        names = [k for k, _ in parse_qsl(parts.query, keep_blank_values=True)]
        secret = next((n for n in names if _SECRET_PARAM_NAME.match(n)), None)
        if secret is not None:
            return f"the query parameter {secret!r}"
    if scrub(value) != value:
        return "a credential"
    return None


def check_url(value: str, *, schemes: tuple[str, ...] = ("http", "https"), hint: str = "") -> str:
    """``value`` if it is a well-formed URL with one of ``schemes`` and no credential."""
    if _CONTROL.search(value):
        raise UrlError("not a valid URL: it contains spaces or control characters")
    parts = _split(value)
    if parts.scheme.lower() not in schemes:
        wanted = " or ".join(f"{s}://" for s in schemes)
        kind = "an http(s)" if set(schemes) == {"http", "https"} else "a supported"
        raise UrlError(f"not {kind} URL: it must start with {wanted}")
    _refuse_credentials(value, hint)
    _check_host(parts.hostname)
    return value


def _refuse_credentials(value: str, hint: str) -> None:
    found = credential_in(value)
    if found is not None:
        raise UrlError(
            f"credentials are not allowed in a URL (this one has {found}): URLs are printed "
            f"in workflows, logs and run records{'; ' + hint if hint else ''}"
        )


GIT_SCHEMES = ("https", "http", "ssh", "git", "git+ssh", "ssh+git", "file")


def check_git_url(value: str, *, allow_credentials: bool = False, hint: str = "") -> str:
    """A Git remote as git accepts it: a URL, ``user@host:path`` or a local path.

    With ``allow_credentials`` (the promote step, which moves ``user:token@`` out of the URL
    before using it) only well-formedness is checked."""
    if not value.strip():
        raise UrlError("empty: give the repository URL")
    if _CONTROL.search(value):
        raise UrlError("not a valid URL: it contains spaces or control characters")
    if "://" in value:
        parts = _split(value)
        if parts.scheme.lower() not in GIT_SCHEMES:
            raise UrlError(f"not a Git URL: use one of {', '.join(GIT_SCHEMES)}")
        if not allow_credentials:
            _refuse_credentials(value, hint)
        if parts.scheme.lower() != "file":
            _check_host(parts.hostname)
        return value
    login = value.partition("@")[0] if "@" in value else ""
    if ":" in login and "/" not in login and not allow_credentials:
        # "bot:TOKEN@host:path" is not scp syntax git understands; it is a credential
        _refuse_credentials("https://" + value, hint)
    return value


def server_url(value: str, *, secure: bool = True, hint: str = "") -> str:
    """``host:port`` (as the argo and argocd CLIs take it) or a URL -> a checked base URL."""
    value = value.strip().rstrip("/")
    if "://" not in value:
        value = f"{'https' if secure else 'http'}://{value}"
    return check_url(value, hint=hint)
