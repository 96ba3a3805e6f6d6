"""Go's standard-library semantics, written once for every part of promoflow that mirrors Go.

Argo CD evaluates trigger conditions with expr-lang/expr and renders templates with Go's
text/template and sprig; Argo Workflows prints values with ``fmt``. The Python mirrors of
those (``reporters.expr``, ``reporters.gotemplate``, ``orchestrator.engine``) meet the same
Go semantics underneath: ``time.Time`` and ``time.Duration``, time layouts, ``fmt``'s float
text, ``strconv`` quoting, RE2 patterns and Argo CD's repository URL helpers. Each lives
here in one module, proved by the vectors of every package that uses it. Pure functions on
the standard library only: the lowest layer, importing nothing of promoflow.
"""
