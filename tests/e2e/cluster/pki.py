"""The cluster's certificates and keys, made once with openssl and kept in CACHE/state/pki.

One CA signs the API server's serving certificate and one admin client certificate (group
``system:masters``) that every component and the tests use; a separate RSA key signs
service-account tokens. openssl (always present where git is) avoids a Python dependency.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .config import PATHS

DAYS = "3650"
SERVICE_IP = "10.96.0.1"
"""First address of the service CIDR: the ``kubernetes`` Service's ClusterIP."""
SERVICE_CIDR = "10.96.0.0/16"


@dataclass(frozen=True)
class Pki:
    dir: Path

    @property
    def ca_crt(self) -> Path:
        return self.dir / "ca.crt"

    @property
    def ca_key(self) -> Path:
        return self.dir / "ca.key"

    @property
    def apiserver_crt(self) -> Path:
        return self.dir / "apiserver.crt"

    @property
    def apiserver_key(self) -> Path:
        return self.dir / "apiserver.key"

    @property
    def admin_crt(self) -> Path:
        return self.dir / "admin.crt"

    @property
    def admin_key(self) -> Path:
        return self.dir / "admin.key"

    @property
    def sa_key(self) -> Path:
        return self.dir / "sa.key"

    @property
    def sa_pub(self) -> Path:
        return self.dir / "sa.pub"

    def complete(self) -> bool:
        files = (self.ca_crt, self.apiserver_crt, self.admin_crt, self.sa_key, self.sa_pub)
        return all(f.exists() for f in files)


PKI = Pki(PATHS.pki)


def _openssl(*args: str, cwd: Path) -> None:
    openssl = shutil.which("openssl") or "/usr/bin/openssl"
    proc = subprocess.run([openssl, *args], cwd=cwd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"openssl {' '.join(args)}: {proc.stderr.strip()}")


def _sign(name: str, subject: str, extensions: str) -> None:
    d = PKI.dir
    _openssl(
        "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", f"{name}.key",
        "-out", f"{name}.csr", "-subj", subject, cwd=d,
    )  # fmt: skip
    (d / f"{name}.ext").write_text(extensions)
    _openssl(
        "x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
        "-CAcreateserial", "-out", f"{name}.crt", "-days", DAYS, "-sha256",
        "-extfile", f"{name}.ext", cwd=d,
    )  # fmt: skip
    (d / f"{name}.csr").unlink()
    (d / f"{name}.ext").unlink()


def ensure_pki() -> bool:
    """Create whatever is missing; returns True when something was made."""
    if PKI.complete():
        return False
    d = PKI.dir
    if d.exists():
        shutil.rmtree(d)  # a half-made set: start over rather than mix keys
    d.mkdir(parents=True)
    d.chmod(0o700)
    _openssl(
        "req", "-x509", "-new", "-nodes", "-newkey", "rsa:2048", "-keyout", "ca.key",
        "-out", "ca.crt", "-days", DAYS, "-sha256", "-subj", "/CN=promoflow-e2e-ca",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign,digitalSignature", cwd=d,
    )  # fmt: skip
    sans = ",".join(
        [
            "IP:127.0.0.1",
            f"IP:{SERVICE_IP}",
            "DNS:localhost",
            "DNS:kubernetes",
            "DNS:kubernetes.default",
            "DNS:kubernetes.default.svc",
            "DNS:kubernetes.default.svc.cluster.local",
        ]
    )
    _sign(
        "apiserver",
        "/CN=kube-apiserver",
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
        f"extendedKeyUsage=serverAuth\nsubjectAltName={sans}\n",
    )
    _sign(
        "admin",
        "/O=system:masters/CN=promoflow-e2e-admin",
        "basicConstraints=CA:FALSE\nkeyUsage=critical,digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=clientAuth\n",
    )
    _openssl("genrsa", "-out", "sa.key", "2048", cwd=d)
    _openssl("rsa", "-in", "sa.key", "-pubout", "-out", "sa.pub", cwd=d)
    for key in d.glob("*.key"):
        key.chmod(0o600)
    return True
