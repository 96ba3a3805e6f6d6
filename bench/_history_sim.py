"""What happens in the history benchmark's repository, one commit at a time (no I/O).

Each product has at most one release in flight: it enters the trigger environment (built
from a commit), then the next environment, then each of the others one after another,
while other products' releases do the same, so the commits of one product are spread over
the whole history as they are in a busy repository. Some releases stop after the trigger
environment (a newer build overtook them); a failed gate stops a release, and a few failed
production ones are rolled back to the version held before. People's commits (tweaks of
a values file, README and CI changes) come in between.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from random import Random

from bench._history_config import is_production, upstream

START = 1767600000
"""2026-01-05 08:00 UTC: the first commit."""
WORDS = (
    "shop", "checkout", "cart", "search", "payments", "orders", "billing", "catalog",
    "pricing", "inventory", "shipping", "accounts", "auth", "profile", "reviews", "ratings",
    "coupons", "loyalty", "gateway", "mailer", "notifier", "reports", "ledger", "invoices",
    "tax", "fraud", "media", "thumbnails", "recommender", "wishlist", "returns", "support",
    "chat", "feeds", "sitemap", "analytics", "tracking", "export", "importer", "scheduler",
)  # fmt: skip
PEOPLE = (
    ("Alice Martin", "alice@example.com"),
    ("Bob Chen", "bob@example.com"),
    ("Carol Diaz", "carol@example.com"),
    ("Dmitri Petrov", "dmitri@example.com"),
    ("Erin Walsh", "erin@example.com"),
    ("Femi Ade", "femi@example.com"),
)
FAILURES = {
    "health": "Degraded: back-off restarting",
    "sync": "OutOfSync after 10m",
    "soak": "restarts during soak: 3",
}
TARGET_IN_FLIGHT = 24
"""Releases moving at once: enough that one product's commits are far apart."""


def product_names(count: int) -> tuple[str, ...]:
    """``shop``, ``checkout``, ..., then ``shop-2``, ``checkout-2``, ...: a name that is a
    prefix of another's (``shop``, ``shop-2``) keeps readers honest about paths."""
    return tuple(
        WORDS[i % len(WORDS)] + (f"-{i // len(WORDS) + 1}" if i >= len(WORDS) else "")
        for i in range(count)
    )


def values_text(product: str, tag: str, extra: str = "") -> str:
    """The version file: the fixed head the command reads, then whatever people added."""
    head = f'image:\n  repository: registry.example.com/acme/{product}\n  tag: "{tag}"\n'
    return head + extra


@dataclass
class Release:
    product: str
    version: str
    run: str
    requested_by: str
    jira: tuple[str, ...]
    fields: tuple[tuple[str, str], ...]
    waiting: list[str]
    """Environments still to promote into, in order."""
    marks: dict[str, int] = field(default_factory=dict)
    """Environment -> fast-import mark of the commit that promoted the version there."""


@dataclass
class Step:
    """One commit on ``main``; the promotion fields are empty for people's commits."""

    kind: str
    """``promotion``, ``hand`` (a person edits a values file) or ``other``."""
    path: str
    content: str
    product: str = ""
    """Set when the commit touches ``envs/*/{product}/``."""
    message: str = ""
    author: str = ""
    environment: str = ""
    version: str = ""
    source_env: str = ""
    source_mark: int | None = None
    built_from: str = ""
    rollback_from: str = ""
    run: str = ""
    requested_by: str = ""
    approved_by: str = ""
    jira: tuple[str, ...] = ()
    fields: tuple[tuple[str, str], ...] = ()
    gates: tuple[str, ...] = ()
    failure_gate: str = ""
    failure: str = ""
    verified_at: int = 0
    """When the gates finished (0: never, so no note)."""
    release: Release | None = None


@dataclass
class _Rollback:
    due: int
    environment: str
    product: str
    failed: str
    back_to: str


