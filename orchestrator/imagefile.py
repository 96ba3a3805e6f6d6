"""The image a YAML file names, read as the promote step writes it (:mod:`orchestrator.yamledit`).

The promote step reads it from the file it promoted; the Argo CD simulator from the file
at the commit it deploys, to show the image a cluster would then run. One reading for
both, so the simulation shows what the gate will compare.
"""

from __future__ import annotations

from orchestrator.imagespec import ImageSpec, PromotedImage, read_image
from orchestrator.yamledit import YamlEditError, read


def image_in(spec: ImageSpec, text: str, name: str) -> PromotedImage | None:
    """The image ``text`` (the file ``name``) names under ``spec``; ``None`` when it names
    no tag or digest. Raises :class:`~orchestrator.imagespec.ImageSpecError` when its
    values make no image reference."""

    def lookup(path: str) -> str | None:
        try:
            value = read(text, path, name)
        except YamlEditError:  # absent (or no YAML): nothing written there
            return None
        data = value.data
        if data is None or isinstance(data, dict | list | bool):
            return None
        # a number keeps its written form (``1.10``), not Python's (``1.1``)
        return data if isinstance(data, str) else (value.token or str(data))

    return read_image(spec, lookup)
