"""promoflow's Argo Workflows executor plugin: every step of a run served by one process.

A step compiled for ``execution: plugin`` is a plugin template (``plugin: {promoflow: ...}``)
instead of a container. Argo's agent pod, one per running Workflow, calls this server (a
sidecar of that pod) with each such template, and it runs the step in a child forked from
itself: no pod, no init and wait containers and no interpreter start per step, while every
step stays a node of the Workflow with its phase, message, outputs and retries
(docs/architecture.md, "Where a promotion's time goes").

- :mod:`.protocol`: the plugin API's request and reply shapes (pure);
- :mod:`.jobs`: which step runs for which node, and what the agent is told (pure but for
  the clock and the launcher it is given);
- :mod:`.child`: a step run in a forked child, with its deadline and its outputs;
- :mod:`.app`: the ASGI app the agent calls.
"""
