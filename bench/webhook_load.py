"""Benchmark: ``promoflow serve`` under a burst of signed GitHub pushes, against a bare
endpoint measured in the same run.

Five processes on loopback:

  this one         the load: 20,000 deliveries, 50 in flight on kept-alive connections,
                   every request (body, GUID, signature) prepared before the clock starts
  a Git server     ``git http-backend`` with git's default settings, serving the GitOps
                   repository (in a process of its own, as a Git host is: it must not
                   wait for the load's event loop to answer)
  promoflow serve  the real command, reading the versions from that repository, and
                   submitting to
  a fake Argo      the Argo Server's REST shapes (409 AlreadyExists for a name in use),
                   its schema check off: the real server's cost is not what is measured
  baseline         a bare uvicorn app that reads the body and answers 202

The Git server and the fake Argo Server run at nice 19: they stand for machines of their
own, and on a machine with few CPUs they would otherwise take CPU from promoflow's run
(and its latency) that the bare endpoint's run has to itself. They still get every CPU
cycle the load and the service leave.

The deliveries are PUSHES release commits of a monorepo (10 products), pushed one after
another while the load runs (the branch moves to push k just before its first delivery
is sent), each delivered DELIVERIES / PUSHES times with its own GUID: the first at once,
the others (more hooks, redeliveries, sender retries) within the next WINDOW deliveries,
in a seeded order. The same deliveries go to the bare endpoint and then to two
``promoflow serve`` processes, each with a fresh fake Argo Server:

  cold  the pushes happen during the run: a push's first delivery waits for a Git fetch
        of the branch (batched: one fetch brings every push made since the last one)
  warm  a second process on the same Git cache (a restarted replica), the branch moved
        forward again from the seed as the pushes are delivered: the commits are local, so
        what is measured is the service itself (and each push's check of the branch tip,
        one request to the Git server per push: a push no longer at the tip and older than
        it would be a replay, refused)

Printed: requests/s and p50/p99 of each, the ratios, the first deliveries' latency, the
requests to the Git server; errors and duplicate submissions are counted from what the
fake Argo Servers hold.

Then hostile senders, against a third ``promoflow serve`` (warm, GitHub and Azure DevOps
secrets set), each figure measured in the same run as its baseline:

  1 MiB unauthenticated body  the server's CPU time (from /proc) per Azure DevOps delivery of
                              1 MiB of ``[]`` with wrong credentials, against a signed 1 KiB
                              GitHub delivery (a redelivery), each on a new connection
  /healthz under attack       p99 of sequential probes (a new connection each, as the
                              kubelet probes) while UNAUTHENTICATED senders send such
                              bodies in a loop, and while SLOW senders trickle bodies a
                              byte at a time (from a process at nice 19, as if from other
                              machines); against the p99 with no attack

The latency target is set on the deliveries sent once their push's first delivery was
answered (the service answers them from memory): their p99 within 1.5x of the bare
endpoint's, judged per round as capacity is (each round's pair measured back to back, the
median of the rounds' ratios), since on a shared machine the bare endpoint's own p99 moves
from 25 to 45 ms between runs. A push's first delivery asks the Git server for the branch
tip, which no cache may answer (a replay is told apart from a late delivery only by what
the branch holds now), and creates the Workflow; the deliveries of the push sent
meanwhile wait for that answer and share it (a duplicate must not say 202 before the run
exists: GitHub does not retry). Those are printed with the check's own time (from the
service's ``/metrics``): their floor is the Git server's and the Argo Server's round
trips.

With 50 requests in flight and no pause between them, latency is the queue's length over
the throughput (Little's law), so it follows the capacity ratio. A paced run (PACED
deliveries per second, each timed from when it was due, against the bare endpoint at the
same rate) shows latency below saturation; on a shared virtual machine the bare endpoint's
own p99 there ranges from 16 to 40 ms between runs (its p50 is about 1 ms), so it is
printed, not judged.

Capacity is judged by the server's CPU per delivery (from /proc), the throughput printed
beside it: on a machine with few CPUs, the Git server's processes (one per request) and
the fake Argo Server take CPU from promoflow's run that the bare endpoint's run does not
share, and the wall-clock ratio then swings by a third between identical runs.

Targets: capacity >= 0.5x the bare endpoint and a p99 within 1.5x of its (warm,
deliveries answered from memory), zero errors and zero duplicate submissions (one Workflow per push)
in both runs; an unauthenticated 1 MiB
body costs the server about what a signed 1 KiB delivery does (< 1.5x: its body is never
read, let alone parsed); /healthz p99 < 100 ms under either attack.
"""

