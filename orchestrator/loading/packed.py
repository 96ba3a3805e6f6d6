"""A configuration directory as one flat ConfigMap, and back, without losing a file.

A ConfigMap's keys cannot hold ``/``, so ``kubectl create configmap --from-file=DIR``
keeps the top-level files of ``DIR`` and silently drops its folders (``products/``,
``flows/``): the service then ran, and ``validate`` passed, with half a configuration.
``promoflow config pack DIR`` writes every file under a key of its own and one more key,
:data:`MANIFEST`, that lists each file's key, path and SHA-256. Loading such a directory
(:func:`load_packed`) puts every file back at its path and refuses a ConfigMap that lost,
changed or gained a file since it was packed, naming it. A ConfigMap mounted without a
manifest (:func:`flattened`) is refused too: whether it lost folders cannot be known, and
the documented way to make one never loses them.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orchestrator.loading.files import SUFFIXES, NotRegular, candidates, read_regular
from orchestrator.problems import Position, Problem

if TYPE_CHECKING:
    from orchestrator.loading.config import Config

MANIFEST = "promoflow-manifest.json"
"""The key listing the packed files; not a configuration file (not YAML, so never read as
one), and what marks a directory as packed."""
API_VERSION = "promoflow.dev/v1alpha1"
KIND = "ConfigurationManifest"
MAX_KEY = 253
MAX_CONFIGMAP = 1 << 20
"""What the API server stores in one object (etcd's limit); a larger configuration is
read from Git (the chart's ``config.git``)."""
_KEY_CHARS = re.compile(r"[^-._a-zA-Z0-9]")
PACK_HINT = "make it with `promoflow config pack DIR | kubectl apply -f -`"


class PackError(ValueError):
    """A directory that cannot be packed; the message names the file."""


def key_for(path: str, taken: set[str]) -> str:
    """A ConfigMap key for ``path``: its folders joined by ``__`` (readable in ``kubectl get
    -o yaml``), other characters a key cannot hold as ``-``, made unique. The manifest, not
    the key, says where the file goes back, so the encoding need not be reversible."""
    key = _KEY_CHARS.sub("-", path.replace("/", "__")).lstrip(".") or "file"
    if len(key) > MAX_KEY:
        key = f"{hashlib.sha256(path.encode()).hexdigest()[:16]}-{key[-(MAX_KEY - 17) :]}"
    unique, n = key, 2
    while unique in taken or unique == MANIFEST:
        unique, n = f"{n}-{key}"[:MAX_KEY], n + 1
    taken.add(unique)
    return unique


def pack(files: Mapping[str, bytes]) -> dict[str, str]:
    """The ``data`` of a ConfigMap holding ``files`` (path -> bytes, UTF-8 text) and the
    manifest; :class:`PackError` for a file that is not text or a result too large."""
    taken: set[str] = set()
    data: dict[str, str] = {}
    listed: list[dict[str, str]] = []
    for path in sorted(files):
        raw = files[path]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise PackError(f"{path}: not UTF-8 text; save it as UTF-8") from None
        key = key_for(path, taken)
        data[key] = text
        listed.append({"key": key, "path": path, "sha256": hashlib.sha256(raw).hexdigest()})
    manifest = {"apiVersion": API_VERSION, "kind": KIND, "files": listed}
    data[MANIFEST] = json.dumps(manifest, indent=1, sort_keys=True) + "\n"
    size = sum(len(k) + len(v.encode()) for k, v in data.items())
    if size > MAX_CONFIGMAP:
        raise PackError(
            f"{size} bytes: more than a ConfigMap holds ({MAX_CONFIGMAP}); read the "
            "configuration from Git instead (the chart's config.git)"
        )
    return data


def files_under(root: Path) -> dict[str, bytes]:
    """Every file the loader would read under ``root`` (``.promoflowignore`` applied, the
    ignore file itself kept), by path relative to it."""
    real = Path(os.path.realpath(root))
    found: dict[str, bytes] = {}
    for path in candidates(root):
        if not isinstance(path, Path):
            raise PackError(f"{path.path}: {path.reason}")
        try:
            found[path.relative_to(root).as_posix()] = read_regular(path, real)
        except OSError as exc:
            raise PackError(f"{path}: {exc.strerror or exc}") from None
    ignore = root / ".promoflowignore"
    if ignore.is_file():
        found[ignore.name] = read_regular(ignore, real)
    return found


def configmap(name: str, namespace: str, data: dict[str, str]) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "labels": {"app.kubernetes.io/part-of": "promoflow"}}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": data}


def is_packed(root: Path) -> bool:
    return (root / MANIFEST).is_file()


def flattened(root: Path, shown: str) -> Problem | None:
    """A ConfigMap volume (its files are links into ``..data``) without a manifest."""
    if not (root / "..data").is_symlink() or is_packed(root):
        return None
    return Problem(
        Position(shown),
        "a ConfigMap without promoflow's manifest: `kubectl create configmap --from-file` "
        f"keeps only a directory's top-level files and drops its folders; {PACK_HINT}",
    )


def unpack(root: Path, shown: str) -> tuple[dict[str, bytes], list[Problem]]:
    """The files of packed directory ``root`` by path, and what is wrong with it: a file
    the manifest lists that is missing or changed, a configuration file it does not list."""
    real = Path(os.path.realpath(root))
    where = Position(f"{shown}/{MANIFEST}")
    try:
        manifest = json.loads(read_regular(root / MANIFEST, real))
        listed = manifest["files"]
        entries = [(str(e["key"]), str(e["path"]), str(e["sha256"])) for e in listed]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else "not a promoflow manifest"
        return {}, [Problem(where, f"cannot read the manifest: {reason}; {PACK_HINT}")]
    files: dict[str, bytes] = {}
    problems: list[Problem] = []
    for key, path, digest in entries:
        parts = path.split("/")
        if path.startswith("/") or any(p in ("", ".", "..") for p in parts):
            problems.append(Problem(where, f"{path!r}: not a relative path; {PACK_HINT}"))
            continue
        try:
            data = read_regular(root / key, real)
        except FileNotFoundError:
            problems.append(
                Problem(where, f"{path} (key {key}) is listed but missing: the ConfigMap lost "
                        f"it; {PACK_HINT}")
            )  # fmt: skip
            continue
        except (NotRegular, OSError) as exc:
            problems.append(Problem(where, f"{path} (key {key}): {exc.strerror or exc}"))
            continue
        if hashlib.sha256(data).hexdigest() != digest:
            problems.append(
                Problem(where, f"{path} (key {key}) changed since it was packed; {PACK_HINT}")
            )
            continue
        files[path] = data
    keys = {key for key, _, _ in entries}
    for extra in sorted(os.listdir(root)):
        if extra.endswith(SUFFIXES) and not extra.startswith(".") and extra not in keys:
            problems.append(
                Problem(Position(f"{shown}/{extra}"), f"not listed in the manifest; {PACK_HINT}")
            )
    return files, problems


def load_files(
    files: Mapping[str, bytes],
    shown_as: str,
    python_allowed: bool = True,
    links: Mapping[str, str] | None = None,
) -> tuple[Config, list[Problem]]:
    """Load ``files`` (path -> bytes) and symbolic ``links`` (path -> target) as the
    directory they came from, shown as ``shown_as``: written to a scratch directory, so
    every rule of a directory on disk (ignore file, links kept inside it, encodings) holds
    for them alike."""
    from orchestrator.loading.config import load_config

    with tempfile.TemporaryDirectory(prefix="promoflow-config-") as scratch:
        root = Path(scratch)
        for path, data in files.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        for path, pointed in (links or {}).items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.symlink_to(pointed)
        return load_config(root, python_allowed, shown_as=shown_as)


def load_packed(root: Path, python_allowed: bool = True) -> tuple[Config, list[Problem]]:
    shown = _shown(root)
    files, problems = unpack(root, shown)
    config, found = load_files(files, shown, python_allowed)
    return config, [*problems, *found]


def _shown(root: Path) -> str:
    try:
        return os.path.relpath(root)
    except ValueError:
        return str(root)
