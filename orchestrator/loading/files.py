"""Which files of a configuration directory are read, and reading only regular files.

A configuration directory is often a checkout of a repository others can push to, so
what sits in it is not trusted to be a plain file. Opening a FIFO named ``x.yaml`` waits
for a writer for ever (``validate`` hung), a device such as ``/dev/zero`` never ends, and a
symbolic link may point anywhere on the machine that loads it (the webhook service's
ServiceAccount token). The rules, documented in the README's Configuration section:

- a regular file is read;
- a symbolic link to a regular file inside the configuration directory is read, under the
  link's name. A Kubernetes ConfigMap volume (how the chart mounts the configuration) is
  made of such links (``x.yaml -> ..data/x.yaml``), and so are repositories that share one
  file between folders;
- a symbolic link that leaves the directory, dangles, or points to anything but a regular
  file, a symbolic link to a directory (not walked: its files would be read twice or from
  outside), a FIFO, a socket or a device: an error naming the file, never read;
- a directory that cannot be listed: an error, not a silently smaller configuration.

Each candidate is opened with ``O_NONBLOCK`` (a FIFO opens at once instead of waiting) and
``O_NOFOLLOW``, then checked with ``fstat`` on the open descriptor: what is read is what was
checked. That is one ``open`` and one ``fstat`` per file, what reading it cost already.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from pathspec import GitIgnoreSpec

from orchestrator.loading.text import decode

IGNORE_FILE = ".promoflowignore"
SUFFIXES = (".yaml", ".yml", ".py")
_SKIP_DIRS = {"node_modules", "__pycache__", "venv", "site-packages"}
_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
_HINT = "only regular files are read; remove it or list it in " + IGNORE_FILE


class NotRegular(OSError):
    """A candidate that is not read; the message says what it is and what to do."""


@dataclass(frozen=True)
class Unlisted:
    """A directory of the configuration that could not be listed."""

    path: Path
    reason: str


def _what(mode: int) -> str:
    return next((text for test, text in _KINDS if test(mode)), "not a regular file")


def _open_regular(path: Path) -> tuple[int, int]:
    """A descriptor of ``path`` and its size, when it is a regular file (not following a
    link)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise NotRegular(errno.ELOOP, "a symbolic link") from None
        if exc.errno == errno.ENXIO:  # what opening a socket says
            raise NotRegular(errno.EINVAL, f"{_what(os.lstat(path).st_mode)}: {_HINT}") from None
        raise
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode):
        os.close(fd)
        raise NotRegular(errno.EINVAL, f"{_what(found.st_mode)}: {_HINT}")
    return fd, found.st_size


def _read_all(fd: int, size: int) -> bytes:
    """Everything up to the end of the file (it may have grown since ``fstat``), with the
    descriptor closed; plain ``os.read`` calls: a buffered file object per file cost more
    than the checks."""
    try:
        chunks = [os.read(fd, size + 1)]
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 16))
        return b"".join(chunks)
    finally:
        os.close(fd)


def _inside(target: Path, root: Path) -> bool:
    return target == root or target.is_relative_to(root)


def read_regular(path: Path, root: Path | None) -> bytes:
    """The bytes of ``path`` if it is a regular file, or a symbolic link to one inside
    ``root`` (the resolved configuration directory; ``None``: a file named on the command
    line, whose links are the user's own choice); else :class:`NotRegular`."""
    try:
        fd, size = _open_regular(path)
    except NotRegular as exc:
        if exc.errno != errno.ELOOP:
            raise
        target = Path(os.path.realpath(path))
        if root is not None and not _inside(target, root):
            raise NotRegular(
                errno.EXDEV,
                "a symbolic link out of the configuration directory: links are followed only "
                f"to regular files inside it; {_HINT}",
            ) from None
        try:
            fd, size = _open_regular(target)
        except FileNotFoundError:
            raise NotRegular(errno.ENOENT, "a symbolic link to nothing (dangling)") from None
        except NotRegular as inner:
            raise NotRegular(inner.errno, f"a symbolic link to {inner.strerror}") from None
    return _read_all(fd, size)


def ignore_spec(root: Path) -> GitIgnoreSpec:
    """``.promoflowignore`` at the configuration root, read as git reads ``.gitignore``
    (pathspec implements the same rules): ``name`` at any depth, ``dir/sub`` from the root,
    a trailing ``/`` only directories, ``!pattern`` re-includes, ``#`` comments. Users
    already know these rules; a look-alike with fewer of them would surprise."""
    try:
        data = read_regular(root / IGNORE_FILE, Path(os.path.realpath(root)))
    except OSError:
        data = b""  # absent (or not a file: it then ignores nothing)
    return GitIgnoreSpec.from_lines(decode(data).text.splitlines())


def candidates(root: Path) -> Iterator[Path | Unlisted]:
    """The files under ``root`` promoflow may read (YAML and Python, not hidden, not
    ignored), in a stable order, and the directories it could not list or will not walk.

    Names only: whether each is a regular file is decided when it is opened."""
    spec = ignore_spec(root)
    unlisted: list[Unlisted] = []

    def failed(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        unlisted.append(Unlisted(where, f"cannot list directory: {exc.strerror or exc}"))

    for dirpath, dirnames, filenames in os.walk(root, onerror=failed):
        yield from unlisted
        unlisted.clear()
        base = Path(dirpath).relative_to(root).as_posix()
        prefix = "" if base == "." else f"{base}/"
        kept = sorted(
            d
            for d in dirnames
            if not d.startswith(".")
            and d not in _SKIP_DIRS
            and not spec.match_file(f"{prefix}{d}/")
        )
        dirnames[:] = []
        for name in kept:
            if os.path.islink(os.path.join(dirpath, name)):
                yield Unlisted(
                    Path(dirpath) / name,
                    f"a symbolic link to a directory: not followed; {_HINT}",
                )
            else:
                dirnames.append(name)
        for name in sorted(filenames):
            if not name.endswith(SUFFIXES) or name.startswith("."):
                continue
            if not spec.match_file(f"{prefix}{name}"):
                yield Path(dirpath) / name
    yield from unlisted
