"""Configuration files as text: UTF-8, with or without a byte-order mark.

Editors on Windows (Notepad, PowerShell's ``Set-Content -Encoding utf8``) save UTF-8 with a
BOM. Read as plain UTF-8 it stays in the text as U+FEFF, so a file whose first line is
``apiVersion: promoflow.dev/v1alpha1`` no longer matched the pre-filter and its resources
vanished without a word. promoflow also reads whole GitOps repositories, where a Helm
values file may be Latin-1: such a file is none of promoflow's business, so only a file
that holds a promoflow document has to be valid UTF-8. Deciding that must not need a
correct decoding, so every file gets one: the real text when the bytes are UTF-8, else a
lossy one (invalid bytes replaced) that the pre-filter can read just as well, since
everything it looks for is ASCII.
"""

from __future__ import annotations

import codecs
import io
import tokenize
from dataclasses import dataclass

_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),  # before UTF-16 LE: it starts with FF FE too
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)


@dataclass(frozen=True)
class Decoded:
    """A file's text and, when it cannot be loaded as it is, why and where."""

    text: str
    """The text (BOM removed); for an undecodable file a lossy decoding, to pre-filter on."""
    error: str | None = None
    line: int = 1
    col: int = 1


def _invalid(data: bytes, encoding: str, exc: UnicodeDecodeError) -> Decoded:
    """Where the first invalid byte is, as an editor counts lines and columns."""
    start = exc.start
    line_start = data.rfind(b"\n", 0, start) + 1
    col = len(data[line_start:start].decode(encoding, errors="replace")) + 1
    text = data.decode(encoding, errors="replace")
    byte = data[start : start + 1].hex()
    return Decoded(
        text,
        f"not valid {encoding.upper()} (byte 0x{byte}): save the file as UTF-8",
        data.count(b"\n", 0, start) + 1,
        col,
    )


def decode(data: bytes, python: bool = False) -> Decoded:
    """The text of a configuration file: UTF-8 with or without a BOM.

    Python files may declare another encoding (``# -*- coding: latin-1 -*-``), as Python
    itself allows; YAML files are UTF-8. A UTF-16 or UTF-32 file (PowerShell's ``>`` writes
    UTF-16) is decoded for the pre-filter and reported if it turns out to be ours."""
    for bom, codec, name in _WIDE_BOMS:
        if data.startswith(bom):
            text = data.decode(codec, errors="replace").removeprefix("\ufeff")
            return Decoded(text, f"the file is saved as {name}: save it as UTF-8")
    encoding = "utf-8"
    if python:
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        except SyntaxError:  # an unknown coding cookie: Python reports it when importing
            encoding = "utf-8"
    if encoding in ("utf-8", "utf-8-sig"):
        encoding, data = "utf-8", data.removeprefix(codecs.BOM_UTF8)
    try:
        return Decoded(data.decode(encoding))
    except UnicodeDecodeError as exc:
        return _invalid(data, encoding, exc)
