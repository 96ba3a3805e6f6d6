"""Pull requests on GitHub and merge requests on GitLab, through their REST APIs (httpx).

Only what promotions need: open a pull request for a pushed branch (or find the one already
open for it, so a retried step opens no second one) and read its state until it is merged.
Which API to use is taken from the repository URL (github.com, gitlab.com) or from
PROMOFLOW_SCM / PROMOFLOW_SCM_API_URL for self-hosted servers.

Failures are classified by :mod:`orchestrator.adapters.neterrors`: a host name that does not
resolve, TLS against a plain-HTTP port, a 4xx or an HTML page where the API was expected
(a self-hosted server's web UI, a wrong PROMOFLOW_SCM_API_URL) are permanent and say what
to check; a refused connection, a timeout, 5xx and 429 are transient.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import quote, urlsplit

from orchestrator.adapters import neterrors
from orchestrator.errors import PromoflowError
from orchestrator.urls import UrlError, check_url

if TYPE_CHECKING:  # the promote step imports ScmError on every run; httpx only when it opens a PR
    import httpx

Kind = Literal["github", "gitlab"]
State = Literal["open", "merged", "closed"]


class ScmError(PromoflowError):
    """The SCM API refused or failed; ``transient`` when trying again may help."""


@dataclass(frozen=True)
class PullRequest:
    url: str
    number: int
    state: State
    merge_commit: str | None = None


@dataclass(frozen=True)
class ScmTarget:
    kind: Kind
    api_url: str
    project: str
    """``owner/name`` of the repository."""

    @classmethod
    def from_repo(cls, repo_url: str, env: dict[str, str] | None = None) -> ScmTarget:
        env = dict(os.environ if env is None else env)
        parts = urlsplit(repo_url)
        project = parts.path.strip("/").removesuffix(".git")
        if not project and ":" in repo_url and "@" in repo_url:  # git@host:owner/name.git
            project = repo_url.split(":", 1)[1].removesuffix(".git")
        host = parts.hostname or repo_url.split("@")[-1].split(":")[0]
        kind = env.get("PROMOFLOW_SCM") or ("gitlab" if "gitlab" in host else "github")
        if kind not in ("github", "gitlab"):
            raise ScmError(f"PROMOFLOW_SCM must be github or gitlab, not {kind!r}")
        default_api = (
            "https://api.github.com"
            if kind == "github" and host == "github.com"
            else f"https://{host}/api/v4"
            if kind == "gitlab"
            else f"https://{host}/api/v3"
        )
        api_url = env.get("PROMOFLOW_SCM_API_URL") or default_api
        try:
            check_url(api_url, hint="the token comes from GIT_TOKEN")
        except UrlError as exc:
            where = "PROMOFLOW_SCM_API_URL" if env.get("PROMOFLOW_SCM_API_URL") else "--repo"
            raise ScmError(f"{where}: {exc}") from None
        return cls(kind, api_url, project)  # type: ignore[arg-type]


class ScmClient:
    def __init__(
        self, target: ScmTarget, token: str, transport: httpx.BaseTransport | None = None
    ) -> None:
        import httpx

        self.target = target
        headers = {"Accept": "application/json", "User-Agent": "promoflow"}
        if token:  # both APIs take personal/app tokens as bearer tokens
            headers["Authorization"] = f"Bearer {token}"
        self.http = httpx.Client(
            base_url=target.api_url.rstrip("/"), headers=headers, timeout=30, transport=transport
        )
        self._api_seen = False
        self.hints = neterrors.Hints(
            host="check the repository URL (or PROMOFLOW_SCM_API_URL)",
            url="check PROMOFLOW_SCM and PROMOFLOW_SCM_API_URL",
        )

    def close(self) -> None:
        self.http.close()

    @property
    def service(self) -> str:
        return "GitHub" if self.target.kind == "github" else "GitLab"

    def _request(self, method: str, path: str, **kwargs: Any) -> Any:
        import httpx

        where = self.target.api_url
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.InvalidURL:
            raise ScmError(f"{self.service} API URL {where} is not valid") from None
        except httpx.HTTPError as exc:
            failure = neterrors.describe_service(exc, self.service, where, self.hints)
            raise ScmError(failure.message, transient=failure.transient) from None
        status = response.status_code
        not_api = neterrors.answer(
            status,
            response.headers.get("content-type", ""),
            response.content,
            self.service,
            where,
            self.hints,
            api_seen=self._api_seen,
        )
        if not_api is not None:
            raise ScmError(not_api.message, transient=not_api.transient)
        if status in (401, 403):
            raise ScmError(f"{self.target.kind} refused the token ({status})")
        if status >= 400:
            raise ScmError(
                f"{self.target.kind} answered {status}: {neterrors.said(response, limit=300)}",
                transient=neterrors.status_transient(status),
            )
        try:
            data = response.json()
        except ValueError:
            raise ScmError(
                f"{self.service} at {where} answered {status} with something that is not "
                f"JSON, not the {self.service} API: {self.hints.url}"
            ) from None
        self._api_seen = True
        return data

    def open(self, head: str, base: str, title: str, body: str) -> PullRequest:
        """Open a pull request from ``head`` into ``base``, or return the open one."""
        existing = self.find_open(head, base)
        if existing is not None:
            return existing
        if self.target.kind == "github":
            data = self._request(
                "POST",
                f"/repos/{self.target.project}/pulls",
                json={"title": title, "head": head, "base": base, "body": body},
            )
        else:
            data = self._request(
                "POST",
                f"/projects/{quote(self.target.project, safe='')}/merge_requests",
                json={
                    "source_branch": head,
                    "target_branch": base,
                    "title": title,
                    "description": body,
                    "remove_source_branch": True,
                },
            )
        return self._parse(data)

    def find_open(self, head: str, base: str) -> PullRequest | None:
        if self.target.kind == "github":
            owner = self.target.project.split("/")[0]
            found = self._request(
                "GET",
                f"/repos/{self.target.project}/pulls",
                params={"head": f"{owner}:{head}", "base": base, "state": "open"},
            )
        else:
            found = self._request(
                "GET",
                f"/projects/{quote(self.target.project, safe='')}/merge_requests",
                params={"source_branch": head, "target_branch": base, "state": "opened"},
            )
        return self._parse(found[0]) if found else None

    def get(self, number: int) -> PullRequest:
        if self.target.kind == "github":
            data = self._request("GET", f"/repos/{self.target.project}/pulls/{number}")
        else:
            data = self._request(
                "GET",
                f"/projects/{quote(self.target.project, safe='')}/merge_requests/{number}",
            )
        return self._parse(data)

    def _parse(self, data: dict[str, Any]) -> PullRequest:
        if self.target.kind == "github":
            merged = bool(data.get("merged") or data.get("merged_at"))
            state: State = (
                "merged" if merged else ("open" if data.get("state") == "open" else "closed")
            )
            return PullRequest(
                data["html_url"], int(data["number"]), state,
                data.get("merge_commit_sha") if merged else None,
            )  # fmt: skip
        state_map: dict[str, State] = {
            "opened": "open",
            "merged": "merged",
            "closed": "closed",
            "locked": "open",
        }
        gl_state = state_map.get(str(data.get("state")), "open")
        commit = data.get("merge_commit_sha") or data.get("squash_commit_sha")
        return PullRequest(
            data["web_url"], int(data["iid"]), gl_state,
            commit if gl_state == "merged" else None,
        )  # fmt: skip


def parse_pr_url(url: str) -> int:
    """The number at the end of a pull/merge request URL."""
    tail = url.rstrip("/").rsplit("/", 1)[-1]
    # ASCII digits only: "²".isdigit() is true and int() refuses it; 4,300+ digits too
    if not (tail.isascii() and tail.isdigit() and len(tail) <= 18):
        raise ScmError(f"not a pull request URL: {url[:200]!r}")
    return int(tail)