class Simulation:
    def __init__(self, rng: Random, products: int, environments: tuple[str, ...]) -> None:
        self.rng = rng
        self.products = product_names(products)
        self.environments = environments
        self.start = START
        self.held = {(e, p): "1.0.0" for e in environments for p in self.products}
        self.before: dict[tuple[str, str], str] = {}
        self.extra = {(e, p): "" for e in environments for p in self.products}
        self.latest = dict.fromkeys(self.products, (1, 0, 0))
        self.in_flight: dict[str, Release] = {}
        self.rollbacks: list[_Rollback] = []
        self.readme = 0

    def tick(self, clock: int) -> int:
        """A few minutes later."""
        return clock + self.rng.randint(60, 540)

    def _hex(self, digits: int) -> str:
        return f"{self.rng.getrandbits(digits * 4):0{digits}x}"

    def _person(self) -> tuple[str, str]:
        return self.rng.choice(PEOPLE)

    def next_step(self, clock: int) -> Step:
        roll = self.rng.random()
        if roll < 0.02:
            return self._hand()
        if roll < 0.035:
            return self._other()
        due = [r for r in self.rollbacks if r.due <= clock]
        if due and roll < 0.05:
            self.rollbacks.remove(due[0])
            if self.held[(due[0].environment, due[0].product)] == due[0].failed:
                return self._rollback(due[0], clock)
        while True:
            idle = [p for p in self.products if p not in self.in_flight]
            wanted = len(self.in_flight) < TARGET_IN_FLIGHT and self.rng.random() < 0.5
            if idle and (not self.in_flight or wanted or self.rng.random() < 0.1):
                return self._enter(self.rng.choice(idle), clock)
            release = self.rng.choice(list(self.in_flight.values()))
            first = release.waiting[0] == self.environments[1]
            if first and self.rng.random() < 0.08:  # a newer build overtakes it
                del self.in_flight[release.product]
                continue
            return self._advance(release, clock)

    def committed(self, step: Step, mark: int) -> None:
        """Record where the step's commit went (its mark is the next one's source)."""
        if step.release is None:
            return
        release = step.release
        release.marks[step.environment] = mark
        if step.failure or not release.waiting:
            self.in_flight.pop(release.product, None)

    def _enter(self, product: str, clock: int) -> Step:
        major, minor, patch = self.latest[product]
        bump = self.rng.random()
        if bump < 0.01:
            version = (major + 1, 0, 0)
        elif bump < 0.15:
            version = (major, minor + 1, 0)
        else:
            version = (major, minor, patch + 1)
        self.latest[product] = version
        later = list(self.environments[2:])
        self.rng.shuffle(later)
        key = "".join(c for c in product.upper() if c.isalnum())[:8]
        jira = tuple(
            f"{key}-{self.rng.randint(1, 999)}"
            for _ in range(self.rng.choice((1, 1, 2, 3)) if self.rng.random() < 0.4 else 0)
        )
        digest = (("image.digest", f"sha256:{self._hex(64)}"),) if self.rng.random() < 0.3 else ()
        release = Release(
            product=product,
            version=".".join(map(str, version)),
            run=f"promoflow-{product}-{self._hex(5)}",
            requested_by=self._person()[1],
            jira=jira,
            fields=digest,
            waiting=list(self.environments[1:2]) + later,
        )
        self.in_flight[product] = release
        return self._promotion(release, self.environments[0], clock, built_from=self._hex(40))

    def _advance(self, release: Release, clock: int) -> Step:
        env = release.waiting.pop(0)
        return self._promotion(release, env, clock)

    def _promotion(self, release: Release, env: str, clock: int, built_from: str = "") -> Step:
        source = upstream(self.environments, env)
        step = self._promoting(release.product, env, release.version, clock)
        step.release = release
        step.run = release.run
        step.requested_by = release.requested_by
        step.jira = release.jira
        step.fields = release.fields
        step.built_from = built_from
        if source is not None:
            step.source_env, step.source_mark = source, release.marks[source]
        if step.failure and is_production(env) and self.rng.random() < 0.4:
            held = self.before[(env, release.product)]
            self.rollbacks.append(_Rollback(step.verified_at, env, release.product,
                                            release.version, held))  # fmt: skip
        return step

    def _rollback(self, rollback: _Rollback, clock: int) -> Step:
        step = self._promoting(rollback.product, rollback.environment, rollback.back_to, clock)
        step.rollback_from = rollback.failed
        step.run = f"promoflow-{rollback.product}-{self._hex(5)}"
        step.requested_by = self._person()[1]
        return step

    def _promoting(self, product: str, env: str, version: str, clock: int) -> Step:
        """The parts every promotion commit shares: the file, the approval, the gates."""
        key = (env, product)
        self.before[key], self.held[key] = self.held[key], version
        production = is_production(env)
        gates = ("sync", "health", "soak") if production else ("sync", "health")
        step = Step(
            kind="promotion",
            path=f"envs/{env}/{product}/values.yaml",
            content=values_text(product, version, self.extra[key]),
            product=product,
            environment=env,
            version=version,
            gates=gates,
        )
        if production and self.rng.random() < 0.6:
            step.approved_by = self._person()[1]
        if self.rng.random() < 0.94:  # the others' runs never finished
            took = self.rng.randint(90, 420) + (600 if production else 0)
            step.verified_at = clock + took
            if self.rng.random() < 0.05:
                step.failure_gate = self.rng.choice(gates[1:])
                step.failure = FAILURES[step.failure_gate]
        return step

    def _hand(self) -> Step:
        env, product = self.rng.choice(self.environments), self.rng.choice(self.products)
        key = (env, product)
        name, email = self._person()
        if self.rng.random() < 0.5:
            memory = self.rng.choice((512, 768, 1024, 1536))
            self.extra[key] = f"resources:\n  limits:\n    memory: {memory}Mi\n"
            message = f"hotfix: bump {product} memory in {env} to {memory}Mi\n"
        else:
            replicas = self.rng.randint(2, 8)
            self.extra[key] = f"replicas: {replicas}\n"
            message = f"{product}: run {replicas} replicas in {env}\n"
        return Step(
            kind="hand",
            path=f"envs/{env}/{product}/values.yaml",
            content=values_text(product, self.held[key], self.extra[key]),
            product=product,
            message=message,
            author=f"{name} <{email}>",
        )

    def _other(self) -> Step:
        name, email = self._person()
        self.readme += 1
        if self.rng.random() < 0.5:
            text = (
                f"# gitops\n\nOne folder per environment under envs/.\n\nRevision {self.readme}.\n"
            )
            path, message = "README.md", "docs: say how the folders are laid out\n"
        else:
            text = f"lint:\n  script: [yamllint envs]\n  retry: {self.readme % 3}\n"
            path, message = ".gitlab-ci.yml", "ci: retry the lint job\n"
        return Step(kind="other", path=path, content=text, message=message,
                    author=f"{name} <{email}>")  # fmt: skip