from __future__ import annotations

import asyncio
import gc
import hashlib
import hmac
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from functools import cache
from multiprocessing.connection import Connection
from pathlib import Path

import httpx
import pygit2
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from bench._report import Row, at_least, below, finish

ROUNDS = 3
DELIVERIES = 20_000
PUSHES = 200
WINDOW = 2_000
CONCURRENCY = 50
PACED = 1_000.0
"""Deliveries per second of the paced runs, where latency is judged: below both servers'
capacity, so it measures the service rather than the length of a queue."""
PRODUCTS = tuple(f"app{i}" for i in range(10))
SECRET = "bench-webhook-secret"
METRICS_TOKEN = "bench-metrics-token"
SEED = 20261124
UNAUTHENTICATED = 12
"""Senders of 1 MiB bodies with wrong credentials, in a loop (the load that pushed /healthz
past the kubelet's 1 s probe timeout when bodies were parsed before authentication)."""
SLOW = 200
"""Senders that trickle a body a byte every 100 ms until they are cut off, then reconnect."""
PROBES = 300
ATTACK_SECONDS = 15.0
MIB = 1 << 20
console = Console(highlight=False)


# -- the two servers in their own processes ------------------------------------------------


def _bare_app() -> object:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def accept(request: Request) -> JSONResponse:
        await request.body()
        return JSONResponse({"message": "accepted"}, 202)

    return Starlette(routes=[Route("/webhooks/{provider}", accept, methods=["POST"])])


def _argo_app(config_dir: str) -> object:
    from orchestrator.loading import load_config
    from tests.fakes.argo_server import FakeArgoServer
    from tests.webhooks.harness import install_templates

    config, _ = load_config(Path(config_dir))
    argo = FakeArgoServer(validate=False)
    install_templates(argo, config)
    return argo.app()


def serve_child(kind: str, port: int, config_dir: str = "") -> None:
    import uvicorn

    if kind == "argo":
        os.nice(19)  # a machine of its own: see the module's docstring
    app = _bare_app() if kind == "bare" else _argo_app(config_dir)
    # as promoflow serve does: what was loaded at start is kept out of the collector's
    # sight, so a full collection does not pause the baseline longer than promoflow
    gc.collect()
    gc.freeze()
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# -- the world -----------------------------------------------------------------------------


def _git_child(root: str, pipe: Connection) -> None:
    """Serves the repositories under ``root`` until told to stop; answers the number of
    requests served so far to every other message."""
    from orchestrator.simulator.git_http import GitHttpServer

    os.nice(19)  # a machine of its own: see the module's docstring
    with GitHttpServer(Path(root)) as git:
        pipe.send(git.url)
        while pipe.recv() != "stop":
            pipe.send(git.stats.requests)


class GitProcess:
    """The Git server in a process of its own."""

    def __init__(self, root: Path) -> None:
        self._pipe, child = multiprocessing.Pipe()
        self._process = multiprocessing.get_context("spawn").Process(
            target=_git_child, args=(str(root), child), daemon=True
        )
        self._process.start()
        self.url: str = self._pipe.recv()

    def repo_url(self, name: str) -> str:
        return f"{self.url}/{name}.git"

    @property
    def requests(self) -> int:
        """Requests served so far."""
        self._pipe.send("requests")
        answer: int = self._pipe.recv()
        return answer

    def __enter__(self) -> GitProcess:
        return self

    def __exit__(self, *_: object) -> None:
        self._pipe.send("stop")
        self._process.join(timeout=10)


