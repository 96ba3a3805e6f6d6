"""The kinds of task an environment's chain may hold, one module each.

Each module registers what it adds with :func:`orchestrator.compiler.chain.contributes`;
the compiler finds them by listing this package (see :mod:`orchestrator.compiler.chain`).
"""
