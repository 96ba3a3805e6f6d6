"""Smoke test or status page check, with retries and an optional JSONPath comparison.

Generated YAML: http-check.yaml (regenerate with `python -m workflow_templates`).
"""

from orchestrator.compiler.library import http_check
from workflow_templates.defaults import SETTINGS

template = http_check(SETTINGS)

if __name__ == "__main__":
    print(template.to_yaml())
