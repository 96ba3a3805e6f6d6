"""Benchmark: promoflow installed with its Helm chart on the e2e cluster, then a promotion
started by a webhook delivery through it (tests/e2e/test_chart_install.py).

Measured in one run: ``helm install`` to every promoflow pod Ready (the configuration
Job done), and a signed GitHub push to the installed webhook service until staging's
commit is pushed and staging's Argo CD app is Healthy; against that time, what
promoflow's own processes took (the webhook service's reply, the promote step's
container), as a share. Target: promoflow's share under 25% (the rest is Argo's
scheduling and Argo CD's syncs, which promoflow waits for). Without a configured cluster
it says so and measures nothing (exit 0): ``make bench`` runs on machines without one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

from rich.console import Console

from bench._report import Row, below, finish

console = Console(highlight=False)
TEST = "test_helm_install_then_a_webhook_push_promotes_to_prod_with_an_approval"
INSTALL = re.compile(r"helm install -> every promoflow pod Ready: ([\d.]+)s")
DELIVERY = re.compile(
    r"staging commit pushed: ([\d.]+)s, staging Healthy: ([\d.]+)s; in promoflow's "
    r"processes: ([\d.]+)s"
)


def main() -> None:
    from tests.e2e.settings import NotConfigured, load

    try:
        load()
    except NotConfigured as exc:
        console.print(f"chart_install: not measured, no cluster configured ({exc})")
        return
    test = "tests/e2e/test_chart_install.py::" + TEST
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-s", "-p", "no:cacheprovider", test],
        env={**os.environ, "PROMOFLOW_E2E": "1"}, capture_output=True, text=True, check=False,
    )  # fmt: skip
    install, delivery = INSTALL.search(run.stdout), DELIVERY.search(run.stdout)
    if run.returncode != 0 or install is None or delivery is None:
        console.print(run.stdout[-3000:] + run.stderr[-2000:])
        console.print("chart_install: the promotion through the chart failed")
        sys.exit(1)
    ready = float(install[1])
    commit, healthy, ours = (float(g) for g in delivery.groups())
    console.print(f"  helm install -> every promoflow pod Ready   {ready:6.1f} s")
    console.print(f"  webhook delivery -> staging commit pushed   {commit:6.1f} s")
    console.print(f"  webhook delivery -> staging app Healthy     {healthy:6.1f} s")
    console.print(f"  of which promoflow's own processes          {ours:6.1f} s")
    finish(
        "chart install",
        [
            Row("install -> Ready", ready, f"{ready:.1f} s"),
            Row("delivery -> staging Healthy", healthy, f"{healthy:.1f} s"),
            Row(
                "promoflow's share to the commit",
                ours / commit,
                f"{ours:.1f} of {commit:.1f} s",
                "< 0.25",
                below(0.25),
            ),
        ],
        console,
    )


if __name__ == "__main__":
    main()
