"""Commit the promoted files (or open a pull request) and output the commit.

Inputs name the product, the source and target environment, the repository, branch and
paths, and the files to promote (JSON). Pushes to one repository branch are serialised by
an Argo mutex named after it, on top of the step's own fetch-rebase-push retry.

Generated YAML: promote.yaml (regenerate with `python -m workflow_templates`).
"""

from orchestrator.compiler.library import promote
from workflow_templates.defaults import SETTINGS

template = promote(SETTINGS)

if __name__ == "__main__":
    print(template.to_yaml())
