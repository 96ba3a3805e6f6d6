"""README: the gate "follows Argo CD's application event stream, so it returns the moment
the app is Healthy; ... without a stream it polls with backoff". Measured on the real Argo CD
(tests/e2e/latency.py): the delay from Argo CD reporting the app deployed to the gate
returning, following the stream and polling with the default interval. No absolute time
is asserted (bench/e2e_wait_latency.py measures and reports it)."""

from __future__ import annotations

import statistics
from collections.abc import Callable

import pytest

from tests.e2e.conftest import DeployedApp
from tests.e2e.latency import measure
from tests.e2e.settings import E2ESettings

pytestmark = pytest.mark.e2e


def test_the_stream_returns_before_polling_would(
    e2e: E2ESettings, deployed: Callable[..., DeployedApp]
) -> None:
    app = deployed(with_deployment=False)

    rounds = measure(e2e, app.name, app.path, app.repo, rounds=3)

    stream = [r.latency for r in rounds if r.mode == "stream"]
    polling = [r.latency for r in rounds if r.mode == "polling"]
    print(
        f"\nwait latency on Argo CD: stream median {statistics.median(stream):.3f}s "
        f"{[round(x, 3) for x in stream]}; polling median {statistics.median(polling):.3f}s "
        f"{[round(x, 3) for x in polling]}"
    )
    # figures and targets are bench/e2e_wait_latency.py's; here only the behaviour: the
    # stream delivers the change, polling waits for its next read (5 s interval)
    assert statistics.median(polling) > statistics.median(stream), (stream, polling)
