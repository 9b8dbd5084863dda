"""The page screenshot as the report shows it: its height (segments below it are marked), and
the whole image as a ``data:`` URL for a report that must stand alone (``--embed-screenshot``):
a PNG up to :data:`EMBED_AS_IS_BYTES` as it is, a larger one re-encoded lossy, whichever is
smaller."""

from __future__ import annotations

import base64
from io import BytesIO
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from ..errors import InputFileError

EMBED_AS_IS_BYTES = 1024 * 1024
"""A screenshot up to this size goes into the report unchanged."""
LOSSY_QUALITY = 80
"""WebP or JPEG quality of a larger one: text stays readable, a tall page a few MB."""
WEBP_MAX_SIDE = 16383
"""WebP's largest side; a taller screenshot (up to the 16,384 px cap) is JPEG."""


def image_height(path: Path) -> int | None:
    """The screenshot's height in pixels (its header only), or ``None`` if it cannot be read:
    the report then takes it to cover the page."""
    try:
        with Image.open(path) as image:
            return int(image.size[1])
    except (OSError, UnidentifiedImageError, ValueError):
        return None


def screenshot_data_url(path: Path) -> str:
    """``path`` as a ``data:`` URL, compressed when large."""
    try:
        data = path.read_bytes()
        if len(data) <= EMBED_AS_IS_BYTES:
            return _data_url("png", data)
        with Image.open(BytesIO(data)) as image:
            rgb = image.convert("RGB")
    except (OSError, UnidentifiedImageError, ValueError) as err:
        raise InputFileError(f"{path}: screenshot not readable ({err})") from None
    kind = "webp" if max(rgb.size) <= WEBP_MAX_SIDE else "jpeg"
    buffer = BytesIO()
    rgb.save(buffer, kind.upper(), quality=LOSSY_QUALITY)
    lossy = buffer.getvalue()
    return _data_url(kind, lossy) if len(lossy) < len(data) else _data_url("png", data)


def _data_url(kind: str, data: bytes) -> str:
    return f"data:image/{kind};base64,{base64.b64encode(data).decode('ascii')}"
