"""Bad templates get Go's message, the line and byte column, and a hint; secrets stay out.

The messages are Go's (the conformance vectors prove the wording for thousands of cases);
these tests pin what the vectors cannot: the structured position and hint a configuration
loader shows, and that a secret read by a template never appears in an error.
"""

from __future__ import annotations

import pytest

from reporters.gotemplate import TemplateExecError, TemplateSyntaxError, parse


def syntax_error(text: str, name: str = "app-deployed") -> TemplateSyntaxError:
    with pytest.raises(TemplateSyntaxError) as info:
        parse(text, name=name)
    return info.value


def test_an_unknown_function_names_the_template_and_line() -> None:
    error = syntax_error("Application\n{{ .app.metadata.name }}\n{{ foo .x }}")
    assert str(error) == 'template: app-deployed:3: function "foo" not defined'
    assert (error.line, error.column) == (3, 4)
    assert "sprig" in error.hint
    assert error.describe().startswith(str(error) + " (hint: ")


def test_the_column_counts_bytes_as_go_does() -> None:
    error = syntax_error("é{{ nope }}")
    assert error.line == 1
    assert error.column == 6  # "é" is two bytes, "{{ " three more: byte 5, 1-based 6


def test_an_unclosed_action_says_where_it_started() -> None:
    error = syntax_error("a\n{{ if .x }}\nb\n{{ .y ")
    assert str(error) == "template: app-deployed:4: unclosed action"
    assert "{{" in error.hint


def test_a_missing_end_is_unexpected_eof_with_a_hint() -> None:
    error = syntax_error("{{ range .items }}x")
    assert str(error) == "template: app-deployed:1: unexpected EOF"
    assert "{{end}}" in error.hint


def test_an_undeclared_variable_is_refused_at_parse_time() -> None:
    error = syntax_error("{{ if true }}{{ $x := 1 }}{{ end }}{{ $x }}")
    assert str(error) == 'template: app-deployed:1: undefined variable "$x"'
    assert "declare" in error.hint


def test_env_and_expandenv_are_not_defined() -> None:
    assert 'function "env" not defined' in str(syntax_error('{{ env "HOME" }}'))
    assert 'function "expandenv" not defined' in str(syntax_error('{{ expandenv "$HOME" }}'))


def test_nesting_beyond_the_stack_is_a_syntax_error_not_a_crash() -> None:
    error = syntax_error("{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}")
    assert "nested too deeply" in str(error) or "max expression depth" in str(error)


def exec_error(text: str, data: object, name: str = "t") -> TemplateExecError:
    with pytest.raises(TemplateExecError) as info:
        parse(text, name=name).execute(data)
    return info.value


def test_an_execution_error_names_the_node_and_its_position() -> None:
    """Go places a multi-part field at its second part (``.spec``, byte 9 of line 2)."""
    error = exec_error("line one\n  {{ .app.spec.x.y }}", {"app": {"spec": {"x": None}}})
    assert str(error) == (
        'template: t:2:9: executing "t" at <.app.spec.x.y>: nil pointer evaluating interface {}.y'
    )
    assert (error.line, error.column) == (2, 10)
    assert "{{ with" in error.hint


def test_an_error_inside_a_defined_template_names_both() -> None:
    error = exec_error(
        '{{ define "row" }}\n{{ index . 5 }}{{ end }}{{ template "row" .l }}',
        {"l": [1]},
        name="outer",
    )
    assert str(error).startswith('template: outer:2:3: executing "row" at <index . 5>:')


def test_wrong_argument_types_are_refused_as_go_refuses_them() -> None:
    error = exec_error('{{ repeat .n "x" }}', {"n": 3})
    assert str(error).endswith("wrong type for value; expected int; got int64")
    assert "convert with int" in error.hint


@pytest.mark.parametrize(
    "text",
    [
        "{{ range .secrets.token }}{{ end }}{{ fail (toString .secrets.token) }}",
        '{{ printf "%d" (toString .secrets.token) | fail }}',
        "{{ .secrets.token | fail }}",
    ],
)
def test_secret_values_never_appear_in_an_error(text: str) -> None:
    with pytest.raises(TemplateExecError) as info:
        parse(text, name="t").execute({"secrets": {"token": b"hunter22"}})
    message = str(info.value)
    assert "hunter22" not in message
    assert "104 117 110" not in message  # the secret's bytes as Go prints a []byte
    assert "<redacted>" in message or "[]uint8" in message