@contextmanager
def _process(
    args: list[str], port: int, env: dict[str, str] | None = None, pids: list[int] | None = None
) -> Iterator[str]:
    """The process, once it answers on ``port``; its pid is appended to ``pids``."""
    proc = subprocess.Popen(
        args, env={**os.environ, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    try:
        while True:
            try:
                httpx.post(f"{url}/webhooks/probe", content=b"{}", timeout=1)
                break
            except httpx.TransportError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    _, err = proc.communicate()
                    sys.exit(f"{' '.join(args[:4])} did not start: {err.decode()[-2000:]}")
                time.sleep(0.1)
        if pids is not None:
            pids.append(proc.pid)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _world(root: Path) -> list[tuple[str, str, str]]:
    """A monorepo with PUSHES release commits, each one product's, made ahead (so the
    payloads can name them) with the branch left at the seed; returns the pushes as
    (before, after, changed path)."""
    from orchestrator.simulator.git_http import init_bare_repo
    from tests.webhooks.harness import commit, values

    bare = init_bare_repo(root / "git" / "gitops.git")
    seed = {
        f"envs/{env}/{p}/values.yaml": values("1.0.0")
        for p in PRODUCTS
        for env in ("dev", "staging", "prod")
    }
    before = commit(bare, seed, "Environments at 1.0.0")
    rng = random.Random(SEED)
    pushes = []
    for i in range(PUSHES):
        product = rng.choice(PRODUCTS)
        path = f"envs/dev/{product}/values.yaml"
        after = commit(bare, {path: values(f"1.{i + 1}.0")}, f"Release {product} 1.{i + 1}.0")
        pushes.append((before, after, path))
        before = after
    repo = pygit2.Repository(str(bare))
    repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=pushes[0][0]))
    return pushes


class Publisher:
    """Moves the branch forward to push k, as the pushes happen during the run."""

    def __init__(self, bare: Path, pushes: list[tuple[str, str, str]]) -> None:
        self.repo = pygit2.Repository(str(bare))
        self.pushes = pushes
        self.at = -1

    def rewind(self) -> Publisher:
        """The branch back at the seed, to push the same commits again (the service
        refuses a push that is no longer the tip and older than it: a replay)."""
        self.repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=self.pushes[0][0]))
        self.at = -1
        return self

    def publish(self, k: int) -> None:
        if k > self.at:
            self.repo.references["refs/heads/main"].set_target(pygit2.Oid(hex=self.pushes[k][1]))
            self.at = k


def _requests(
    url: str, pushes: list[tuple[str, str, str]]
) -> list[tuple[int, bytes, dict[str, str]]]:
    from tests.webhooks.harness import github_push

    rng = random.Random(SEED + 1)
    signed = []
    for before, after, path in pushes:
        body = github_push(url, before, after, [(after, "Release", [path])])
        digest = hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
        signed.append((body, f"sha256={digest}"))
    per_push = DELIVERIES // len(pushes)
    placed: list[tuple[float, int]] = []
    for k in range(len(pushes)):
        first = k * DELIVERIES / len(pushes)
        placed.append((first, k))
        placed += [(first + rng.uniform(0, WINDOW), k) for _ in range(per_push - 1)]
    placed.sort()
    out = []
    for _, index in placed:
        body, signature = signed[index]
        headers = {
            "Content-Type": "application/json",
            "X-GitHub-Event": "push",
            "X-GitHub-Delivery": str(uuid.UUID(int=rng.getrandbits(128))),
            "X-Hub-Signature-256": signature,
        }
        out.append((index, body, headers))
    return out


# -- the load ------------------------------------------------------------------------------


