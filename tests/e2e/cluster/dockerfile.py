"""The repository's Dockerfile, read for what an image built without Docker must share
with it: the Debian suite, the packages, the user, the environment, the working directory
and the entrypoint.

No Docker engine runs here, so the local cluster builds the promoflow image with
mmdebstrap and a chroot (:mod:`.images`); it takes every fact from the Dockerfile through
this reader, so the two builds cannot drift apart. The reader knows the few instructions
the Dockerfile uses and refuses any other, naming the line: a new instruction must be
taught here before either build uses it.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

DOCKERFILE = Path(__file__).resolve().parents[3] / "Dockerfile"
KNOWN = ("ARG", "FROM", "RUN", "COPY", "ENV", "USER", "WORKDIR", "ENTRYPOINT")


class DockerfileError(ValueError):
    pass


@dataclass
class Facts:
    suite: str = ""
    packages: list[str] = field(default_factory=list)
    useradd: list[str] = field(default_factory=list)
    """The ``useradd`` command, as the Dockerfile runs it."""
    env: dict[str, str] = field(default_factory=dict)
    user: str = ""
    workdir: str = "/"
    entrypoint: list[str] = field(default_factory=list)

    def config(self) -> dict[str, object]:
        """The OCI image config these facts make (``config`` of the image JSON)."""
        return {
            "User": self.user,
            "Env": [f"{k}={v}" for k, v in self.env.items()],
            "WorkingDir": self.workdir,
            "Entrypoint": self.entrypoint,
        }


def _instructions(text: str) -> list[tuple[int, str, str]]:
    """(line, instruction, arguments), continuation lines joined, comments dropped."""
    out: list[tuple[int, str, str]] = []
    pending, start = "", 0
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if not pending:
            start = number
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        whole = (pending + line).strip()
        pending = ""
        word, _, rest = whole.partition(" ")
        out.append((start, word.upper(), rest.strip()))
    return out


def _env(arguments: str) -> dict[str, str]:
    out = {}
    for item in shlex.split(arguments):
        key, sep, value = item.partition("=")
        if not sep:
            raise DockerfileError(f"ENV {arguments!r}: write KEY=VALUE")
        out[key] = value
    return out


def read(path: Path = DOCKERFILE) -> Facts:
    facts = Facts()
    args: dict[str, str] = {}
    for line, word, rest in _instructions(path.read_text()):
        where = f"{path.name}:{line}"
        if word not in KNOWN:
            raise DockerfileError(f"{where}: {word} is not read by the build without Docker")
        if word == "ARG":
            name, _, default = rest.partition("=")
            args[name] = default
        elif word == "FROM":
            image = re.sub(r"\$\{(\w+)\}", lambda m: args.get(m[1], ""), rest.split()[0])
            match = re.fullmatch(r"debian:(\w+)-slim", image)
            if not match:
                raise DockerfileError(f"{where}: FROM {image}: expected debian:<suite>-slim")
            facts.suite = match[1]
        elif word == "RUN":
            for command in (c.strip() for c in rest.split("&&")):
                words = shlex.split(command)
                if words[:2] == ["apt-get", "install"]:
                    facts.packages += [w for w in words[2:] if not w.startswith("-")]
                elif words[:1] == ["useradd"]:
                    facts.useradd = words
        elif word == "ENV":
            facts.env.update(_env(rest))
        elif word == "USER":
            facts.user = rest
        elif word == "WORKDIR":
            facts.workdir = rest
        elif word == "ENTRYPOINT":
            facts.entrypoint = json.loads(rest)
    if not (facts.suite and facts.packages and facts.entrypoint):
        raise DockerfileError(f"{path.name}: no FROM, apt-get install or ENTRYPOINT found")
    return facts
