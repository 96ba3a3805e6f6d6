"""The Go values Argo CD's ``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` return, built
from the API server's JSON answers, for both template languages.

Argo CD v3.2 (util/notification/argocd/service.go) hands templates Go structs, not maps:
``shared.CommitMetadata{Message, Author, Date time.Time, Tags []string}`` and
``shared.AppDetail{Type, Helm *shared.CustomHelmAppSpec, Kustomize
*apiclient.KustomizeAppSpec, Directory *apiclient.DirectoryAppSpec}``, whose
``CustomHelmAppSpec{HelmAppSpec apiclient.HelmAppSpec, HelmParameterOverrides
[]v1alpha1.HelmParameter}`` has the methods ``GetParameterValueByName`` and
``GetFileParameterPathByName``. That decides what a template sees: a field that is not
there is an error, not ``<no value>``; an absent ``Helm`` is a nil pointer (false in an
``if``, an error when read through). :class:`Struct` holds such a value with its Go type;
each language wraps it in its own value protocol (:mod:`reporters.gotemplate.gostruct`,
:mod:`reporters.expr.gostruct`).

The API server's JSON has the proto's lower-case names (``valueFiles``) and leaves out
empty fields; the Go structs always have every field, empty when the JSON lacks it.

This mirrors by hand what Go does with those structs (there is no Go here): the
vectors of ``tests/vectors/repofns`` (Go's text/template and expr v1.17.7 over structs of
the same names and shapes) prove both languages' readings of them, errors included.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from orchestrator.golang.gotime import Time
from orchestrator.golang.timelayout import TimeParseError, parse_rfc3339

SHARED = "github.com/argoproj/argo-cd/v3/util/notification/expression/shared"
NIL_DEREFERENCE = "runtime error: invalid memory address or nil pointer dereference"
"""Go's panic text where Argo CD reads through a nil pointer (the template sees it)."""


class Strings(list[str]):
    """A Go ``[]string``."""


@dataclass(frozen=True)
class Method:
    """A method of a struct: Go parameter types, result type, and what it does."""

    params: tuple[str, ...]
    result: str
    fn: Callable[..., Any]


@dataclass(frozen=True)
class Struct:
    """A Go struct value, or a pointer to one (``pointer``; ``nil`` for a nil pointer).

    ``fields`` keep Go's order (``%v`` prints them so); their values are ``str``, ``bool``,
    :class:`~orchestrator.golang.gotime.Time`, :class:`Strings`, lists of :class:`Struct`
    and :class:`Struct`."""

    name: str
    fields: dict[str, Any] = field(default_factory=dict)
    methods: dict[str, Method] = field(default_factory=dict)
    pointer: bool = False
    nil: bool = False

    @property
    def go_type(self) -> str:
        return ("*" if self.pointer else "") + self.name


FIELDS = {
    "shared.CustomHelmAppSpec": ("HelmAppSpec", "HelmParameterOverrides"),
    "apiclient.KustomizeAppSpec": ("Images",),
    "apiclient.DirectoryAppSpec": (),
}
"""The fields of the types a nil pointer may stand for: reading one through the nil
pointer is a different error from reading a field the type does not have."""


def nil(name: str) -> Struct:
    """A nil ``*name``: what ``Helm`` is for an app that is not Helm. Its methods exist
    and panic as Go's do when called through a nil pointer."""
    methods: dict[str, Method] = {}
    if name == "shared.CustomHelmAppSpec":
        for method in ("GetParameterValueByName", "GetFileParameterPathByName"):
            methods[method] = Method(("string",), "string", _panics(name, method))
    return Struct(name, dict.fromkeys(FIELDS.get(name, ())), methods, pointer=True, nil=True)


def _panics(name: str, method: str) -> Callable[..., Any]:
    def call(*_: Any) -> Any:
        raise NilPointer(nil_method_panic(name, method))

    return call


class NilPointer(Exception):
    """A method called through a nil pointer: Go panics with this text."""


def panicking(method: Method, panic: type[Exception]) -> Callable[..., Any]:
    """``method``'s function, its nil-pointer panic raised as ``panic``: each language
    (templates, conditions) has its own panic, which its evaluator tells as Go does."""

    def call(*args: Any) -> Any:
        try:
            return method.fn(*args)
        except NilPointer as exc:
            raise panic(str(exc)) from None

    return call


def _strings(value: Any) -> Strings:
    return Strings(str(v) for v in value) if isinstance(value, list) else Strings()


