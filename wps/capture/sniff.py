"""Is a document binary, whatever its label says? Judged piece by piece as it arrives.

Chromium renders any bytes served as HTML; a PDF or random bytes taken as a page give junk
segments, and random bytes can hold the renderer in layout for minutes. The same judge serves a
local page read whole (:func:`.sources.check_body`) and a web page's body streamed through the
egress proxy (:mod:`.egress`), which cuts the body at the first binary window, before the
renderer sees it.
"""

from __future__ import annotations

import zlib

import numpy as np

BINARY_MAGIC = {
    b"%PDF-": "PDF", b"\x89PNG": "PNG image", b"GIF8": "GIF image", b"\xff\xd8\xff": "JPEG image",
    b"PK\x03\x04": "ZIP archive", b"\x1f\x8b": "gzip data", b"RIFF": "RIFF media",
    b"\x00\x00\x01\x00": "icon", b"OggS": "Ogg media", b"wOF": "web font",
}
SNIFF_BYTES = 4096
"""The head judged by its magic number and NUL bytes, and the window of the control count."""
_UTF8_BOM = b"\xef\xbb\xbf"
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_CONTROL_SHARE = 0.05
_WINDOW_LIMIT = SNIFF_BYTES * _CONTROL_SHARE
_CONTROLS = bytes([*range(9), 11, 12, *range(14, 32)])
"""C0 controls but tab, line feed, carriage return: no HTML text has many of them."""
_NOT_CONTROLS = bytes(sorted(set(range(256)) - set(_CONTROLS)))
_IS_CONTROL = np.zeros(256, dtype=np.uint8)
_IS_CONTROL[list(_CONTROLS)] = 1


class BinarySniffer:
    """Feed a body's bytes in order; a verdict (``"a PDF"``, ``"binary data"``) once one part
    shows it is not text, else ``None``.

    Binary is a known magic number at the start (after a UTF-8 byte-order mark), a NUL byte in
    the first :data:`SNIFF_BYTES`, or any window of that size, counted from the start, with more
    than 5 % control characters; no HTML text encoding has them (UTF-16 is declared by a
    byte-order mark, which Chromium honours, so it is let through). A short last window is held
    to a whole window's share (a DOS end-of-file byte is text), a body shorter than one window
    to its own length's. Windows are counted as they fill:
    a body's verdict does not depend on how it was cut into pieces.
    """

    __slots__ = ("_head", "_pending", "_text_declared", "verdict")

    def __init__(self) -> None:
        self._head = bytearray()
        self._pending = bytearray()
        self._text_declared = False
        self.verdict: str | None = None

    def feed(self, data: bytes) -> str | None:
        """Judge ``data``, the next piece of the body; the verdict so far."""
        if self.verdict is not None or self._text_declared or not data:
            return self.verdict
        if len(self._head) < SNIFF_BYTES:
            self._head += data[:SNIFF_BYTES - len(self._head)]
            if len(self._head) >= SNIFF_BYTES:
                self._judge_head()
        self._pending += data
        whole = len(self._pending) - len(self._pending) % SNIFF_BYTES
        if whole and self.verdict is None and not self._text_declared \
                and _has_binary_window(bytes(self._pending[:whole])):
            self.verdict = "binary data"
        del self._pending[:whole]
        return self.verdict

    def finish(self) -> str | None:
        """The body has ended: judge its head if it was short, and its last window."""
        if self.verdict is None and not self._text_declared and len(self._head) < SNIFF_BYTES:
            self._judge_head()
        if self.verdict is None and not self._text_declared and self._pending:
            # a body shorter than a window is held to its own length's share
            limit = min(len(self._head), SNIFF_BYTES) * _CONTROL_SHARE
            if len(bytes(self._pending).translate(None, _NOT_CONTROLS)) > limit:
                self.verdict = "binary data"
        self._pending.clear()
        return self.verdict

    def _judge_head(self) -> None:
        head = bytes(self._head)
        bare = head.lstrip(_UTF8_BOM)
        for magic, kind in BINARY_MAGIC.items():
            if bare.startswith(magic):
                self.verdict = f"a {kind}"
                return
        if head.startswith(_UTF16_BOMS):
            self._text_declared = True
        elif b"\x00" in head:
            self.verdict = "binary data"


def _has_binary_window(body: bytes) -> bool:
    """Whether a window of ``body`` (whole windows) holds too many control characters.

    A page has next to no control bytes: one ``bytes.translate`` counts them all (a fraction of
    a millisecond for a 1 MB page); only a body holding more than one window's share is
    counted window by window (a table look-up and a sum per window, numpy).
    """
    if len(body.translate(None, _NOT_CONTROLS)) <= _WINDOW_LIMIT:
        return False  # not even all of them in one window would pass the limit
    controls = _IS_CONTROL[np.frombuffer(body, dtype=np.uint8)]
    per_window = np.add.reduceat(controls, np.arange(0, len(body), SNIFF_BYTES), dtype=np.int64)
    return bool(np.any(per_window > _WINDOW_LIMIT))


