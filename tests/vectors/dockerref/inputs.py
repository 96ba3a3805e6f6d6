"""The inputs of the image reference vectors: hand-picked cases and seeded random text.

``python tests/vectors/dockerref/inputs.py | (cd tests/vectors/dockerref && go run .)``
``> tests/vectors/dockerref/vectors.jsonl`` regenerates the committed vectors with the real
library (github.com/distribution/reference, as Kubernetes and containerd read images).
"""

from __future__ import annotations

import json
import random

SHA = "sha256:" + "0123456789abcdef" * 4
SHA512 = "sha512:" + "0123456789abcdef" * 8
EDGES = [
    "", "nginx", "nginx:1.25", "nginx:latest", "library/nginx", "docker.io/nginx",
    "docker.io/library/nginx", "docker.io/library/nginx:1.25", "index.docker.io/nginx",
    "index.docker.io/library/nginx:1.25", "index.docker.io/acme/web", "registry-1.docker.io/nginx",
    "Docker.io/nginx", "DOCKER.IO/library/nginx", "ghcr.io/acme/web", "ghcr.io/acme/web:2.0",
    "ghcr.io/acme/web:1.9", f"ghcr.io/acme/web@{SHA}", f"ghcr.io/acme/web:2.0@{SHA}",
    f"nginx@{SHA}", f"nginx:1.25@{SHA}", f"nginx@{SHA512}", "nginx@sha384:" + "ab" * 48,
    "nginx@sha256:abc", "nginx@sha256:" + "A" * 64, "nginx@sha256:" + "g" * 64,
    "nginx@md5:" + "a" * 32, "nginx@sha256:" + "a" * 63, "nginx@sha256:" + "a" * 65,
    "localhost/web", "localhost:5000/web", "localhost:5000/web:1", "localhost", "localhost:5000",
    "example.com", "example.com/web", "example.com:443/acme/web:v1", "127.0.0.1:5000/web",
    "[::1]:5000/web", "[::1]/web", "[fe80::1%eth0]/web", "acme/web", "acme/web:2.0",
    "Acme/web", "acme/Web", "ACME.io/web", "my-registry:5000/a/b/c:tag", "a", "a/b", "a:b",
    "a:b:c", "a@b", ":tag", "@" + SHA, "nginx:", "nginx@", "nginx:tag@", "/nginx", "nginx/",
    "a//b", "a/b/", "a..b", "a__b", "a___b", "a--b", "a-b", "a.b", "a_b", "-a", "a-", "_a",
    "a_", ".a", "a.", "a:-tag", "a:.tag", "a:_tag", "a:t-a.g_9", "a:" + "t" * 128,
    "a:" + "t" * 129, "a" * 255, "a" * 256, "docker.io/" + "a" * 248, "x.io/" + "a" * 256,
    "0123456789abcdef" * 4, "0123456789ABCDEF" * 4, "0123456789abcdef" * 4 + ":tag",
    "docker.io/" + "0123456789abcdef" * 4, "NGINX", "nginx:LATEST", "nginx:Tag",
    "nginx\n", " nginx", "nginx ", "ngi nx", "ngïnx", "nginx:1.25\n", "web:1.0-rc.1+build",
    "ghcr.io/acme/web:2.0.0-alpha.1", "quay.io/org/repo:v1@" + SHA, "gcr.io/p/img@" + SHA,
    "registry.k8s.io/pause:3.10", "promoflow.local/httpd:v1", "promoflow.local/httpd:v2",
    "foo.local/bar", "foo_bar.com:8080/x", "foo-.com/x", "-foo.com/x", "foo.com:/x",
    "foo.com:abc/x", "a:1/b", "a:b/c", "UPPER:5000/x", "Upper/x", "upper/X", "a/b:c:d",
    "a/b@c:d", "docker.io", "docker.io/", "docker.io/library", "docker.io/library/",
    "library", "library/library/nginx", "docker.io/library/a/b", "index.docker.io",
    "\u0130mage", "\u212aube/web", "web:\u212a", "\u212aUBE", "ng\u0130nx:1", "caf\u00e9/x",
]  # fmt: skip
ALPHABET = "abcxyzABZ019./:@-_[]% "
PARTS = [
    "nginx", "acme", "web", "ghcr.io", "docker.io", "index.docker.io", "localhost",
    "localhost:5000", "example.com:443", "library", "a.b", "a_b", "a__b", "a-b", "A",
]  # fmt: skip


def inputs() -> list[str]:
    rng = random.Random(20260601)
    out = list(EDGES)
    for _ in range(1500):
        out.append("".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 14))))
    for _ in range(1500):
        name = "/".join(rng.choice(PARTS) for _ in range(rng.randint(1, 4)))
        if rng.random() < 0.5:
            name += ":" + rng.choice(["1.0", "v2", "latest", "-x", "A_b.c", "1:2", ""])
        if rng.random() < 0.3:
            name += "@" + rng.choice([SHA, SHA512, "sha256:abc", "sha256:" + "F" * 64, ""])
        out.append(name)
    return list(dict.fromkeys(out))


if __name__ == "__main__":
    for text in inputs():
        print(json.dumps(text, ensure_ascii=False))
