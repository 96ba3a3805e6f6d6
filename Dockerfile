# The promoflow image: the webhook service, the reporters and every workflow step.
#
#   docker build -t ghcr.io/promoflow/promoflow:0.1.0 .
#
# Where no Docker engine runs, the local cluster builds the same image from this file
# (tests/e2e/cluster/dockerfile.py reads its suite, packages, user, environment, working
# directory and entrypoint; mmdebstrap makes the root filesystem): keep it to the
# instructions that reader knows (ARG, FROM, RUN, COPY, ENV, USER, WORKDIR, ENTRYPOINT).
ARG SUITE=bookworm
FROM debian:${SUITE}-slim

RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates git \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --home-dir /tmp --no-create-home --shell /usr/sbin/nologin promoflow

# the installed versions are the constraints file's, as for make test
COPY pyproject.toml constraints.txt README.md /src/
COPY orchestrator /src/orchestrator
COPY workflow_templates /src/workflow_templates
COPY reporters /src/reporters
RUN python3 -m venv /opt/promoflow \
 && /opt/promoflow/bin/pip install --no-cache-dir -c /src/constraints.txt /src \
 && rm -rf /src

ENV PATH=/opt/promoflow/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/tmp \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
# non-root, as the chart's securityContext requires (runAsNonRoot, read-only root: /tmp is a volume)
USER 10001:10001
WORKDIR /tmp
ENTRYPOINT ["/opt/promoflow/bin/promoflow"]
