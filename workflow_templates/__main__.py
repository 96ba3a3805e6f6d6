"""Regenerate the YAML of every step: `python -m workflow_templates`; print one step's:
`python -m workflow_templates STEP`."""

import sys

from workflow_templates import render, rendered

if len(sys.argv) > 1:
    for name in sys.argv[1:]:
        print(render(name), end="")
else:
    for path, text in rendered().items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        print(f"wrote {path}")
