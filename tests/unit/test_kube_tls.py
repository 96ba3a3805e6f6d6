"""The gate's own Kubernetes connection (PROMOFLOW_KUBE_API): clusters serve their API with a
certificate of their own CA, so the CA is a setting; a missing file is said at once."""

from __future__ import annotations

from pathlib import Path

import pytest

from orchestrator.adapters.kube import KubeApplications
from orchestrator.settings import GateSettings, SettingsError, load


def _configuration(apps: KubeApplications) -> object:
    return apps.api.api_client.configuration


def test_the_ca_file_and_insecure_reach_the_client(tmp_path: Path) -> None:
    ca = tmp_path / "ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    apps = KubeApplications.connect("https://k8s.example:6443", "t", "argocd", ca_file=str(ca))
    configuration = _configuration(apps)
    assert configuration.ssl_ca_cert == str(ca)  # type: ignore[attr-defined]
    assert configuration.verify_ssl is True  # type: ignore[attr-defined]
    loose = KubeApplications.connect("https://k8s.example:6443", "t", "argocd", insecure=True)
    assert _configuration(loose).verify_ssl is False  # type: ignore[attr-defined]


def test_settings_read_the_ca_and_refuse_a_missing_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ca = tmp_path / "ca.crt"
    ca.write_text("pem\n")
    monkeypatch.setenv("PROMOFLOW_KUBE_CA", str(ca))
    monkeypatch.setenv("PROMOFLOW_KUBE_INSECURE", "false")
    settings = load(GateSettings)
    assert (settings.kube_ca, settings.kube_insecure) == (str(ca), False)
    monkeypatch.setenv("PROMOFLOW_KUBE_CA", str(tmp_path / "nope.crt"))
    with pytest.raises(SettingsError, match="PROMOFLOW_KUBE_CA: no such file"):
        load(GateSettings)
