"""Git credentials against each product's repository: may they read, and may they push?

Both are asked as git itself starts a fetch or a push, with the ref advertisement
(``GET info/refs?service=git-upload-pack`` / ``git-receive-pack``): a Git host answers the
push service's advertisement only to credentials that may push (401 or 403 otherwise), so
the right is known without pushing anything.
"""

from __future__ import annotations

from orchestrator.doctor.context import Context
from orchestrator.doctor.report import Line, fail, ok, warn

ORDER = 50
TITLE = "Git"
READ, PUSH = "git-upload-pack", "git-receive-pack"
TOKEN_FIX = (
    "set GIT_TOKEN (and GIT_USERNAME where the host wants one; the chart: key 'token' of the "
    "secrets.git Secret) to a token that may {what} {url}"
)


def run(context: Context, earlier: list[Line]) -> list[Line]:
    config = context.config
    if config is None:
        return []
    urls = sorted({product.spec.repo.url for product in config.products.values()})
    lines: list[Line] = []
    for url in urls:
        lines += _repository(context, url)
    return lines


def _repository(context: Context, url: str) -> list[Line]:
    if not url.startswith(("https://", "http://")):
        return [
            warn(
                TITLE,
                url,
                "not an HTTP(S) URL: push rights over SSH are not checked",
                "check that GIT_SSH_KEY's key may push",
            )
        ]
    read = context.probes.git_refs(url, READ)
    if not read.answered or read.problem:
        return [fail(TITLE, url, read.problem, read.fix)]
    if read.status != 200 or not _advertises(read.content_type, READ):
        said = {
            401: "refused the credentials",
            403: "refused the credentials",
            404: "no such repository, or it is hidden from these credentials",
        }.get(read.status, f"answered {read.status}")
        return [fail(TITLE, f"{url} read", said, TOKEN_FIX.format(what="read", url=url))]
    lines = [ok(TITLE, f"{url} read", "the credentials may read it")]
    push = context.probes.git_refs(url, PUSH)
    if push.status == 200 and _advertises(push.content_type, PUSH):
        return [*lines, ok(TITLE, f"{url} push", "the credentials may push")]
    if not context.git_token:
        return [
            *lines,
            fail(
                TITLE,
                f"{url} push",
                "no GIT_TOKEN: promotions cannot push",
                TOKEN_FIX.format(what="push to", url=url),
            ),
        ]
    said = push.problem or f"the host refused the push service ({push.status})"
    return [
        *lines,
        fail(TITLE, f"{url} push", said, push.fix or TOKEN_FIX.format(what="push to", url=url)),
    ]


def _advertises(content_type: str, service: str) -> bool:
    """A smart-HTTP advertisement, not a dumb server's file or a login page."""
    return content_type.split(";")[0].strip() == f"application/x-{service}-advertisement"
