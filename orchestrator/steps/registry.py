"""The step registry: every step kind declared once, in a module of its own.

A step kind is one ``StepSpec``: its name (the ``promoflow step`` subcommand and the
WorkflowTemplate), typed inputs with their CLI flags and help, outputs, exit codes, default
deadline, the credentials it needs and its ``run`` entry. The compiler's template library,
the ``promoflow step`` CLI, ``workflow_templates/`` and the run summaries' node kinds are
all derived from it, so adding a step is adding one module to ``orchestrator/steps/specs``.

This module is imported when a step pod starts: it imports nothing beyond the standard
library, orchestrator.errors and orchestrator.discovery (no Hera, no typer, no pydantic),
and its records are ``NamedTuple``s rather than frozen dataclasses, which cost about a
millisecond each to define at every start.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from orchestrator import discovery
from orchestrator.errors import EXIT_FAILED, EXIT_OK, EXIT_TRANSIENT, EXIT_USAGE

TRANSIENT_EXIT = EXIT_TRANSIENT

# TRANSIENT_EXIT (75, EX_TEMPFAIL) is the only exit code the step templates' retryStrategy
# retries; the codes and their meaning live in orchestrator.errors.

EXITS: Mapping[int, str] = MappingProxyType(
    {
        EXIT_OK: "done",
        EXIT_FAILED: "cannot be done as asked",
        EXIT_USAGE: "usage error",
        TRANSIENT_EXIT: "transient failure: retried with backoff",
    }
)
"""What the exit codes of every step program mean; a step may add its own."""

Need = Literal["git", "argocd", "report"]
"""What a step talks to, and so which settings and Secret references its container gets:
``git`` (GIT_TOKEN, also for the SCM API), ``argocd`` (server, options and token),
``report`` (PROMOFLOW_REPORT_URL)."""

CREDENTIALS: Mapping[Need, str] = MappingProxyType(
    {"git": "GIT_TOKEN", "argocd": "ARGOCD_AUTH_TOKEN", "report": "PROMOFLOW_REPORT_TOKEN"}
)
"""The environment variable holding each need's credential: a step's container gets only
those of its needs (``compiler/library``), and so does a step the executor plugin runs
(``orchestrator.plugin``), whose server holds them all."""

InputType = Literal["str", "int", "bool", "path", "config"]
"""``config``: a configuration path the CLI loads and validates (printing its problems)
before the program runs; the program receives the loaded configuration, or ``None``."""


class Input(NamedTuple):
    """One input of a step: a template parameter, a CLI option, or both.

    ``default`` is the template's (``None``: the compiler must set it). The CLI treats an
    input as required only when ``cli_required`` says so, or, left unset, when the template
    has no default (a CLI-only input is optional); an optional CLI input defaults to
    ``default`` or an empty value.
    """

    name: str
    default: str | None = None
    help: str = ""
    flag: str = ""
    """The long CLI flag without ``--`` when it differs from ``name`` (``to``, ``from``)."""
    short: str = ""
    """A short CLI alias such as ``-p``."""
    argo_only: bool = False
    """A template parameter only Argo reads (deadlines): never passed to the program."""
    cli_only: bool = False
    """A CLI option the compiled template never sets (``--config``, ``--plan``)."""
    cli_required: bool | None = None
    type: InputType = "str"
    minimum: int | None = None
    maximum: int | None = None
    envvar: str = ""

    @property
    def option(self) -> str:
        """The long flag, as the template passes it and the CLI accepts it."""
        return f"--{self.flag or self.name}"

    @property
    def key(self) -> str:
        """The keyword ``run`` receives this input's value under."""
        return self.name.replace("-", "_")

    @property
    def in_template(self) -> bool:
        return not self.cli_only

    @property
    def on_cli(self) -> bool:
        return not self.argo_only

    @property
    def required_on_cli(self) -> bool:
        if self.cli_required is not None:
            return self.cli_required
        return self.default is None and not self.cli_only

    def cli_default(self) -> Any:
        """The CLI's default, typed: ``"200"`` is 200 for an ``int`` input."""
        if self.type == "bool":
            return self.default == "true"
        if self.type in ("path", "config"):
            return None
        if self.type == "int":
            return int(self.default) if self.default is not None else None
        return self.default or ""


