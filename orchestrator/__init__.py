"""promoflow: promotion orchestrator for GitOps teams on Argo CD and Argo Workflows.

The ``orchestrator`` package holds the library, the CLI and the step programs; the
in-cluster reporter service lives in the sibling ``reporters`` package.
"""

__version__ = "0.1.0"