def commit_metadata(answer: Mapping[str, Any]) -> Struct:
    """``shared.CommitMetadata`` from a ``v1alpha1RevisionMetadata`` answer. Argo CD reads
    ``metadata.Date.Time`` without a check, so an answer without a date is the panic Go
    gives for it (:class:`ValueError` here, worded as Go words it)."""
    date = answer.get("date")
    if not isinstance(date, str) or not date:
        raise ValueError(NIL_DEREFERENCE)
    try:
        when: Time = parse_rfc3339(date)
    except TimeParseError as exc:
        raise ValueError(str(exc)) from None
    return Struct(
        "shared.CommitMetadata",
        {
            "Message": str(answer.get("message") or ""),
            "Author": str(answer.get("author") or ""),
            "Date": when,
            "Tags": _strings(answer.get("tags")),
        },
    )


def _parameter(raw: Any) -> Struct:
    raw = raw if isinstance(raw, Mapping) else {}
    return Struct(
        "v1alpha1.HelmParameter",
        {
            "Name": str(raw.get("name") or ""),
            "Value": str(raw.get("value") or ""),
            "ForceString": bool(raw.get("forceString")),
        },
    )


def _file_parameter(raw: Any) -> Struct:
    raw = raw if isinstance(raw, Mapping) else {}
    return Struct(
        "v1alpha1.HelmFileParameter",
        {"Name": str(raw.get("name") or ""), "Path": str(raw.get("path") or "")},
    )


def _pointers(items: list[Struct]) -> list[Struct]:
    return [Struct(s.name, s.fields, s.methods, pointer=True) for s in items]


def _helm(answer: Mapping[str, Any], overrides: list[Struct]) -> Struct:
    """``*shared.CustomHelmAppSpec``: the repo server's Helm reading and the app's own
    ``spec.source.helm.parameters``, which win in ``GetParameterValueByName``."""
    parameters = [_parameter(p) for p in answer.get("parameters") or []]
    files = [_file_parameter(p) for p in answer.get("fileParameters") or []]
    spec = Struct(
        "apiclient.HelmAppSpec",
        {
            "Name": str(answer.get("name") or ""),
            "ValueFiles": _strings(answer.get("valueFiles")),
            "Parameters": _pointers(parameters),
            "Values": str(answer.get("values") or ""),
            "FileParameters": _pointers(files),
        },
    )

    def value_by_name(name: str) -> str:
        for parameter in [*overrides, *parameters]:
            if parameter.fields["Name"] == name:
                return str(parameter.fields["Value"])
        return ""

    def path_by_name(name: str) -> str:
        for parameter in files:
            if parameter.fields["Name"] == name:
                return str(parameter.fields["Path"])
        return ""

    methods = {
        "GetParameterValueByName": Method(("string",), "string", value_by_name),
        "GetFileParameterPathByName": Method(("string",), "string", path_by_name),
    }
    fields = {"HelmAppSpec": spec, "HelmParameterOverrides": overrides}
    return Struct("shared.CustomHelmAppSpec", fields, methods, pointer=True)


def first_source(app: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """``Spec.GetSourcePtrByIndex(0)``: the first of ``sources`` when there are any, else
    ``source`` (None when neither is there)."""
    spec = app.get("spec") or {}
    sources = spec.get("sources")
    if isinstance(sources, list) and sources:
        first = sources[0]
        return first if isinstance(first, Mapping) else {}
    source = spec.get("source")
    return source if isinstance(source, Mapping) else None


def app_detail(answer: Mapping[str, Any], source: Mapping[str, Any]) -> Struct:
    """``shared.AppDetail`` from a ``RepoAppDetailsResponse`` for the app's ``source``.

    Argo CD copies the source's ``helm.parameters`` without a check: a Helm answer for a
    source with no ``helm`` block is Go's nil dereference (:class:`ValueError`), as it is
    in Argo CD v3.2."""
    helm: Struct = nil("shared.CustomHelmAppSpec")
    if isinstance(answer.get("helm"), Mapping):
        own = source.get("helm")
        if not isinstance(own, Mapping):
            raise ValueError(NIL_DEREFERENCE)
        helm = _helm(answer["helm"], [_parameter(p) for p in own.get("parameters") or []])
    kustomize = answer.get("kustomize")
    directory = answer.get("directory")
    return Struct(
        "shared.AppDetail",
        {
            "Type": str(answer.get("type") or ""),
            "Helm": helm,
            "Kustomize": (
                Struct(
                    "apiclient.KustomizeAppSpec",
                    {"Images": _strings(kustomize.get("images"))},
                    pointer=True,
                )
                if isinstance(kustomize, Mapping)
                else nil("apiclient.KustomizeAppSpec")
            ),
            "Directory": (
                Struct("apiclient.DirectoryAppSpec", pointer=True)
                if isinstance(directory, Mapping)
                else nil("apiclient.DirectoryAppSpec")
            ),
        },
    )


def nil_method_panic(name: str, method: str) -> str:
    """Go's panic for a value method called through a nil pointer."""
    bare = name.split(".", 1)[-1]
    package = SHARED if name.startswith("shared.") else name.split(".", 1)[0]
    return f"value method {package}.{bare}.{method} called using nil *{bare} pointer"
