"""The inputs of the repo function vectors: templates and conditions reading what
``repo.GetCommitMetadata`` and ``repo.GetAppDetails`` return, over a few API answers.

``python tests/vectors/repofns/inputs.py | (cd tests/vectors/repofns &&``
``GOTOOLCHAIN=go1.25.5 TZ=UTC go run .) > tests/vectors/repofns/vectors.jsonl``
regenerates the committed vectors. Each template and condition is run on every scenario
(a commit; a Helm app with and without its own parameters, and without a ``helm`` block;
a Kustomize app; a directory app; a failing call).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

COMMIT = {
    "author": "Ann <ann@example.com>",
    "date": "2024-03-04T21:30:33Z",
    "message": "bump shop\n\nSigned-off-by: Ann",
    "tags": ["v1.2.0", "prod"],
}
HELM = {
    "type": "Helm",
    "helm": {
        "name": "shop",
        "valueFiles": ["values.yaml", "values-prod.yaml"],
        "parameters": [
            {"name": "image.tag", "value": "1.2.0"},
            {"name": "replicas", "value": "2", "forceString": True},
        ],
        "fileParameters": [{"name": "config", "path": "files/config.json"}],
        "values": "image:\n  tag: 1.2.0\n",
    },
}
REPO = "https://github.com/acme/gitops.git"
OWN = {"parameters": [{"name": "image.tag", "value": "1.3.0-rc"}]}
SCENARIOS: dict[str, dict[str, Any]] = {
    "helm-own": {"details": HELM, "source": {"repoURL": REPO, "helm": OWN}},
    "helm-empty": {"details": HELM, "source": {"repoURL": REPO, "helm": {}}},
    "helm-no-block": {"details": HELM, "source": {"repoURL": REPO, "chart": "shop"}},
    "kustomize": {
        "details": {"type": "Kustomize", "kustomize": {"images": ["shop:1.2.0"]}},
        "source": {"repoURL": REPO, "kustomize": {}},
    },
    "kustomize-none": {
        "details": {"type": "Kustomize", "kustomize": {}},
        "source": {"repoURL": REPO},
    },
    "directory": {"details": {"type": "Directory", "directory": {}}, "source": {"repoURL": REPO}},
    "commit-no-tags": {
        "commit": {k: v for k, v in COMMIT.items() if k != "tags"},
        "details": {"type": "Directory", "directory": {}},
        "source": {"repoURL": REPO},
    },
    "commit-no-date": {
        "commit": {"author": "Ann", "message": "m"},
        "details": {"type": "Directory", "directory": {}},
        "source": {"repoURL": REPO},
    },
    "failing": {
        "details": {"type": "Directory"},
        "source": {"repoURL": REPO},
        "fail": "metadata of revision abc of shop: Argo CD answered 500: revision not found",
    },
}
C = "(call .repo.GetCommitMetadata .app.status.sync.revision)"
D = "(call .repo.GetAppDetails)"
TEMPLATES = [
    f"{{{{ {C}.Author }}}}",
    f"{{{{ {C}.Message }}}}",
    f'{{{{ {C}.Date.Format "2006-01-02T15:04:05Z07:00" }}}} {{{{ {C}.Date.Unix }}}}',
    f"{{{{ {C}.Date }}}}",
    f"{{{{ {C}.Tags }}}} {{{{ len {C}.Tags }}}}",
    f"{{{{ range {C}.Tags }}}}<{{{{ . }}}}>{{{{ end }}}}",
    f"{{{{ {C} }}}}",
    f"{{{{ {C}.author }}}}",
    f"{{{{ {C}.Author.Name }}}}",
    f'{{{{ with {C} }}}}{{{{ .Author }}}}: {{{{ .Message | printf "%q" }}}}{{{{ end }}}}',
    f"{{{{ {D}.Type }}}}",
    f"{{{{ {D}.Helm }}}}",
    f"{{{{ if {D}.Helm }}}}helm{{{{ else }}}}not helm{{{{ end }}}}",
    f"{{{{ {D}.Helm.HelmAppSpec.Name }}}}",
    f"{{{{ {D}.Helm.HelmAppSpec.ValueFiles }}}}",
    f"{{{{ {D}.Helm.HelmAppSpec.Values }}}}",
    f"{{{{ range {D}.Helm.HelmAppSpec.Parameters }}}}{{{{ .Name }}}}={{{{ .Value }}}}"
    f"/{{{{ .ForceString }}}};{{{{ end }}}}",
    f"{{{{ range {D}.Helm.HelmParameterOverrides }}}}{{{{ .Name }}}}={{{{ .Value }}}};"
    "{{ end }}",
    f'{{{{ {D}.Helm.GetParameterValueByName "image.tag" }}}}',
    f'{{{{ {D}.Helm.GetParameterValueByName "replicas" }}}}',
    f'[{{{{ {D}.Helm.GetParameterValueByName "missing" }}}}]',
    f'{{{{ {D}.Helm.GetFileParameterPathByName "config" }}}}',
    f'[{{{{ {D}.Helm.GetFileParameterPathByName "nope" }}}}]',
    f"{{{{ {D}.Helm.Chart }}}}",
    f"{{{{ {D}.Kustomize }}}}",
    f"{{{{ {D}.Kustomize.Images }}}}",
    f"{{{{ range {D}.Kustomize.Images }}}}{{{{ . }}}} {{{{ end }}}}",
    f"{{{{ {D}.Directory }}}}",
    f"{{{{ if {D}.Directory }}}}dir{{{{ else }}}}not dir{{{{ end }}}}",
    f"{{{{ {D}.Ksonnet }}}}",
    f'{{{{ {D}.Helm.GetParameterValueByName "image.tag" | printf "%s!" }}}}',
    f"{{{{ $d := {D} }}}}{{{{ $d.Type }}}}:{{{{ if $d.Kustomize }}}}k{{{{ end }}}}",
]
CONDITIONS = [
    "repo.GetCommitMetadata(app.status.sync.revision).Author",
    "repo.GetCommitMetadata('abc').Message contains 'bump'",
    "repo.GetCommitMetadata('abc').Date.Year()",
    "repo.GetCommitMetadata('abc').Date.Format('2006-01-02')",
    "repo.GetCommitMetadata('abc').Tags",
    "'prod' in repo.GetCommitMetadata('abc').Tags",
    "len(repo.GetCommitMetadata('abc').Tags)",
    "repo.GetCommitMetadata('abc').author",
    "repo.GetAppDetails().Type",
    "repo.GetAppDetails().Type == 'Helm'",
    "repo.GetAppDetails().Helm == nil",
    "repo.GetAppDetails().Helm != nil",
    "repo.GetAppDetails().Kustomize == nil",
    "repo.GetAppDetails().Directory != nil",
    "repo.GetAppDetails().Helm.HelmAppSpec.Name",
    "repo.GetAppDetails().Helm.GetParameterValueByName('image.tag')",
    "repo.GetAppDetails().Helm.GetParameterValueByName('replicas') == '2'",
    "repo.GetAppDetails().Helm.GetFileParameterPathByName('config')",
    "repo.GetAppDetails().Helm.HelmParameterOverrides[0].Value",
    "repo.GetAppDetails().Kustomize.Images",
    "repo.GetAppDetails().Kustomize.Images[0]",
    "repo.GetAppDetails().Helm.HelmAppSpec.Parameters[1].ForceString",
    "repo.GetAppDetails()?.Type",
]


def cases() -> Iterator[dict[str, Any]]:
    for scenario, given in SCENARIOS.items():
        base = {"commit": COMMIT, **given}
        for i, text in enumerate(TEMPLATES):
            yield {"name": f"{scenario}/t{i}", "lang": "template", "text": text, **base}
        for i, text in enumerate(CONDITIONS):
            yield {"name": f"{scenario}/c{i}", "lang": "expr", "text": text, **base}


if __name__ == "__main__":
    for case in cases():
        sys.stdout.write(json.dumps(case) + "\n")
