"""``promoflow demo --webhook``: a signed push starts the promotion, a redelivery does not."""

from __future__ import annotations

import re
from pathlib import Path

from tests.unit.invoke import invoke

EXAMPLE = Path(__file__).resolve().parents[2] / "environments"


def test_a_signed_push_promotes_through_every_environment_exactly_once(tmp_path: Path) -> None:
    keep = str(tmp_path)
    result = invoke("demo", "-c", str(EXAMPLE), "--webhook", "--soak", "0.2", "--keep", keep)
    assert result.code == 0, result.output
    out = result.stdout
    assert re.search(r"-> 202 promoting: shop-1-5-0-[0-9a-f]{8} \(submitted\)", out)
    assert "POST the same delivery again -> 202 already submitted" in out
    [record] = list((tmp_path / ".promoflow" / "runs").glob("shop-1-5-0-*.json"))
    assert '"phase": "Succeeded"' in record.read_text()
    # the CI's commit is the promotion into dev: nothing is committed there twice
    log = out[out.index("git log of the promotion commits") :]
    assert log.count("envs/dev/shop/values.yaml") == 1
    assert "Promote shop 1.5.0 to staging" in log