async def _connection(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection(host, port)


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> int:
    """One request on a kept-alive connection; the status. A lean HTTP/1.1 client (bodies
    with Content-Length, as both servers answer), so the load costs the servers, not it."""
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    status = int(lines[0].split(b" ", 2)[1])
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    if length:
        await reader.readexactly(length)
    return status


def _wire(url: str, requests: list[tuple[int, bytes, dict[str, str]]]) -> list[tuple[int, bytes]]:
    host = url.removeprefix("http://")
    out = []
    for index, body, headers in requests:
        lines = ["POST /webhooks/github HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        out.append((index, ("\r\n".join(lines) + "\r\n\r\n").encode() + body))
    return out


async def _load(
    url: str,
    requests: list[tuple[int, bytes, dict[str, str]]],
    label: str,
    publisher: Publisher | None = None,
    refused: set[int] | None = None,
    rate: float = 0.0,
) -> tuple[float, list[float], dict[int, int], list[float], list[float], list[float]]:
    """``refused``: filled with the pushes answered 409 (a newer push of the product was
    already on the branch when the delivery was checked: superseded, not promoted).
    ``rate``: deliveries per second, each sent at its time (once a connection is free)
    and timed from then, so a slow answer delays the ones after it in the figures too;
    0: as fast as the connections go."""
    latencies: list[float] = []
    accepted: set[int] = set()
    statuses: dict[int, int] = {}
    sent: set[int] = set()
    answered: dict[int, float] = {}
    firsts: list[float] = []
    laters: list[float] = []
    waiting: list[float] = []
    queue = enumerate(_wire(url, requests))
    host, port = url.removeprefix("http://").split(":")
    columns = (TextColumn(f"{label:10}"), BarColumn(), MofNCompleteColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(label, total=len(requests))

        async def worker() -> None:
            reader, writer = await _connection(host, int(port))
            try:
                for i, (push, request) in queue:
                    if rate:
                        due = began + i / rate
                        await asyncio.sleep(due - time.perf_counter())
                    if publisher is not None:
                        publisher.publish(push)
                    first = push not in sent
                    sent.add(push)
                    started = due if rate else time.perf_counter()
                    try:
                        status = await _exchange(reader, writer, request)
                    except (OSError, asyncio.IncompleteReadError, ValueError):
                        status = 0
                        writer.close()
                        reader, writer = await _connection(host, int(port))
                    done = time.perf_counter()
                    latencies.append(done - started)
                    if first:
                        firsts.append(latencies[-1])
                        answered[push] = done
                    elif started >= answered.get(push, done):
                        laters.append(latencies[-1])
                    else:
                        waiting.append(latencies[-1])
                    statuses[status] = statuses.get(status, 0) + 1
                    if status == 409 and refused is not None:
                        refused.add(push)
                    elif status == 202:
                        accepted.add(push)
                    progress.advance(task)
            finally:
                writer.close()

        gc.collect()
        gc.disable()  # the load's own pauses would count as the server's latency
        try:
            began = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(CONCURRENCY)))
            elapsed = time.perf_counter() - began
        finally:
            gc.enable()
    if refused is not None:  # a duplicate checked after the tip moved on: its push promoted
        refused -= accepted
    return elapsed, latencies, statuses, firsts, laters, waiting


def _p(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1] if q < 100 else max(values)
    )


@dataclass
class Run:
    elapsed: float
    latencies: list[float]
    statuses: dict[int, int]
    firsts: list[float]
    """Latencies of each push's first delivery (a Git read and a submission)."""
    laters: list[float]
    """Latencies of the other deliveries (redeliveries, more hooks, retries) sent once
    their push's first delivery was answered: answered from what the service remembers."""
    waiting: list[float]
    """Latencies of those sent while their push's first delivery was being answered: they
    wait for its answer and share it (a duplicate must not say 202 before the run
    exists, since a sender such as GitHub does not retry)."""
    cpu: float = 0.0
    """Seconds of CPU the server process used for the load (user + system, /proc)."""
    workflows: int = 0
    distinct: int = 0
    git_requests: int = 0
    checks: int = 0
    """Checks against the branch tip (the service's own count, from /metrics)."""
    check_seconds: float = 0.0
    superseded: int = 0
    """Pushes refused with 409: a newer push of the product was on the branch first."""

    @property
    def check_ms(self) -> float:
        return self.check_seconds / self.checks * 1000 if self.checks else 0.0

    @property
    def rps(self) -> float:
        return DELIVERIES / self.elapsed

    @property
    def errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status not in (202, 409))

    @property
    def duplicates(self) -> int:
        """Workflows beyond one per push, and pushes without one."""
        return self.workflows - self.distinct + abs(self.distinct - (PUSHES - self.superseded))


