"""Regenerate the YAML next to each module: `python -m workflow_templates`."""

from workflow_templates import rendered

for path, text in rendered().items():
    path.write_text(text)
    print(f"wrote {path.name}")
