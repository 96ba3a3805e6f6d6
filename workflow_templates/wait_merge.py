"""Wait for a promotion pull request to be merged; output the merge commit.

Generated YAML: wait-merge.yaml (regenerate with `python -m workflow_templates`).
"""

from orchestrator.compiler.library import wait_merge
from workflow_templates.defaults import SETTINGS

template = wait_merge(SETTINGS)

if __name__ == "__main__":
    print(template.to_yaml())
