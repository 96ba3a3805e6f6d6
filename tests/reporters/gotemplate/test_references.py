"""Template.references(): what a template reads and calls, found without running it."""

from __future__ import annotations

from reporters.gotemplate import Reference, parse


def refs(text: str) -> list[tuple[str, str, int, int]]:
    return [(r.kind, r.path, r.line, r.column) for r in parse(text, name="t").references()]


def fields(text: str) -> list[str]:
    return [r.path for r in parse(text, name="t").references() if r.kind == "field"]


def test_fields_and_functions_with_their_positions() -> None:
    assert refs("Hi {{ .app.metadata.name }}\n{{ upper .context.argocdUrl }}") == [
        ("field", ".app.metadata.name", 1, 7),
        ("function", "upper", 2, 4),
        ("field", ".context.argocdUrl", 2, 10),
    ]


def test_dollar_and_variables_resolve_to_paths_from_the_root() -> None:
    text = "{{ $s := .app.spec }}{{ $s.source.repoURL }}{{ $.app.metadata.name }}"
    assert fields(text) == [".app.spec", ".app.spec.source.repoURL", ".app.metadata.name"]


def test_with_moves_dot_and_range_makes_it_an_element() -> None:
    text = (
        "{{ with .app.status.operationState }}{{ .phase }}{{ end }}"
        "{{ range $i, $c := .app.status.conditions }}{{ $c.type }}{{ .message }}{{ end }}"
        "{{ range .app.spec.sources }}{{ .repoURL }}{{ else }}{{ .app.spec.source }}{{ end }}"
    )
    assert fields(text) == [
        ".app.status.operationState",
        ".app.status.operationState.phase",
        ".app.status.conditions",
        ".app.status.conditions[].type",
        ".app.status.conditions[].message",
        ".app.spec.sources",
        ".app.spec.sources[].repoURL",
        ".app.spec.source",
    ]


def test_a_defined_template_sees_the_dot_it_was_given() -> None:
    text = '{{ define "row" }}{{ .name }}{{ end }}{{ template "row" .app.metadata }}'
    assert ".app.metadata.name" in fields(text)


def test_fields_of_function_results_are_not_guessed() -> None:
    text = "{{ (index .app.status.history 0).revision }}{{ (call .repo.GetAppDetails).Type }}"
    found = refs(text)
    assert ("function", "index", 1, 5) in found
    assert [p for k, p, _, _ in found if k == "field"] == [
        ".app.status.history",
        ".repo.GetAppDetails",
    ]


def test_every_catalog_style_template_lists_its_paths() -> None:
    text = (
        '{{if eq .serviceType "slack"}}:ok:{{end}} {{.app.metadata.name}} '
        "{{- range $index, $source := .app.spec.sources }}{{ $source.repoURL }}{{- end }}"
    )
    found = list(parse(text, name="t").references())
    assert all(isinstance(r, Reference) for r in found)
    assert {r.path for r in found} == {
        "eq",
        ".serviceType",
        ".app.metadata.name",
        ".app.spec.sources",
        ".app.spec.sources[].repoURL",
    }
