"""Only regular files are read: FIFOs, devices, sockets and links that leave the
configuration directory are reported, never opened for reading.

A FIFO named ``*.yaml`` used to hang ``validate`` for ever (opening it waits for a writer),
so every case runs ``promoflow validate`` in a thread with a guard: a regression fails the
test, and the guard then opens the FIFO's other end so the thread can finish.
"""

from __future__ import annotations

import os
import socket
import threading
from pathlib import Path

from orchestrator.loading.packed import MANIFEST, pack
from tests.unit.conftest import Workspace
from tests.unit.invoke import Result, assert_clean_failure, invoke
from tests.unit.samples import ENVIRONMENTS

GUARD_SECONDS = 60.0
"""Only a hang reaches it: a correct run reads a few small files."""
HINT = "only regular files are read; remove it or list it in .promoflowignore"


def validate(ws: Workspace, *fifos: Path, config: str = ".") -> Result:
    """``promoflow validate -c CONFIG``, failing (not hanging) if it blocks on a FIFO."""
    results: list[Result] = []
    thread = threading.Thread(
        target=lambda: results.append(invoke("validate", "-c", config)), daemon=True
    )
    thread.start()
    thread.join(GUARD_SECONDS)
    if thread.is_alive():
        for fifo in fifos:  # a writer that goes away at once: the blocked open returns
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        thread.join(GUARD_SECONDS)
        raise AssertionError(f"validate blocked on a FIFO for {GUARD_SECONDS:.0f} s")
    return results[0]


def test_a_fifo_named_yaml_is_an_error_not_a_hang(ws: Workspace) -> None:
    ws.write_base()
    os.mkfifo(ws.root / "pipe.yaml")
    result = validate(ws, ws.root / "pipe.yaml")
    assert_clean_failure(result, 1)
    assert result.lines == [f"pipe.yaml:1:1: error: not read: a FIFO (named pipe): {HINT}"]


def test_a_fifo_given_as_the_configuration_is_an_error(ws: Workspace) -> None:
    os.mkfifo(ws.root / "pipe.yaml")
    result = validate(ws, ws.root / "pipe.yaml", config="pipe.yaml")
    assert_clean_failure(result, 1)
    assert result.lines == [f"pipe.yaml:1:1: error: not read: a FIFO (named pipe): {HINT}"]


def test_a_device_given_as_the_configuration_is_an_error(ws: Workspace) -> None:
    """``/dev/zero`` never ends: reading it whole would fill the memory."""
    result = validate(ws, config="/dev/zero")
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"{os.path.relpath('/dev/zero')}:1:1: error: not read: a character device: {HINT}"
    ]


def test_a_socket_named_yaml_is_an_error(ws: Workspace) -> None:
    ws.write_base()
    with socket.socket(socket.AF_UNIX) as server:
        server.bind("sock.yaml")
        result = validate(ws)
    assert result.lines == [f"sock.yaml:1:1: error: not read: a socket: {HINT}"]


def test_an_ignored_fifo_is_left_alone(ws: Workspace) -> None:
    ws.write_base()
    os.mkfifo(ws.root / "pipe.yaml")
    ws.write(".promoflowignore", "pipe.yaml\n")
    result = validate(ws, ws.root / "pipe.yaml")
    assert (result.code, result.lines) == (0, [])


def test_a_configmap_volume_is_read_through_its_links(ws: Workspace) -> None:
    """How Kubernetes mounts a ConfigMap (the chart's configuration): each file a link
    into ``..data``, itself a link to the current timestamped directory; the manifest
    ``promoflow config pack`` and the chart write lists the files."""
    ws.write_base()
    data = ws.root / "..2026_01_01_00_00_00.000000001"
    data.mkdir()
    names = ("environments.yaml", "template.yaml", "flow.yaml", "product.yaml")
    packed = pack({name: (ws.root / name).read_bytes() for name in names})
    (data / MANIFEST).write_text(packed[MANIFEST])
    (ws.root / MANIFEST).symlink_to(Path("..data") / MANIFEST)
    for name in names:
        (ws.root / name).rename(data / name)
        (ws.root / name).symlink_to(Path("..data") / name)
    (ws.root / "..data").symlink_to(data.name)
    result = validate(ws)
    assert (result.code, result.lines) == (0, [])
    assert "1 Product" in result.stdout


def test_a_link_out_of_the_configuration_is_not_followed(ws: Workspace) -> None:
    """A file someone pushed may point anywhere on the machine that loads it."""
    outside = ws.root.parent / "elsewhere.yaml"
    outside.write_text(ENVIRONMENTS)
    (ws.root / "environments.yaml").symlink_to(outside)
    result = validate(ws)
    assert_clean_failure(result, 1)
    assert result.lines == [
        "environments.yaml:1:1: error: not read: a symbolic link out of the configuration "
        f"directory: links are followed only to regular files inside it; {HINT}"
    ]


def test_a_link_to_a_fifo_is_an_error(ws: Workspace) -> None:
    ws.write_base()
    hidden = ws.root / ".pipes"
    hidden.mkdir()
    os.mkfifo(hidden / "pipe")
    (ws.root / "pipe.yaml").symlink_to(".pipes/pipe")
    result = validate(ws, hidden / "pipe")
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"pipe.yaml:1:1: error: not read: a symbolic link to a FIFO (named pipe): {HINT}"
    ]


def test_a_dangling_link_is_an_error(ws: Workspace) -> None:
    ws.write_base()
    (ws.root / "gone.yaml").symlink_to("nowhere.yaml")
    result = validate(ws)
    assert_clean_failure(result, 1)
    assert result.lines == ["gone.yaml:1:1: error: not read: a symbolic link to nothing (dangling)"]


def test_a_link_to_a_directory_is_an_error_not_a_silent_gap(ws: Workspace) -> None:
    ws.write_base()
    (ws.root / "shared").mkdir()
    (ws.root / "more").symlink_to("shared")
    result = validate(ws)
    assert_clean_failure(result, 1)
    assert result.lines == [
        f"more:1:1: error: a symbolic link to a directory: not followed; {HINT}"
    ]
