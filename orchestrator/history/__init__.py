"""What was promoted where, read back from the GitOps repository: each promotion commit's
trailers and the note recorded once its environment's gates had run.

Git is the record: ``promoflow history`` and ``promoflow rollback`` work from it alone,
whatever Argo Workflows has kept. The modules here are pure but for :mod:`.read`, which
walks a repository fetched by :mod:`orchestrator.adapters.githistory`.
"""
