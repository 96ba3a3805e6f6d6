"""``promoflow demo``: a whole promotion on a laptop, with local stand-ins for the cluster.

``seed.py`` writes the demo's GitOps repository, ``local.py`` runs the promotion with the
local engine, and ``webhook.py`` starts it from a signed Git push through ``promoflow
serve --local`` (``demo --webhook``). The demos sit above the service and the local
engine they drive, and nothing but the CLI imports them.
"""
