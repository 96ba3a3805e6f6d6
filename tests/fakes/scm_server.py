"""Fake GitHub and GitLab REST APIs over real HTTP: the pull/merge request endpoints that
orchestrator/adapters/scm.py and orchestrator/steps/wait_merge.py call, and the commit
statuses and deployments the reporter's GitHub sinks write; nothing else.

GitHub (``/repos/{owner}/{repo}/pulls``): list with ``state``/``head``/``base`` filters,
create (201, or 422 "Validation Failed" for an unknown head branch or a duplicate), get one.
GitLab (``/projects/{id}/merge_requests``, ``id`` URL-encoded as ``owner%2Frepo``): list with
``state``/``source_branch``/``target_branch``, create (201, 409 for a duplicate), get by
``iid``. Objects carry the upstream field names and value types; list items of GitHub lack
``merged``, as upstream. Tests merge or close requests with :meth:`FakeScm.merge` and
:meth:`FakeScm.close`, as a reviewer would in the web UI.

GitHub's deployments (docs.github.com, "REST API endpoints for deployments" and "... for
deployment statuses"): ``/repos/{owner}/{repo}/deployments`` lists (newest first, filtered by
``sha``/``ref``/``task``/``environment``) and creates (201; 202 with a message instead when
``auto_merge``, GitHub's default, merges the default branch into a ref in
:attr:`FakeScm.behind_default`; 409 when the required commit statuses are not all
``success``, every context of the commit by default; 422 for a missing ref, or one that
names no commit); ``/deployments/{id}`` reads one; ``/deployments/{id}/statuses`` lists
(newest first) and creates (422 for a state GitHub does not know; a ``success`` with
``auto_inactive`` marks the environment's earlier non-transient, non-production deployments
inactive). An unknown deployment id is 404. Tests read :attr:`FakeScm.deployments` and
:attr:`FakeScm.deployment_statuses`.

With ``github_app`` (:mod:`tests.fakes.github_app`), ``POST /app/installations/{id}/
access_tokens`` issues installation tokens as GitHub does (refusals included), and the
endpoints above accept them as they accept ``token``.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal
from urllib.parse import unquote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.fakes.github_app import FakeApp
from tests.fakes.served import Served

Kind = Literal["github", "gitlab"]
Json = dict[str, Any]


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class PullRecord:
    number: int
    head: str
    base: str
    title: str
    body: str
    head_sha: str
    state: Literal["open", "closed", "merged"] = "open"
    merge_commit_sha: str | None = None
    squash: bool = False
    created_at: str = field(default_factory=_now)
    closed_at: str | None = None
    merged_at: str | None = None


class _Refused(Exception):
    def __init__(self, status: int, body: Json, headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers


@dataclass
class FakeScm(Served):
    """One repository ``project`` on a fake GitHub or GitLab; ``token`` is required."""

    kind: Kind
    token: str
    project: str = "acme/gitops"
    web_url: str = "https://scm.example.com"
    branch_sha: Callable[[str], str | None] = lambda _: "0" * 40
    """The commit a branch points to in the repository, ``None`` when it does not exist."""
    pulls: dict[int, PullRecord] = field(default_factory=dict)
    requests: list[tuple[str, str, int]] = field(default_factory=list)
    statuses: list[tuple[str, Json]] = field(default_factory=list)
    """Commit statuses created, as (sha, status), in order."""
    deployments: dict[int, Json] = field(default_factory=dict)
    """Deployments created, by id, as GitHub answers them."""
    deployment_statuses: dict[int, list[Json]] = field(default_factory=dict)
    """The statuses of each deployment (by id), oldest first."""
    behind_default: set[str] = field(default_factory=set)
    """Refs that lack commits of the default branch: a deployment of one with ``auto_merge``
    merges the default branch into it (202, no deployment) and the next request deploys."""
    default_branch: str = "main"
    github_app: FakeApp | None = None
    """A GitHub App installed on the repository: its installation tokens are accepted as
    ``token`` is (:mod:`tests.fakes.github_app`)."""
    _numbers: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _faults: list[tuple[int, str, int | None]] = field(default_factory=list)

    # -- what a reviewer does in the web UI ----------------------------------------------

    def merge(self, number: int, sha: str, *, squash: bool = False) -> None:
        pull = self.pulls[number]
        pull.state, pull.merge_commit_sha, pull.squash = "merged", sha, squash
        pull.merged_at = pull.closed_at = _now()

    def close(self, number: int) -> None:
        pull = self.pulls[number]
        pull.state, pull.closed_at = "closed", _now()

    def fail_next(
        self, count: int, status: int = 503, *, message: str = "", retry_after: int | None = None
    ) -> None:
        """The next ``count`` requests answer ``status`` with ``message`` (and
        ``Retry-After``), as an outage or a rate limit would, whatever they ask."""
        self._faults.extend([(status, message, retry_after)] * count)

    # -- HTTP ---------------------------------------------------------------------------

    def app(self) -> Starlette:
        if self.kind == "github":
            routes = [
                Route("/repos/{owner}/{repo}/pulls", self._handle, methods=["GET", "POST"]),
                Route("/repos/{owner}/{repo}/pulls/{number:int}", self._handle, methods=["GET"]),
                Route("/repos/{owner}/{repo}/statuses/{sha}", self._handle, methods=["POST"]),
                Route("/repos/{owner}/{repo}/deployments", self._handle, methods=["GET", "POST"]),
                Route(
                    "/repos/{owner}/{repo}/deployments/{deployment_id:int}",
                    self._handle,
                    methods=["GET"],
                ),
                Route(
                    "/repos/{owner}/{repo}/deployments/{deployment_id:int}/statuses",
                    self._handle,
                    methods=["GET", "POST"],
                ),
                Route(
                    "/app/installations/{installation:int}/access_tokens",
                    self._access_token,
                    methods=["POST"],
                ),
            ]
        else:
            routes = [
                Route(
                    "/projects/{id:path}/merge_requests/{number:int}",
                    self._handle,
                    methods=["GET"],
                ),
                Route("/projects/{id:path}/merge_requests", self._handle, methods=["GET", "POST"]),
            ]
        return Starlette(routes=routes)

    async def _handle(self, request: Request) -> JSONResponse:
        try:
            self._fault()
            self._authorize(request)
            self._check_project(request)
            body: Json = await request.json() if request.method == "POST" else {}
            result, status = self._dispatch(request, body)
            response = JSONResponse(result, status_code=status)
        except _Refused as exc:
            response = JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)
        self.requests.append((request.method, request.url.path, response.status_code))
        return response

    async def _access_token(self, request: Request) -> JSONResponse:
        try:
            self._fault()
            if self.github_app is None:
                raise _Refused(404, {"message": "Not Found"})
            status, body = self.github_app.access_token(
                request.headers.get("authorization", ""), request.path_params["installation"]
            )
            response = JSONResponse(body, status_code=status)
        except _Refused as exc:
            response = JSONResponse(exc.body, status_code=exc.status, headers=exc.headers)
        self.requests.append((request.method, request.url.path, response.status_code))
        return response

    def _fault(self) -> None:
        if not self._faults:
            return
        status, message, retry_after = self._faults.pop(0)
        default = "Server Error" if status >= 500 else "API rate limit exceeded"
        body: Json = {"message": message or default}
        if self.kind == "github":
            body["documentation_url"] = "https://docs.github.com/rest"
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
        raise _Refused(status, body, headers)

    def _authorize(self, request: Request) -> None:
        given = request.headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        ok = scheme.lower() in ("bearer", "token") and value == self.token
        ok = ok or (self.github_app is not None and self.github_app.accepts(value))
        if self.kind == "gitlab":
            ok = ok or request.headers.get("private-token") == self.token
        if not ok:
            body: Json = (
                {"message": "Bad credentials", "documentation_url": "https://docs.github.com/rest"}
                if self.kind == "github"
                else {"message": "401 Unauthorized"}
            )
            raise _Refused(401, body)

    def _check_project(self, request: Request) -> None:
        if self.kind == "github":
            params = request.path_params
            found = f"{params['owner']}/{params['repo']}" == self.project
            if not found:
                raise _Refused(404, {"message": "Not Found"})
            return
        # GitLab takes the project path URL-encoded as one segment: acme%2Fgitops
        raw = request.scope.get("raw_path", b"").decode()
        segment = raw.split("/projects/", 1)[-1].split("/merge_requests", 1)[0]
        if "/" in segment or unquote(segment) != self.project:
            raise _Refused(404, {"message": "404 Project Not Found"})

    def _dispatch(self, request: Request, body: Json) -> tuple[Any, int]:
        deployments = request.url.path.endswith("/deployments")
        if self.kind == "github" and ("deployment_id" in request.path_params or deployments):
            return self._deployments(request, body)
        if "sha" in request.path_params:
            return self._status(request.path_params["sha"], body), 201
        number = request.path_params.get("number")
        query = request.query_params
        if number is not None:
            pull = self.pulls.get(int(number))
            if pull is None:
                raise _Refused(404, {"message": "Not Found" if self.kind == "github" else
                                     "404 Not found"})  # fmt: skip
            return self._render(pull, single=True), 200
        if request.method == "GET":
            return [self._render(p, single=False) for p in self._list(query)], 200
        return self._create(body), 201

    def _status(self, sha: str, body: Json) -> Json:
        """``POST /repos/{owner}/{repo}/statuses/{sha}`` (docs.github.com, "Create a commit
        status"): 422 "Validation Failed" for a state GitHub does not know, or a SHA that
        names no commit."""
        if body.get("state") not in ("error", "failure", "pending", "success"):
            raise _Refused(422, {
                "message": "Validation Failed",
                "errors": [{"resource": "Status", "field": "state", "code": "invalid"}],
                "documentation_url": "https://docs.github.com/rest/commits/statuses",
            })  # fmt: skip
        if len(sha) != 40 or any(c not in "0123456789abcdef" for c in sha):
            raise _Refused(422, {"message": f"No commit found for SHA: {sha}"})
        record = {
            "id": len(self.statuses) + 1,
            "state": body["state"],
            "description": body.get("description"),
            "target_url": body.get("target_url"),
            "context": body.get("context") or "default",
            "created_at": _now(),
            "updated_at": _now(),
            "creator": {"login": "promoflow-bot", "type": "Bot"},
        }
        self.statuses.append((sha, record))
        return record

    # -- GitHub deployments -------------------------------------------------------------

    def _deployments(self, request: Request, body: Json) -> tuple[Any, int]:
        number = request.path_params.get("deployment_id")
        query = request.query_params
        if number is None:
            if request.method == "POST":
                return self._create_deployment(body)
            found = [
                d
                for d in sorted(self.deployments.values(), key=lambda d: -int(d["id"]))
                if all(
                    query.get(key) in (None, d[key])
                    for key in ("sha", "ref", "task", "environment")
                )
            ]
            return self._page(found, query), 200
        deployment = self.deployments.get(int(number))
        if deployment is None:
            raise _Refused(404, {
                "message": "Not Found",
                "documentation_url": "https://docs.github.com/rest/deployments/deployments",
            })  # fmt: skip
        if not request.url.path.endswith("/statuses"):
            return deployment, 200
        if request.method == "GET":
            statuses = self.deployment_statuses.get(deployment["id"], [])
            return self._page(statuses[::-1], query), 200
        return self._deployment_status(deployment, body), 201

    @staticmethod
    def _page(items: list[Json], query: Any) -> list[Json]:
        """``per_page`` (30, at most 100) and ``page`` (from 1), as GitHub pages lists."""
        try:
            size = min(max(int(query.get("per_page", 30)), 1), 100)
            page = max(int(query.get("page", 1)), 1)
        except ValueError:
            size, page = 30, 1
        return items[(page - 1) * size : page * size]

    def _create_deployment(self, body: Json) -> tuple[Json, int]:
        """``POST /repos/{owner}/{repo}/deployments`` (docs.github.com, "Create a
        deployment")."""
        docs = "https://docs.github.com/rest/deployments/deployments#create-a-deployment"
        ref = body.get("ref")
        if not isinstance(ref, str) or not ref:
            raise _Refused(422, {
                "message": "Validation Failed",
                "errors": [{"resource": "Deployment", "field": "ref", "code": "missing_field"}],
                "documentation_url": docs,
            })  # fmt: skip
        hexa = len(ref) == 40 and all(c in "0123456789abcdef" for c in ref)
        sha = ref if hexa else self.branch_sha(ref.removeprefix("refs/heads/"))
        if sha is None:
            raise _Refused(422, {"message": f"No ref found for: {ref}", "documentation_url": docs})
        if body.get("auto_merge", True) and ref in self.behind_default:
            self.behind_default.discard(ref)
            message = f"Auto-merged {self.default_branch} into {ref} on deployment."
            return {"message": message}, 202
        failed = self._failed_contexts(sha, body.get("required_contexts"))
        if failed:
            raise _Refused(409, {
                "message": f"Conflict: Commit status checks failed for {ref}.",
                "errors": [{"resource": "Deployment", "field": "required_contexts",
                            "code": "invalid", "contexts": failed}],
                "documentation_url": docs,
            })  # fmt: skip
        environment = str(body.get("environment") or "production")
        number = next(self._ids)
        api = f"{self.url}/repos/{self.project}"
        payload = body.get("payload")
        deployment: Json = {
            "url": f"{api}/deployments/{number}",
            "id": number,
            "node_id": f"DE_kwDO{number:08d}",
            "sha": sha,
            "ref": ref,
            "task": str(body.get("task") or "deploy"),
            "payload": payload if isinstance(payload, dict | str) and payload else {},
            "original_environment": environment,
            "environment": environment,
            "description": body.get("description") or "",
            "creator": {"login": "promoflow-bot", "id": 1, "type": "Bot", "site_admin": False},
            "created_at": _now(),
            "updated_at": _now(),
            "statuses_url": f"{api}/deployments/{number}/statuses",
            "repository_url": api,
            "transient_environment": bool(body.get("transient_environment", False)),
            "production_environment": bool(
                body.get("production_environment", environment == "production")
            ),
            "performed_via_github_app": None,
        }
        self.deployments[number] = deployment
        self.deployment_statuses[number] = []
        return deployment, 201

    def _failed_contexts(self, sha: str, required: Any) -> list[Json]:
        """The required commit statuses of ``sha`` that are not ``success`` (all of its
        contexts when ``required`` is not given; a required one never set is missing)."""
        latest = {status["context"]: status["state"] for s, status in self.statuses if s == sha}
        wanted = list(latest) if required is None else [str(c) for c in required]
        return [
            {"context": context, "state": latest.get(context, "missing")}
            for context in wanted
            if latest.get(context) != "success"
        ]

    def _deployment_status(self, deployment: Json, body: Json) -> Json:
        """``POST .../deployments/{id}/statuses`` (docs.github.com, "Create a deployment
        status")."""
        states = ("error", "failure", "inactive", "in_progress", "queued", "pending", "success")
        if body.get("state") not in states:
            raise _Refused(422, {
                "message": "Validation Failed",
                "errors": [{"resource": "DeploymentStatus", "field": "state", "code": "invalid"}],
                "documentation_url":
                    "https://docs.github.com/rest/deployments/statuses#create-a-deployment-status",
            })  # fmt: skip
        if body.get("environment"):
            deployment["environment"] = str(body["environment"])
        record = self._add_status(deployment, body)
        if record["state"] == "success" and body.get("auto_inactive", True):
            for earlier in self.deployments.values():
                if (
                    earlier["id"] < deployment["id"]
                    and earlier["environment"] == deployment["environment"]
                    and not earlier["transient_environment"]
                    and not earlier["production_environment"]
                    and (self.deployment_statuses[earlier["id"]] or [{}])[-1].get("state")
                    != "inactive"
                ):
                    self._add_status(earlier, {"state": "inactive"})
        return record

    def _add_status(self, deployment: Json, body: Json) -> Json:
        statuses = self.deployment_statuses[deployment["id"]]
        number = sum(len(s) for s in self.deployment_statuses.values()) + 1
        log_url = body.get("log_url") or body.get("target_url") or ""
        record: Json = {
            "url": f"{deployment['url']}/statuses/{number}",
            "id": number,
            "node_id": f"DES_kwDO{number:08d}",
            "state": body["state"],
            "creator": {"login": "promoflow-bot", "id": 1, "type": "Bot", "site_admin": False},
            "description": body.get("description") or "",
            "environment": deployment["environment"],
            "target_url": log_url,
            "created_at": _now(),
            "updated_at": _now(),
            "deployment_url": deployment["url"],
            "repository_url": deployment["repository_url"],
            "environment_url": body.get("environment_url") or "",
            "log_url": log_url,
            "performed_via_github_app": None,
        }
        statuses.append(record)
        deployment["updated_at"] = record["created_at"]
        return record

    def _list(self, query: Any) -> list[PullRecord]:
        pulls = sorted(self.pulls.values(), key=lambda p: -p.number)
        if self.kind == "github":
            state = query.get("state", "open")
            owner = self.project.split("/")[0]
            head = query.get("head")
            return [
                p
                for p in pulls
                if (state == "all" or (p.state == "open") == (state == "open"))
                and (head is None or head == f"{owner}:{p.head}")
                and (query.get("base") is None or query.get("base") == p.base)
            ]
        state = query.get("state", "all")
        names = {"open": "opened", "closed": "closed", "merged": "merged"}
        return [
            p
            for p in pulls
            if (state == "all" or names[p.state] == state)
            and query.get("source_branch") in (None, p.head)
            and query.get("target_branch") in (None, p.base)
        ]

    def _create(self, body: Json) -> Json:
        github = self.kind == "github"
        head = body.get("head" if github else "source_branch")
        base = body.get("base" if github else "target_branch")
        title = body.get("title")
        if not (isinstance(head, str) and isinstance(base, str) and isinstance(title, str)):
            raise _Refused(
                422 if github else 400,
                {"message": "Validation Failed"}
                if github
                else {"error": "title, source_branch, target_branch are missing"},
            )
        head_sha = self.branch_sha(head)
        if head_sha is None or self.branch_sha(base) is None:
            raise _Refused(
                422 if github else 400,
                {
                    "message": "Validation Failed",
                    "errors": [{"resource": "PullRequest", "field": "head", "code": "invalid"}],
                }
                if github
                else {"message": [f'Source branch "{head}" does not exist']},
            )
        if any(
            p.head == head and p.base == base and p.state == "open" for p in self.pulls.values()
        ):
            owner = self.project.split("/")[0]
            raise _Refused(
                422 if github else 409,
                {
                    "message": "Validation Failed",
                    "errors": [
                        {
                            "resource": "PullRequest",
                            "code": "custom",
                            "message": f"A pull request already exists for {owner}:{head}.",
                        }
                    ],
                }
                if github
                else {"message": ["Another open merge request already exists for this branch"]},
            )
        description = body.get("body" if github else "description") or ""
        pull = PullRecord(next(self._numbers), head, base, title, str(description), head_sha)
        self.pulls[pull.number] = pull
        return self._render(pull, single=True)

    def _render(self, pull: PullRecord, *, single: bool) -> Json:
        if self.kind == "github":
            return self._github(pull, single)
        return self._gitlab(pull)

    def _github(self, pull: PullRecord, single: bool) -> Json:
        owner, name = self.project.split("/")
        api = f"{self.url}/repos/{self.project}"
        user = {"login": "promoflow-bot", "id": 1, "type": "Bot", "site_admin": False}
        repo = {"id": 7, "name": name, "full_name": self.project, "private": True}
        merged = pull.state == "merged"
        data: Json = {
            "url": f"{api}/pulls/{pull.number}",
            "id": 1000 + pull.number,
            "node_id": f"PR_kwDO{pull.number:08d}",
            "html_url": f"{self.web_url}/{self.project}/pull/{pull.number}",
            "diff_url": f"{self.web_url}/{self.project}/pull/{pull.number}.diff",
            "patch_url": f"{self.web_url}/{self.project}/pull/{pull.number}.patch",
            "issue_url": f"{api}/issues/{pull.number}",
            "number": pull.number,
            "state": "open" if pull.state == "open" else "closed",
            "locked": False,
            "title": pull.title,
            "user": user,
            "body": pull.body,
            "labels": [],
            "milestone": None,
            "created_at": pull.created_at,
            "updated_at": pull.merged_at or pull.closed_at or pull.created_at,
            "closed_at": pull.closed_at,
            "merged_at": pull.merged_at,
            # upstream sets this for open pull requests too (the test merge commit): a
            # client must read it only once the pull request is merged
            "merge_commit_sha": pull.merge_commit_sha or "f" * 40,
            "assignee": None,
            "assignees": [],
            "requested_reviewers": [],
            "requested_teams": [],
            "head": {"label": f"{owner}:{pull.head}", "ref": pull.head, "sha": pull.head_sha,
                     "user": user, "repo": repo},
            "base": {"label": f"{owner}:{pull.base}", "ref": pull.base,
                     "sha": self.branch_sha(pull.base), "user": user, "repo": repo},
            "author_association": "NONE",
            "auto_merge": None,
            "draft": False,
        }  # fmt: skip
        if single:  # only the single-pull-request representation has these
            data.update(
                merged=merged,
                mergeable=None if merged else True,
                mergeable_state="unknown" if merged else "clean",
                merged_by=user if merged else None,
                comments=0,
                review_comments=0,
                commits=1,
                additions=1,
                deletions=1,
                changed_files=1,
            )
        return data

    def _gitlab(self, pull: PullRecord) -> Json:
        author = {"id": 1, "username": "promoflow-bot", "name": "promoflow", "state": "active"}
        states = {"open": "opened", "closed": "closed", "merged": "merged"}
        merged = pull.state == "merged"
        return {
            "id": 5000 + pull.number,
            "iid": pull.number,
            "project_id": 42,
            "title": pull.title,
            "description": pull.body,
            "state": states[pull.state],
            "created_at": pull.created_at,
            "updated_at": pull.merged_at or pull.closed_at or pull.created_at,
            "merged_by": author if merged else None,
            "merge_user": author if merged else None,
            "merged_at": pull.merged_at,
            "closed_by": None,
            "closed_at": pull.closed_at if pull.state == "closed" else None,
            "target_branch": pull.base,
            "source_branch": pull.head,
            "user_notes_count": 0,
            "upvotes": 0,
            "downvotes": 0,
            "author": author,
            "assignees": [],
            "reviewers": [],
            "source_project_id": 42,
            "target_project_id": 42,
            "labels": [],
            "draft": False,
            "work_in_progress": False,
            "milestone": None,
            "merge_when_pipeline_succeeds": False,
            "merge_status": "can_be_merged",
            "detailed_merge_status": "not_open" if pull.state != "open" else "mergeable",
            "sha": pull.head_sha,
            "merge_commit_sha": pull.merge_commit_sha if merged and not pull.squash else None,
            "squash_commit_sha": pull.merge_commit_sha if merged and pull.squash else None,
            "discussion_locked": None,
            "should_remove_source_branch": None,
            "force_remove_source_branch": True,
            "reference": f"!{pull.number}",
            "references": {
                "short": f"!{pull.number}",
                "relative": f"!{pull.number}",
                "full": f"{self.project}!{pull.number}",
            },
            "web_url": f"{self.web_url}/{self.project}/-/merge_requests/{pull.number}",
            "squash": pull.squash,
            "has_conflicts": False,
            "blocking_discussions_resolved": True,
        }