def _median(runs: list[Run]) -> Run:
    return sorted(runs, key=lambda run: run.rps)[len(runs) // 2]


def _promoflow(
    root: Path, config: Path, git: GitProcess, requests: list[tuple[int, bytes, dict[str, str]]],
    label: str, publisher: Publisher | None, rate: float = 0.0,
) -> Run:  # fmt: skip
    """A fresh fake Argo Server and a ``promoflow serve`` process (on the Git cache in
    ``root/serve-cache``), the load, and what reached the Argo Server."""
    from orchestrator.simulator.serve import free_port

    me = [sys.executable, "-m", "bench.webhook_load"]
    argo_port, serve_port = free_port(), free_port()
    with ExitStack() as stack:
        argo = stack.enter_context(_process([*me, "argo", str(argo_port), str(config)], argo_port))
        serve_args = _serve_args(root, config, serve_port, argo)
        env = {
            "PROMOFLOW_WEBHOOK_GITHUB_SECRET": SECRET,
            "ARGO_NAMESPACE": "argo",
            "PROMOFLOW_METRICS_TOKEN": METRICS_TOKEN,
        }
        pids: list[int] = []
        serve = stack.enter_context(_process(serve_args, serve_port, env, pids))
        cpu = _cpu(pids[0])
        asked = git.requests
        refused: set[int] = set()
        elapsed, latencies, statuses, firsts, laters, waiting = asyncio.run(
            _load(serve, requests, label, publisher, refused, rate)
        )
        cpu = _cpu(pids[0]) - cpu
        fetched = git.requests - asked
        checks, check_seconds = _branch_checks(serve)
        stored = httpx.get(f"{argo}/api/v1/workflows/argo", timeout=60).json()["items"] or []
    keys = {
        tuple(
            p["value"]
            for p in w["spec"]["arguments"]["parameters"]
            if p["name"] in ("product", "source-commit")
        )
        for w in stored
    }
    return Run(
        elapsed, latencies, statuses, firsts, laters, waiting, cpu, len(stored), len(keys),
        fetched, checks, check_seconds, len(refused),
    )  # fmt: skip


def _branch_checks(serve: str) -> tuple[int, float]:
    """(checks, seconds) of the service's branch-tip checks, from its /metrics."""
    text = httpx.get(
        f"{serve}/metrics", headers={"Authorization": f"Bearer {METRICS_TOKEN}"}, timeout=30
    ).text
    found = {}
    for line in text.splitlines():
        name, _, value = line.partition(" ")
        if name.startswith("promoflow_webhook_branch_check_duration_seconds_"):
            found[name.rsplit("_", 1)[1]] = float(value)
    return int(found.get("count", 0)), found.get("sum", 0.0)


def _serve_args(root: Path, config: Path, port: int, argo: str) -> list[str]:
    """``promoflow serve`` on ``port``, on the Git cache every run shares."""
    return [
        sys.executable, "-m", "orchestrator.cli", "serve", "-c", str(config),
        "--port", str(port), "--argo-server", argo, "--log-level", "warning",
        "--git-cache", str(root / "serve-cache"),
    ]  # fmt: skip


# -- hostile senders -----------------------------------------------------------------------


def _cpu(pid: int) -> float:
    """Seconds of CPU the process has used (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _once(host: str, port: int, request: bytes) -> float:
    """One request on a new connection, read until the server closes it; seconds taken."""
    started = time.perf_counter()
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(request)
        await reader.read(-1)
    except (OSError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()
    return time.perf_counter() - started


@cache
def _unauthenticated(host: str) -> bytes:
    body = b"[" + b"[]," * ((MIB - 4) // 3) + b"[]]"
    lines = [
        "POST /webhooks/azure HTTP/1.1", f"Host: {host}", f"Content-Length: {len(body)}",
        "Content-Type: application/json", "Authorization: Basic d3Jvbmc6Y3JlZGVudGlhbHM=",
        "Connection: close",
    ]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def _slow_head(host: str) -> bytes:
    lines = [
        "POST /webhooks/github HTTP/1.1", f"Host: {host}", f"Content-Length: {MIB}",
        "X-GitHub-Event: push", "X-Hub-Signature-256: sha256=" + "0" * 64,
    ]  # fmt: skip
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


async def _probe(host: str, port: int, seconds: float = 0.0) -> list[float]:
    """PROBES sequential probes, and more until ``seconds`` have passed."""
    request = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode()
    began = time.perf_counter()
    latencies: list[float] = []
    while len(latencies) < PROBES or time.perf_counter() - began < seconds:
        latencies.append(await _once(host, port, request))
    return latencies


async def _attack(kind: str, host: str, port: int, senders: int, seconds: float) -> int:
    """``senders`` running the ``kind`` attack for ``seconds``; the requests they made."""
    attacker = {"flood": _flood, "trickle": _trickle}[kind]
    stop = asyncio.Event()
    made = [0]

    async def loop() -> None:
        while not stop.is_set():
            await attacker(host, port, stop)
            made[0] += 1

    tasks = [asyncio.create_task(loop()) for _ in range(senders)]
    await asyncio.sleep(seconds)
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return made[0]


def attack_child(kind: str, port: int, senders: str, seconds: str) -> None:
    made = asyncio.run(_attack(kind, "127.0.0.1", port, int(senders), float(seconds)))
    print(made)


async def _under(host: str, port: int, kind: str, senders: int) -> tuple[list[float], int]:
    """/healthz latencies while ``senders`` run the ``kind`` attack from a process of their
    own, at the lowest CPU priority: attackers are on other machines, so what is measured is
    the server's work for them, not their competition for this machine's CPUs (sending 1 MiB
    bodies over loopback costs the sender more than the server). The requests they made."""
    child = await asyncio.create_subprocess_exec(
        "nice", "-n", "19", sys.executable, "-m", "bench.webhook_load", "attack", str(port),
        kind, str(senders), str(ATTACK_SECONDS + 2), stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    await asyncio.sleep(1.5)  # the attack under way
    # past the body deadline (10 s), so slow senders are cut off and come back
    latencies = await _probe(host, port, ATTACK_SECONDS)
    out, _ = await child.communicate()
    return latencies, int(out.decode().split()[-1] or 0)


async def _flood(host: str, port: int, stop: asyncio.Event) -> None:
    del stop
    await _once(host, port, _unauthenticated(host))


async def _trickle(host: str, port: int, stop: asyncio.Event) -> None:
    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(_slow_head(host))
        while not stop.is_set() and not reader.at_eof():
            writer.write(b" ")
            await writer.drain()
            try:
                await asyncio.wait_for(reader.read(65536), 0.1)
            except TimeoutError:
                continue
    except OSError:
        pass
    finally:
        writer.close()


@dataclass
class Hostile:
    signed_cpu: float
    unauthenticated_cpu: float
    idle: list[float]
    flooded: list[float]
    floods: int
    trickled: list[float]
    trickles: int


def _hostile(
    root: Path, config: Path, requests: list[tuple[int, bytes, dict[str, str]]]
) -> Hostile:
    """A warm ``promoflow serve`` (after the load's runs) under each attack."""
    from orchestrator.simulator.serve import free_port

    me = [sys.executable, "-m", "bench.webhook_load"]
    argo_port, serve_port = free_port(), free_port()
    pids: list[int] = []
    with ExitStack() as stack:
        argo = stack.enter_context(_process([*me, "argo", str(argo_port), str(config)], argo_port))
        serve_args = _serve_args(root, config, serve_port, argo)
        env = {
            "PROMOFLOW_WEBHOOK_GITHUB_SECRET": SECRET,
            "PROMOFLOW_WEBHOOK_AZURE_SECRET": SECRET,
            "ARGO_NAMESPACE": "argo",
        }
        serve = stack.enter_context(_process(serve_args, serve_port, env, pids))
        host = serve.removeprefix("http://")
        name, port = host.split(":")
        signed = requests[:2000]
        asyncio.run(_load(serve, signed, "warming"))  # every push submitted and remembered

        async def measure() -> Hostile:
            # each on a connection of its own: a refused sender's connection is closed
            count = 300
            once = [r.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n", 1) for r in
                    (w for _, w in _wire(serve, signed[:count]))]  # fmt: skip
            before = _cpu(pids[0])
            for request in once:
                await _once(name, int(port), request)
            signed_cpu = (_cpu(pids[0]) - before) / count
            before = _cpu(pids[0])
            for _ in range(count):
                await _once(name, int(port), _unauthenticated(host))
            unauthenticated_cpu = (_cpu(pids[0]) - before) / count
            idle = await _probe(name, int(port))
            flooded, floods = await _under(name, int(port), "flood", UNAUTHENTICATED)
            trickled, trickles = await _under(name, int(port), "trickle", SLOW)
            return Hostile(
                signed_cpu, unauthenticated_cpu, idle, flooded, floods, trickled, trickles
            )

        return asyncio.run(measure())


def main() -> None:
    from orchestrator.simulator.serve import free_port
    from tests.webhooks.harness import config_text

    with tempfile.TemporaryDirectory(prefix="promoflow-bench-") as tmp, ExitStack() as stack:
        root = Path(tmp)
        console.print(f"preparing {PUSHES} release commits and {DELIVERIES} signed deliveries")
        pushes = _world(root)
        git = stack.enter_context(GitProcess(root / "git"))
        repo_url = git.repo_url("gitops")
        config = root / "config"
        config.mkdir()
        (config / "promoflow.yaml").write_text(config_text(repo_url, PRODUCTS))
        requests = _requests(repo_url, pushes)
        me = [sys.executable, "-m", "bench.webhook_load"]
        publisher = Publisher(root / "git" / "gitops.git", pushes)
        cold = _promoflow(root, config, git, requests, "cold", publisher)
        bares: list[Run] = []
        warms: list[Run] = []
        for i in range(ROUNDS):  # alternated: a busy moment of the machine slows both
            bare_port = free_port()
            pids: list[int] = []
            with _process([*me, "bare", str(bare_port)], bare_port, pids=pids) as bare:
                cpu = _cpu(pids[0])
                loaded = asyncio.run(_load(bare, requests, f"bare {i + 1}"))
                bares.append(Run(*loaded, cpu=_cpu(pids[0]) - cpu))
            warm = publisher.rewind()
            warms.append(_promoflow(root, config, git, requests, f"warm {i + 1}", warm))
        bare_port = free_port()
        with _process([*me, "bare", str(bare_port)], bare_port) as endpoint:
            paced_bare = Run(*asyncio.run(_load(endpoint, requests, "bare paced", rate=PACED)))
        paced = _promoflow(root, config, git, requests, "paced", publisher.rewind(), PACED)
        runs = {"bare": _median(bares), "cold": cold, "warm": _median(warms)}
        every = [cold, *warms, paced]
        hostile = _hostile(root, config, requests)
    console.print(
        f"{DELIVERIES} deliveries of {PUSHES} pushes, {CONCURRENCY} in flight, seed {SEED}"
        f" (bare and warm: the median of {ROUNDS} alternated rounds, by throughput):"
    )
    names = {
        "bare": "bare endpoint",
        "cold": "promoflow, each push fetched from Git as it happens",
        "warm": "promoflow, pushed commits in its Git cache (a restarted replica)",
    }
    for name, run in runs.items():
        console.print(
            f"  {names[name]}\n    {run.rps:6.0f} req/s"
            f"   p50 {_p(run.latencies, 50) * 1000:6.1f} ms"
            f"   p99 {_p(run.latencies, 99) * 1000:6.1f} ms   max {max(run.latencies) * 1000:6.1f}"
            f" ms   {dict(sorted(run.statuses.items()))}   {run.elapsed:.1f} s"
        )
        if name != "bare":
            console.print(
                f"    {run.workflows} Workflows for {PUSHES} pushes; "
                f"{run.git_requests} requests to the Git server; a push's first delivery: "
                f"p50 {statistics.median(run.firsts) * 1000:.1f} ms, of which the branch-tip "
                f"check {run.check_ms:.1f} ms on average ({run.checks} checks); "
                f"{len(run.waiting)} deliveries waiting for it p50 "
                f"{_p(run.waiting, 50) * 1000:.1f} ms; the {len(run.laters)} others p99 "
                f"{_p(run.laters, 99) * 1000:.1f} ms"
            )
    bare, cold, warm = runs["bare"], runs["cold"], runs["warm"]
    # each round's pair measured back to back: a slow spell of the machine slows both
    ratios = sorted(b.cpu / w.cpu for b, w in zip(bares, warms, strict=True))
    capacity = ratios[len(ratios) // 2]
    tails = sorted(_p(w.laters, 99) / _p(b.laters, 99) for b, w in zip(bares, warms, strict=True))
    latency = tails[len(tails) // 2]
    idle_p99 = _p(hostile.idle, 99) * 1000
    console.print(
        f"hostile senders: /healthz p50/p99 {_p(hostile.idle, 50) * 1000:.1f}/{idle_p99:.1f} ms"
        f" idle, {_p(hostile.flooded, 50) * 1000:.1f}/{_p(hostile.flooded, 99) * 1000:.1f} ms"
        f" under {UNAUTHENTICATED} unauthenticated 1 MiB senders ({hostile.floods} bodies),"
        f" {_p(hostile.trickled, 50) * 1000:.1f}/{_p(hostile.trickled, 99) * 1000:.1f} ms"
        f" under {SLOW} slow senders ({hostile.trickles} cut off)"
    )
    finish(
        "webhook load",
        [
            Row(
                "capacity promoflow/bare (server CPU per delivery)",
                capacity,
                f"{warm.cpu / DELIVERIES * 1e6:.0f} / {bare.cpu / DELIVERIES * 1e6:.0f} us per "
                f"delivery (Git cache warm); the median of the rounds' ratios "
                f"{', '.join(f'{r:.2f}' for r in ratios)}",
                ">= 0.5",
                at_least(0.5),
            ),
            Row(
                "throughput promoflow/bare",
                warm.rps / bare.rps,
                f"{warm.rps:.0f} / {bare.rps:.0f} req/s (Git cache warm; the Git server and "
                "the fake Argo Server, at nice 19, run during promoflow's run only)",
            ),
            Row(
                "p99 latency of deliveries answered from memory, promoflow/bare",
                latency,
                f"{_p(warm.laters, 99) * 1000:.1f} / {_p(bare.laters, 99) * 1000:.1f} ms at full "
                f"load ({CONCURRENCY} in flight, Git cache warm); the median of the rounds' "
                f"ratios {', '.join(f'{r:.2f}' for r in tails)}",
                "<= 1.5",
                below(1.5),
            ),
            Row(
                "p99 latency of all deliveries at full load, ms",
                _p(warm.latencies, 99) * 1000,
                f"bare {_p(bare.latencies, 99) * 1000:.1f} ms; a push's first delivery p50 "
                f"{statistics.median(warm.firsts) * 1000:.1f} ms (a branch-tip check, "
                f"{warm.check_ms:.1f} ms on average, and a Workflow created), and "
                f"{len(warm.waiting)} deliveries sent meanwhile wait for its answer",
            ),
            Row(
                f"p99 latency at {PACED:,.0f} deliveries/s, ms",
                _p(paced.latencies, 99) * 1000,
                f"bare {_p(paced_bare.latencies, 99) * 1000:.1f} ms at the same rate; "
                f"answered from memory {_p(paced.laters, 99) * 1000:.1f} ms; a push's first "
                f"delivery p50 {statistics.median(paced.firsts) * 1000:.1f} ms (its check "
                f"{paced.check_ms:.1f} ms), {len(paced.waiting)} deliveries wait for one",
            ),
            Row(
                "cold: throughput promoflow/bare",
                cold.rps / bare.rps,
                f"{cold.rps:.0f} req/s, p99 {_p(cold.latencies, 99) * 1000:.0f} ms, "
                f"{cold.git_requests} Git requests",
            ),
            Row(
                "pushes superseded before their first delivery was checked (409)",
                sum(run.superseded for run in every),
                f"of {len(every) * PUSHES} pushes; not promoted: a newer push of the "
                "product was already on the branch",
            ),
            Row(
                "errors (neither 202 nor 409)",
                sum(run.errors for run in every),
                f"of {len(every) * DELIVERIES} deliveries to promoflow",
                "0",
                below(0.5),
            ),
            Row(
                "1 MiB unauthenticated body",
                hostile.unauthenticated_cpu / hostile.signed_cpu,
                f"server CPU {hostile.unauthenticated_cpu * 1000:.2f} ms per request, against"
                f" {hostile.signed_cpu * 1000:.2f} ms for a signed 1 KiB delivery",
                "< 1.5",
                below(1.5),
            ),
            Row(
                f"/healthz p99 under {UNAUTHENTICATED} unauthenticated 1 MiB senders, ms",
                _p(hostile.flooded, 99) * 1000,
                f"{idle_p99:.1f} ms with no attack; {hostile.floods} bodies refused",
                "< 100",
                below(100),
            ),
            Row(
                f"/healthz p99 under {SLOW} slow senders, ms",
                _p(hostile.trickled, 99) * 1000,
                f"{idle_p99:.1f} ms with no attack; {hostile.trickles} senders cut off",
                "< 100",
                below(100),
            ),
            Row(
                "duplicate submissions",
                sum(run.duplicates for run in every),
                f"Workflows per run: {', '.join(str(run.workflows) for run in every)} "
                f"for {PUSHES} pushes",
                "0",
                below(0.5),
            ),
        ],
        console,
    )


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "attack":
        attack_child(sys.argv[3], int(sys.argv[2]), *sys.argv[4:])
    elif len(sys.argv) > 1:
        serve_child(sys.argv[1], int(sys.argv[2]), *sys.argv[3:])
    else:
        main()
