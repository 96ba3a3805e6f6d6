"""Jinja2 sandboxes with limits, for every template and expression a user writes.

Jinja's sandbox keeps a template from reaching Python internals, but not from changing
the data it is given (``{{ context.update(...) }}`` in one notification changed the link
in every later one) nor from running forever: ``9**(9**10)`` is one multiplication too
long to ever finish, and nested loops over ``range(99999)`` never yield. Promoflow renders
notification templates and conditions on the reporter's single pipeline thread, and commit
messages in the promote step, so each render here is bounded:

- the data is read-only (:func:`~.frozen.freeze`) and the environment refuses the methods
  that change lists, dicts and sets (Jinja's :class:`ImmutableSandboxedEnvironment`);
- every operator, method and filter that can make a value much larger than its operands
  (``**``, ``*``, ``%``, ``~``, ``center``, ``join``, ``replace``, ``format`` ...) is
  checked *before* it runs, since a single C-level call cannot be interrupted: no value
  may exceed :attr:`~.limits.Limits.max_length` characters or items, no integer
  :attr:`~.limits.Limits.max_int_bits` bits;
- every loop iteration, call, filter and operator is a step, each bounded in
  size by the above; a render's steps are counted and the clock read at each, up to
  :attr:`~.limits.Limits.max_steps` and :attr:`~.limits.Limits.max_seconds`;
- the output is built chunk by chunk and refused beyond
  :attr:`~.limits.Limits.max_length`.

What breaks a limit raises :class:`~.limits.LimitError` (a Jinja ``SecurityError``)
naming the limit; callers name the template. The limits are in this one package so that
every template language promoflow accepts shares them, one module per part:

- :mod:`.limits`: :class:`~.limits.Limits` checks sizes, :func:`~.limits.budget` and
  :func:`~.limits.step` count and time a render, whatever engine renders;
- :mod:`.frozen`: :func:`~.frozen.freeze` makes a render's data read-only;
- :mod:`.estimates`: how long the result of an operator, method or filter would be,
  told before it runs;
- :mod:`.environment`: :class:`~.environment.BoundedEnvironment`, Jinja's sandbox with
  all of the above.
"""
