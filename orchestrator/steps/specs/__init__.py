"""One module per step kind, each registering its ``StepSpec`` when imported.

``orchestrator.steps.registry`` imports every module here on first lookup, so a new step
is one new module. Modules import only the registry at the top: their programs import what
they run inside ``run``, which keeps a step pod's start-up to its own code path.
"""
