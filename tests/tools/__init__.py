"""Real command-line tools the tests run (``helm``, ``kubectl``), fetched into a cache outside
the checkout by ``tests.tools.binaries`` (``make tools``; ``make test`` does it first)."""
