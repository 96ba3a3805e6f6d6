"""What ``promoflow validate`` shows about windows: each product's environments, open or not.

One line per (product, environment) the product's flow reaches and some window or freeze
applies to: ``shop/prod: frozen until Mon 08:00 Europe/Berlin (weekend)`` or
``shop/prod: open now, closes at Fri 16:00 Europe/Berlin (weekend)``, so whoever adds a
window sees at once what it does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from orchestrator.loading.config import Config
from orchestrator.windows.freeze import Freeze
from orchestrator.windows.message import outlook_line
from orchestrator.windows.state import HORIZON, WindowState, window_state


@dataclass(frozen=True)
class Outlook:
    product: str
    environment: str
    state: WindowState

    def line(self) -> str:
        return f"{self.product}/{self.environment}: {outlook_line(self.state)}"


def outlook(
    config: Config,
    now: datetime,
    freezes: Iterable[Freeze] = (),
    horizon: timedelta = HORIZON,
) -> list[Outlook]:
    """The state of every (product, environment) some window or freeze applies to, in the
    order of the products and of their flows' environments."""
    held = list(freezes)
    environments, flows = config.environments, config.flows
    out = []
    for product in config.products.values():
        flow = flows.get(product.spec.flow)
        for name in flow.environments if flow is not None else []:
            environment = environments.get(name)
            if environment is None:
                continue  # an unknown environment is validation's to report
            state = window_state(config.windows, product.name, environment, now, held, horizon)
            if state.windows or not state.open:
                out.append(Outlook(product.name, name, state))
    return out
