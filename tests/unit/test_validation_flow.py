"""Validation of PromotionFlows: trigger, dependsOn, cycles, reachability."""

from __future__ import annotations

from tests.unit.conftest import Workspace


def _flow(ws: Workspace, steps: str, trigger: str = "dev") -> None:
    """Write flow.yaml; its steps start on line 7."""
    ws.write(
        "flow.yaml",
        f"""\
apiVersion: promoflow.dev/v1alpha1
kind: PromotionFlow
metadata: {{name: standard}}
spec:
  trigger: {trigger}
  steps:
{steps}""",
    )


def test_the_base_configuration_is_valid(ws: Workspace) -> None:
    ws.write_base()
    config = ws.config()
    assert list(config.flows) == ["standard"]
    assert config.flows["standard"].environments == ["dev", "staging", "prod"]


def test_cycle_is_named_and_placed_at_the_first_step_of_the_cycle(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(
        ws,
        "    - {environment: staging, dependsOn: [dev, prod]}\n"
        "    - {environment: prod, dependsOn: [staging]}\n",
    )
    assert ws.problems() == ["flow.yaml:7:30: error: dependsOn cycle: staging -> prod -> staging"]


def test_longer_cycle_is_reported_once_in_declaration_order(ws: Workspace) -> None:
    ws.write_base(flow=False)
    ws.write(
        "more.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: qa}
        """,
    )
    _flow(
        ws,
        "    - environment: staging\n"
        "      dependsOn: [dev, qa]\n"
        "    - environment: prod\n"
        "      dependsOn: [staging]\n"
        "    - environment: qa\n"
        "      dependsOn: [prod]\n",
    )
    assert ws.problems() == [
        "flow.yaml:8:7: error: dependsOn cycle: staging -> prod -> qa -> staging"
    ]


def test_self_dependency_is_a_cycle(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(
        ws,
        "    - {environment: staging, dependsOn: [dev, staging]}\n"
        "    - {environment: prod, dependsOn: [staging]}\n",
    )
    assert ws.problems() == ["flow.yaml:7:30: error: dependsOn cycle: staging -> staging"]


def test_trigger_that_no_step_depends_on(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(
        ws,
        "    - {environment: staging, dependsOn: [prod]}\n    - {environment: prod}\n",
    )
    assert ws.problems() == [
        "flow.yaml:5:3: error: trigger 'dev' is not in the flow: no step has it in dependsOn",
        "flow.yaml:7:8: error: environment 'staging' is not reachable from trigger 'dev': "
        "give it a dependsOn on an environment of the flow",
        "flow.yaml:8:8: error: environment 'prod' is not reachable from trigger 'dev': "
        "give it a dependsOn on an environment of the flow",
    ]


def test_unknown_trigger_suggests_a_name(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(
        ws,
        "    - {environment: staging, dependsOn: [deve]}\n"
        "    - {environment: prod, dependsOn: [staging]}\n",
        trigger="deve",
    )
    assert ws.problems() == [
        "flow.yaml:5:3: error: unknown environment 'deve' (did you mean 'dev'?)"
    ]


def test_unknown_step_environment(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(
        ws,
        "    - {environment: staging, dependsOn: [dev]}\n"
        "    - {environment: prd, dependsOn: [staging]}\n",
    )
    assert ws.problems() == [
        "flow.yaml:8:8: error: unknown environment 'prd' (did you mean 'prod'?)"
    ]


def test_environment_unreachable_from_the_trigger(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(ws, "    - {environment: staging, dependsOn: [dev]}\n    - {environment: prod}\n")
    assert ws.problems() == [
        "flow.yaml:8:8: error: environment 'prod' is not reachable from trigger 'dev': "
        "give it a dependsOn on an environment of the flow"
    ]


def test_depends_on_a_known_environment_outside_the_flow(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(ws, "    - {environment: staging, dependsOn: [dev, prod]}\n")
    assert ws.problems() == [
        "flow.yaml:7:47: error: dependsOn 'prod' is not an environment of flow 'standard' "
        "(a known environment, but not in this flow)"
    ]


def test_depends_on_typo_is_one_error_not_a_cascade(ws: Workspace) -> None:
    # prod (and anything after it) is unreachable only because of the typo: one error.
    ws.write_base(flow=False)
    ws.write(
        "more.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata: {name: qa}
        """,
    )
    _flow(
        ws,
        "    - {environment: staging, dependsOn: [dev]}\n"
        "    - {environment: prod, dependsOn: [stagin]}\n"
        "    - {environment: qa, dependsOn: [prod]}\n",
    )
    assert ws.problems() == [
        "flow.yaml:8:39: error: dependsOn 'stagin' is not an environment of flow 'standard' "
        "(did you mean 'staging'?)"
    ]


def test_environment_listed_twice_in_a_flow(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(
        ws,
        "    - {environment: staging, dependsOn: [dev]}\n"
        "    - {environment: prod, dependsOn: [staging]}\n"
        "    - {environment: staging, dependsOn: [dev]}\n",
    )
    assert ws.problems() == [
        "flow.yaml:9:8: error: environment 'staging' appears twice in flow 'standard' "
        "(also step 1); list each environment once"
    ]


def test_trigger_cannot_depend_on_anything(ws: Workspace) -> None:
    ws.write_base(flow=False)
    _flow(
        ws,
        "    - {environment: dev, dependsOn: [prod]}\n"
        "    - {environment: staging, dependsOn: [dev]}\n"
        "    - {environment: prod, dependsOn: [staging]}\n",
    )
    assert ws.problems() == [
        "flow.yaml:7:26: error: dependsOn cycle: dev -> staging -> prod -> dev",
        "flow.yaml:7:26: error: the trigger 'dev' cannot depend on other environments",
    ]


def test_a_flow_of_only_the_trigger_is_valid(ws: Workspace) -> None:
    ws.write_base(flow=False, product=False)
    ws.write(
        "flow.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata: {name: standard}
        spec: {trigger: dev}
        """,
    )
    assert ws.problems() == []


def test_duplicate_names_of_one_kind(ws: Workspace) -> None:
    ws.write_base()
    ws.write(
        "again.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: Environment
        metadata:
          name: staging
        ---
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionFlow
        metadata:
          name: standard
        spec: {trigger: dev}
        """,
    )
    # Files load in name order, so the definitions in again.yaml come first.
    assert ws.problems() == [
        "environments.yaml:7:12: error: duplicate Environment 'staging' "
        "(first defined at again.yaml:4:3)",
        "flow.yaml:3:12: error: duplicate PromotionFlow 'standard' "
        "(first defined at again.yaml:9:3)",
    ]


def test_same_name_in_different_kinds_is_not_a_duplicate(ws: Workspace) -> None:
    ws.write_base()
    ws.write(
        "named.yaml",
        """
        apiVersion: promoflow.dev/v1alpha1
        kind: PromotionTemplate
        metadata: {name: staging}
        spec:
          files: [{file: values.yaml}]
        """,
    )
    assert ws.problems() == []
