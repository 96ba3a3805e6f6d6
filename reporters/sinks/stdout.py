"""``--sink stdout``: one CloudEvent per line, for a first look and for log pipelines."""

from __future__ import annotations

import json
import sys
import threading
from typing import Any, TextIO


class StdoutSink:
    def __init__(self, stream: TextIO | None = None, *, name: str = "stdout") -> None:
        self.name = name
        self.stream = stream or sys.stdout
        self._lock = threading.Lock()

    def send(self, event: dict[str, Any]) -> None:
        with self._lock:
            self.stream.write(json.dumps(event, separators=(",", ":"), sort_keys=True) + "\n")
            self.stream.flush()
