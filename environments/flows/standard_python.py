"""The `standard` flow written in Python: the same graph as flows/standard.yaml.

promoflow loads every Python module under the configuration directory that imports
`orchestrator`; each resource left at module level is part of the configuration.
"""

from orchestrator.dsl import env, flow

dev, staging, eu, us = env("dev"), env("staging"), env("prod-eu"), env("prod-us")

standard_python = flow(
    "standard-python",
    dev >> staging >> [eu, us.with_policy(action="pull-request")],
    description="Every release goes through staging, then both regions at once.",
)