class Answer(NamedTuple):
    """A parameter people set on a suspended node (Argo's intermediate parameter)."""

    name: str
    choices: tuple[str, ...]
    default: str
    """The dialog's initial choice (the input's default)."""
    description: str
    unanswered: str = ""
    """The output when the node is resumed without an answer: by its timeout, or by a
    resume of the whole workflow (Argo gives every supplied output its ``default``)."""


class Pause(NamedTuple):
    """A step without a program: Argo suspends the node for ``duration``, optionally
    waiting for an ``answer`` from a person.

    A pause step's inputs are fixed when the flow is compiled: the compiler writes one
    template per task with ``{{inputs.parameters.NAME}}`` in ``duration``, the answer's
    description and the mutex replaced by their values, and the values as annotations
    (``promoflow.dev/NAME``). The suspended node's only inputs are then what a person
    answers: the Argo UI's resume dialog offers every input of the node for editing and
    sends each back as an output, which the Argo Server refuses for anything but a
    supplied output (``node is not expecting output parameter``)."""

    duration: str
    answer: Answer | None = None


class TaskKind(NamedTuple):
    """A DAG task prefix that runs this step (``deploy`` runs ``promote``), as run
    summaries group nodes. ``rank`` orders kinds within one environment's chain;
    ``indexed`` kinds may repeat with a ``-N`` suffix (``check-prod-2``)."""

    prefix: str
    rank: int
    indexed: bool = False


Run = Callable[[Any], None]
"""A step's program: called with its :attr:`StepSpec.takes` value (a ``NamedTuple``)."""

OUTPUTS = Input("outputs", cli_only=True, type="path", help="Write Argo output parameters here.")
"""Every program takes ``--outputs``: the templates pass where Argo reads outputs from."""

_ANNOTATIONS = {
    "str": "str",
    "int": "int",
    "bool": "bool",
    "path": "Path | None",
    "config": "Config | None",
}
"""The annotation a ``takes`` field has for each input type, as written in its module
(``from __future__ import annotations``: the text, never evaluated at start-up)."""


def _annotation(value: object) -> str:
    """The annotation's text: ``NamedTuple`` keeps a postponed one as a ``ForwardRef``."""
    text = getattr(value, "__forward_arg__", value)
    if isinstance(text, str):
        return text
    return getattr(text, "__name__", None) or str(text).replace("pathlib.", "")


