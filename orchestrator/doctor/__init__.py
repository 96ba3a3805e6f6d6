"""``promoflow doctor``: whether an installation has what promotions need, and what to
change where it does not.

Checks are pure functions of the settings, the configuration and what the servers answered
(:class:`~orchestrator.doctor.context.Probes`): each family of checks is a module of
:mod:`orchestrator.doctor.checks`, found by name (:mod:`orchestrator.discovery`), so adding
one is adding a module. The command (:mod:`orchestrator.commands.doctor`) gathers the
answers through the adapters and draws the lines.
"""
