"""Whether a product may be promoted into an environment at an instant, and until when.

Pure logic over PromotionWindows and manual freezes: the clock is always an argument
(``now``), never read here, so the workflow node that waits at a window, the ``freeze``
commands and ``validate`` all ask the same question the same way. See
:func:`orchestrator.windows.state.window_state`.
"""
