"""sprig's path and URL functions (Go's path, path/filepath on Linux, net/url; v3.3.0).

``posixpath`` differs from Go's ``path`` (``Clean("")`` is ``.``, ``Base("/")`` is ``/``,
``Dir`` cleans), so the few functions are written after Go's definitions.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from reporters.gotemplate.values import GoFunc, GoPanic

S = "string"


def clean(p: str) -> str:
    """path.Clean."""
    if p == "":
        return "."
    rooted = p.startswith("/")
    parts: list[str] = []
    for part in p.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not rooted:
                parts.append("..")
            continue
        parts.append(part)
    out = "/".join(parts)
    if rooted:
        return "/" + out
    return out or "."


def base(p: str) -> str:
    if p == "":
        return "."
    p = p.rstrip("/")
    if p == "":
        return "/"
    return p.rsplit("/", 1)[-1]


def dirname(p: str) -> str:
    i = p.rfind("/")
    return clean(p[: i + 1])


def ext(p: str) -> str:
    for i in range(len(p) - 1, -1, -1):
        if p[i] == "/":
            break
        if p[i] == ".":
            return p[i:]
    return ""


def url_parse(v: str) -> dict[str, Any]:
    """sprig's urlParse over the parts net/url would give."""
    try:
        parts = urlsplit(v)
    except ValueError as exc:
        raise GoPanic(f"unable to parse url: {exc}") from None
    netloc = parts.netloc
    userinfo = ""
    host = netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
    hostname = host
    if host.startswith("["):
        hostname = host[1 : host.find("]")] if "]" in host else host
    elif ":" in host:
        hostname = host.rsplit(":", 1)[0]
    opaque = ""
    path = parts.path
    if parts.scheme and not v[len(parts.scheme) + 1 :].startswith("/"):
        opaque, path = path, ""
    return {
        "scheme": parts.scheme,
        "host": host,
        "hostname": hostname,
        "path": path,
        "query": parts.query,
        "opaque": opaque,
        "fragment": parts.fragment,
        "userinfo": userinfo,
    }


def url_join(d: dict[str, Any]) -> str:
    def get(key: str) -> str:
        value = d.get(key, "")
        if not isinstance(value, str):
            from reporters.gotemplate.values import go_kind

            raise GoPanic(
                f"unable to parse {key} key, must be of type string, but {go_kind(value)} found"
            )
        return value

    scheme, host, path = get("scheme"), get("host"), get("path")
    query, opaque, fragment, user = get("query"), get("opaque"), get("fragment"), get("userinfo")
    out = ""
    if scheme:
        out += scheme + ":"
    if opaque:
        out += opaque
    else:
        if scheme or host or user:
            if host or path or user:
                out += "//"
            if user:
                out += user + "@"
            out += host
        if path and not path.startswith("/") and host:
            out += "/"
        out += path
    if query:
        out += "?" + query
    if fragment:
        out += "#" + fragment
    return out


FUNCS: dict[str, GoFunc] = {
    "base": GoFunc(base, (S,), returns=S),
    "dir": GoFunc(dirname, (S,), returns=S),
    "clean": GoFunc(clean, (S,), returns=S),
    "ext": GoFunc(ext, (S,), returns=S),
    "isAbs": GoFunc(lambda p: p.startswith("/"), (S,), returns="bool"),
    "osBase": GoFunc(base, (S,), returns=S),
    "osDir": GoFunc(dirname, (S,), returns=S),
    "osClean": GoFunc(clean, (S,), returns=S),
    "osExt": GoFunc(ext, (S,), returns=S),
    "osIsAbs": GoFunc(lambda p: p.startswith("/"), (S,), returns="bool"),
    "urlParse": GoFunc(url_parse, (S,), returns="map[string]interface {}"),
    "urlJoin": GoFunc(url_join, ("map[string]interface {}",), returns=S),
}
