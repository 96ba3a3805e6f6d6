"""The Dockerfile and the build without Docker share their facts: the local cluster's
image is built from what the Dockerfile says, and the reader refuses what it does not
know instead of building something else."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.e2e.cluster.dockerfile import DOCKERFILE, DockerfileError, read

CHART_VALUES = Path(__file__).resolve().parents[2] / "charts" / "promoflow" / "values.yaml"


def test_the_image_runs_promoflow_as_the_non_root_user_the_chart_expects() -> None:
    facts = read()
    assert facts.suite == "bookworm" and "python3-venv" in facts.packages
    assert facts.entrypoint == ["/opt/promoflow/bin/promoflow"]
    uid = facts.useradd[facts.useradd.index("--uid") + 1]
    assert facts.user == f"{uid}:{uid}"
    pod = yaml.safe_load(CHART_VALUES.read_text())["podSecurityContext"]
    assert (str(pod["runAsUser"]), str(pod["runAsGroup"])) == (uid, uid)
    assert facts.env["PATH"].startswith("/opt/promoflow/bin:")
    assert facts.workdir == facts.env["HOME"] == "/tmp"  # the one writable path (an emptyDir)
    config = facts.config()
    assert config["User"] == "10001:10001" and "HOME=/tmp" in config["Env"]  # type: ignore[operator]


def test_an_instruction_the_reader_does_not_know_is_refused_with_its_line(tmp_path: Path) -> None:
    broken = tmp_path / "Dockerfile"
    broken.write_text(DOCKERFILE.read_text() + "HEALTHCHECK CMD promoflow --version\n")
    with pytest.raises(DockerfileError) as refused:
        read(broken)
    lines = len(DOCKERFILE.read_text().splitlines()) + 1
    assert str(refused.value) == (
        f"Dockerfile:{lines}: HEALTHCHECK is not read by the build without Docker"
    )
    other = tmp_path / "Other"
    other.write_text('FROM python:3.11-slim\nENTRYPOINT ["x"]\n')
    with pytest.raises(DockerfileError, match="expected debian:<suite>-slim"):
        read(other)


def test_continued_lines_and_arguments_are_read_as_docker_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "Dockerfile"
    path.write_text(
        "ARG SUITE=trixie\n"
        "FROM debian:${SUITE}-slim\n"
        "# a comment\n"
        "RUN apt-get update \\\n"
        " && apt-get install -y --no-install-recommends python3 \\\n"
        "      git\n"
        "ENV A=1 \\\n    B=two\n"
        'ENTRYPOINT ["/bin/x", "y"]\n'
    )
    facts = read(path)
    assert (facts.suite, facts.packages) == ("trixie", ["python3", "git"])
    assert facts.env == {"A": "1", "B": "two"} and facts.entrypoint == ["/bin/x", "y"]
