"""The inputs of the Go duration vectors: hand-picked edge cases and seeded random text.

``python tests/vectors/goduration/inputs.py | (cd tests/vectors/goduration && go run .)``
``> tests/vectors/goduration/vectors.jsonl`` regenerates the committed vectors with real Go.
"""

from __future__ import annotations

import json
import random

EDGES = [
    "", "0", "-0", "+0", "3", "-", "+", ".", "-.", ".s", "+.s", "s", "1d", "7d", "2d",
    "1d12h", "168h", "36h", "48h", "5s", "+5s", "-5s", "5.0s", "5.6s", "5.s", ".5s",
    "1.004s", "100.00100s", "10ns", "11us", "12\u00b5s", "12\u03bcs", "13ms", "15m", "16h",
    "3h30m", "10.5s4m", "-2m3.4s", "1h2m3s4ms5us6ns", "39h9m14.425s", "52763797000ns",
    "0.3333333333333333333h", "9007199254740993ns", "9223372036854775807ns",
    "9223372036854775808ns", "-9223372036854775808ns", "-9223372036854775809ns",
    "9223372036854775.807us", "9223372036854775.808us", "9223372036854s775ms807us",
    "-2562047h47m16.854775808s", "2562047h47m16.854775807s", "2562048h",
    "0.100000000000000000000h", "0.830103483285477580700h", "1h 30m", " 1h", "1h ",
    "1H", "1hr", "1.5h", "90", "-90", "+90", "007", "9223372036854775807",
    "9223372036854775808", "-9223372036854775808", "1e3", "0x10", "1_000", "\u0661",
    "30m1h", "1m30s250ms", "500ms", "0s", "0.0s", "00", "1h-1m",
]  # fmt: skip
ALPHABET = "0123456789.hmsun+-d \u00b5"


def inputs() -> list[str]:
    rng = random.Random(20261123)
    out = list(EDGES)
    for _ in range(1500):
        out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 10))))
    for _ in range(300):
        parts = [f"{rng.randint(0, 10 ** rng.randint(1, 20))}{rng.choice('hms')}" for _ in "..."]
        out.append("".join(parts[: rng.randint(1, 3)]))
    for _ in range(400):  # well-formed text, with fractions and every unit
        units = ["ns", "us", "\u00b5s", "ms", "s", "m", "h"]
        parts = [
            f"{rng.randint(0, 999)}{rng.choice(['', '.', '.5', '.25'])}{rng.choice(units)}"
            for _ in range(rng.randint(1, 4))
        ]
        out.append(rng.choice(["", "-", "+"]) + "".join(parts))
    return list(dict.fromkeys(out))


if __name__ == "__main__":
    for text in inputs():
        print(json.dumps(text, ensure_ascii=False))
