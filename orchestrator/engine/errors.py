"""The one error the local engine raises for a workflow it will not run.

Raised before anything executes (unsupported Argo features, unknown ``{{...}}`` references,
templates that cannot be found), so a refused run never leaves half a promotion behind.
Failures of steps while running are not errors: they are node phases in the run record.
"""

from __future__ import annotations


class EngineError(Exception):
    """The workflow cannot be run locally as written; the message says where and why."""
