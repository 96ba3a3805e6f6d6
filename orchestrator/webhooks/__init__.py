"""Promotions that start themselves: webhook deliveries from Git hosts, CI and registries.

``providers/`` holds one module per sender (verify + parse, pure), ``triggers`` maps a parsed
event to promotion requests through the products' ``spec.triggers`` (pure, with git reads
injected), ``submit`` names and submits the runs exactly once, and ``app`` is the thin ASGI
app ``promoflow serve`` runs.
"""