class StepSpec(NamedTuple):
    """Everything about one step kind; see the module docstring for what derives from it."""

    name: str
    summary: str
    """One line: the help of the ``promoflow step`` command."""
    inputs: tuple[Input, ...] = ()
    outputs: tuple[str, ...] = ()
    exits: Mapping[int, str] = EXITS
    deadline: int | None = None
    """activeDeadlineSeconds of the step's pod (``None``: no deadline)."""
    deadline_input: bool = False
    """Let the compiler set the deadline per task through a ``deadline-seconds`` input
    (defaulting to ``deadline``), e.g. from a gate's timeouts."""
    needs: frozenset[Need] = frozenset()
    mutex: str = ""
    """An Argo mutex (an expression over the inputs) the step holds while it runs."""
    run: Run | None = None
    """The program: called with one ``takes`` value holding every CLI input (``Input.key``)
    and ``outputs``. ``None`` for a ``pause`` step, which has no program."""
    takes: type[tuple[Any, ...]] | None = None
    """The ``NamedTuple`` ``run`` receives: one typed field per CLI input, in declaration
    order, then ``outputs``. Checked against the inputs when the step registers, so a
    program reads ``inputs.url`` (typed) and a renamed input fails at import, not in a
    pod."""
    pause: Pause | None = None
    retries: bool = True
    """Whether Argo retries the step after an Argo error or exit 75. A step that cannot
    fail transiently says ``False``: its node then has no Retry wrapper, and the UI shows
    it once rather than as ``NAME`` and ``NAME(0)``."""
    tasks: tuple[TaskKind, ...] = ()
    doc: str = ""
    """Why the step exists, for readers of the generated templates."""

    def check(self) -> None:
        """Refuse a declaration that cannot make a template (``register`` calls this)."""
        if (self.run is None) == (self.pause is None):
            raise ValueError(f"step {self.name!r}: give exactly one of run and pause")
        if self.deadline_input and self.deadline is None:
            raise ValueError(f"step {self.name!r}: deadline_input needs a default deadline")
        if self.run is not None:
            self._check_takes()

    def _check_takes(self) -> None:
        """``takes`` has exactly the program's inputs, in order, with their types."""
        if self.takes is None or not hasattr(self.takes, "_fields"):
            raise ValueError(f"step {self.name!r}: give takes=, the NamedTuple run receives")
        wanted = {item.key: _ANNOTATIONS[item.type] for item in self.program_inputs}
        fields: tuple[str, ...] = self.takes._fields
        if fields != tuple(wanted):
            raise ValueError(
                f"step {self.name!r}: {self.takes.__name__} has fields {', '.join(fields)}; "
                f"the inputs are {', '.join(wanted)}"
            )
        for key, annotation in self.takes.__annotations__.items():
            if _annotation(annotation) != wanted[key]:
                raise ValueError(
                    f"step {self.name!r}: {self.takes.__name__}.{key} is "
                    f"{_annotation(annotation)}; "
                    f"its input is read as {wanted[key]}"
                )

    @property
    def template_inputs(self) -> tuple[Input, ...]:
        """The template's parameters, in declaration order (the deadline input last)."""
        own = tuple(i for i in self.inputs if i.in_template)
        if self.deadline_input:
            own += (Input("deadline-seconds", str(self.deadline), argo_only=True),)
        return own

    @property
    def cli_inputs(self) -> tuple[Input, ...]:
        return tuple(i for i in self.inputs if i.on_cli)

    @property
    def program_inputs(self) -> tuple[Input, ...]:
        """What the program receives: the CLI inputs, then :data:`OUTPUTS`."""
        return (*self.cli_inputs, OUTPUTS)


_STEPS: dict[str, StepSpec] = {}
_loaded = False
SPECS_PACKAGE = "orchestrator.steps.specs"


def register(spec: StepSpec) -> StepSpec:
    """Add ``spec`` to the registry (a step module calls this once, at import)."""
    spec.check()
    known = _STEPS.get(spec.name)
    if known is not None and known is not spec:
        raise ValueError(f"step {spec.name!r} is registered twice")
    _STEPS[spec.name] = spec
    return spec


def _load() -> None:
    """Import every module of ``orchestrator.steps.specs``: each registers its step."""
    global _loaded
    if _loaded:
        return
    discovery.modules(SPECS_PACKAGE)
    _loaded = True


def steps() -> tuple[StepSpec, ...]:
    """Every registered step, ordered by its first task's rank, then by name: the order
    a promotion runs them in (steps without tasks, such as the exit handler, last)."""
    _load()
    return tuple(sorted(_STEPS.values(), key=_order))


def _order(spec: StepSpec) -> tuple[int, str]:
    return (min((t.rank for t in spec.tasks), default=1_000_000), spec.name)


def get(name: str) -> StepSpec:
    """The step called ``name``; ``KeyError`` when there is none."""
    _load()
    return _STEPS[name]


def task_kinds() -> Iterator[tuple[TaskKind, StepSpec]]:
    """Every DAG task prefix with the step it runs."""
    for spec in steps():
        for kind in spec.tasks:
            yield kind, spec


USER_KINDS = (TaskKind("pre", rank=30), TaskKind("post", rank=90))
"""Tasks that run the user's own templates (``pre_action``/``post_action``), not a step."""


def all_task_kinds() -> tuple[TaskKind, ...]:
    """Every task kind of a promotion DAG, the steps' and the user's, in the order they run
    within an environment: the one declaration of that order, which the compiler lays
    tasks out by and the run summaries read."""
    kinds = [*USER_KINDS, *(kind for kind, _ in task_kinds())]
    return tuple(sorted(kinds, key=lambda k: (k.rank, k.prefix)))
