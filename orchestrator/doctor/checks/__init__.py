"""One module per family of checks (see :mod:`orchestrator.doctor.families`)."""