def binary_verdict(body: bytes) -> str | None:
    """The verdict on a whole body (see :class:`BinarySniffer`)."""
    sniffer = BinarySniffer()
    return sniffer.feed(body) or sniffer.finish()


_HTML_TYPES = ("", "text/html", "application/xhtml+xml")
"""Bodies judged (no type: Chromium sniffs it, perhaps as HTML)."""
NAVIGATION_ENCODINGS = "gzip, deflate"
"""The content codings a navigation is offered: the ones its body can be judged in."""
DECODED_PIECE = 1 << 20
"""The most bytes one compressed piece is inflated to at once (a gzip bomb stays small)."""
_DECODERS = {"gzip": 16 + zlib.MAX_WBITS, "x-gzip": 16 + zlib.MAX_WBITS,
             "deflate": zlib.MAX_WBITS}


class Unjudgeable(Exception):
    """The body's framing or encoding is not one the judge reads: it goes through unjudged."""


class WireBodyJudge:
    """Judges an HTTP/1 response body from its bytes on the wire, as they are relayed.

    Undoes the transfer framing (``chunked``, or the bytes as they are) and the content coding
    the proxy offered (``gzip``, ``deflate``), then feeds a :class:`BinarySniffer`. A framing or
    coding it cannot read raises :class:`Unjudgeable` (Chromium fails such a body, or the
    capture judges it once it has arrived).
    """

    __slots__ = ("_buffer", "_chunked", "_inflate", "_left", "_state", "sniffer")

    def __init__(self, transfer_encoding: str, content_encoding: str) -> None:
        codings = [token.strip() for token in transfer_encoding.lower().split(",") if token.strip()]
        if codings not in ([], ["chunked"]):
            raise Unjudgeable(f"transfer coding {transfer_encoding!r}")
        self._chunked = bool(codings)
        self._buffer = bytearray()
        self._left = 0
        self._state = "size"  # size, data, data-end, done
        coding = content_encoding.strip().lower()
        if coding in ("", "identity"):
            self._inflate = None
        elif coding in _DECODERS:
            self._inflate = zlib.decompressobj(_DECODERS[coding])
        else:
            raise Unjudgeable(f"content coding {content_encoding!r}")
        self.sniffer = BinarySniffer()

    def feed(self, wire: bytes) -> str | None:
        """The next bytes as received; the verdict so far (``None``: text, so far)."""
        for piece in self._unframe(wire) if self._chunked else (wire,):
            self._decode(piece)
            if self.sniffer.verdict is not None:
                break
        return self.sniffer.verdict

    def finish(self) -> str | None:
        """The connection ended: judge the last window."""
        return self.sniffer.finish()

    def _decode(self, piece: bytes) -> None:
        if self._inflate is None:
            self.sniffer.feed(piece)
            return
        try:
            while piece and self.sniffer.verdict is None and not self._inflate.eof:
                self.sniffer.feed(self._inflate.decompress(piece, DECODED_PIECE))
                piece = self._inflate.unconsumed_tail
        except zlib.error as error:
            raise Unjudgeable(f"bad compressed data ({error})") from None

    def _unframe(self, wire: bytes) -> list[bytes]:
        """The data in ``wire`` of a ``chunked`` body (RFC 9112 §7.1)."""
        self._buffer += wire
        pieces = []
        while self._buffer and self._state != "done":
            if self._state == "data":
                taken = bytes(self._buffer[:self._left])
                del self._buffer[:len(taken)]
                self._left -= len(taken)
                pieces.append(taken)
                if self._left == 0:
                    self._state = "data-end"
                continue
            end = self._buffer.find(b"\r\n")
            if end < 0:
                if len(self._buffer) > 4096:
                    raise Unjudgeable("chunk size line too long")
                break
            line = bytes(self._buffer[:end]).split(b";", 1)[0].strip()
            del self._buffer[:end + 2]
            if self._state == "data-end":
                if line:
                    raise Unjudgeable("chunk data longer than its size")
                self._state = "size"
                continue
            try:
                self._left = int(line, 16)
            except ValueError:
                raise Unjudgeable("bad chunk size") from None
            self._state = "data" if self._left else "done"
        return pieces


def is_navigation(headers: list[tuple[str, str]]) -> bool:
    """A request for a document to show: ``Sec-Fetch-Mode: navigate``, or where Chromium sends
    no fetch metadata (a plain-HTTP site), its navigation ``Accept`` header."""
    fields = {name.lower(): value.strip().lower() for name, value in headers}
    if "sec-fetch-mode" in fields:
        return fields["sec-fetch-mode"] == "navigate"
    return fields.get("accept", "").startswith("text/html")


def body_judge(status: str, headers: list[tuple[str, str]]) -> WireBodyJudge | None:
    """A judge for an HTML response body; ``None`` when there is none or it cannot be read."""
    fields = {name.lower(): value for name, value in headers}
    content_type = fields.get("content-type", "").split(";", 1)[0].strip().lower()
    if status in ("204", "304") or content_type not in _HTML_TYPES:
        return None
    try:
        return WireBodyJudge(fields.get("transfer-encoding", ""),
                             fields.get("content-encoding", ""))
    except Unjudgeable:
        return None
