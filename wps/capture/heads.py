"""HTTP/1.1 message heads as the egress proxy reads and writes them: parsed strictly (a folded or
nameless header line is an error, never guessed at), rebuilt without hop-by-hop fields and with
``Connection: close``, and page text made safe to put in a header."""

from __future__ import annotations

REQUEST_HOP_HEADERS = frozenset(
    ("connection", "keep-alive", "proxy-connection", "proxy-authorization", "upgrade", "te"))
"""Headers meant for the proxy or this one connection. ``Upgrade`` goes because the forwarded
connection closes after one response (WebSockets come through CONNECT)."""
RESPONSE_HOP_HEADERS = frozenset(("connection", "keep-alive", "proxy-connection"))


class MalformedHead(ValueError):
    """A head with a folded or nameless header line."""


def parse_head(raw: bytes) -> tuple[str, list[tuple[str, str]]]:
    """The first line and the header fields of a head (``raw`` ends with the blank line).

    >>> parse_head(b"GET / HTTP/1.1\\r\\nHost: a\\r\\n\\r\\n")
    ('GET / HTTP/1.1', [('Host', 'a')])
    """
    lines = raw[:-4].decode("latin-1").split("\r\n")
    headers = []
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip() or line[0] in " \t":
            raise MalformedHead("malformed header line")
        headers.append((name, value.strip()))
    return lines[0], headers


def connection_tokens(headers: list[tuple[str, str]]) -> set[str]:
    """Header names listed in ``Connection``: hop-by-hop by declaration (RFC 9110 §7.6.1)."""
    return {token.strip().lower() for name, value in headers if name.lower() == "connection"
            for token in value.split(",")}


def request_head(method: str, path: str, headers: list[tuple[str, str]], authority: str) -> bytes:
    """A request head in origin form for one request on its own connection."""
    dropped = REQUEST_HOP_HEADERS | connection_tokens(headers)
    kept = [(name, value) for name, value in headers if name.lower() not in dropped]
    if not any(name.lower() == "host" for name, _ in kept):
        kept.insert(0, ("Host", authority.rpartition("@")[2]))
    lines = [f"{method} {path} HTTP/1.1", *(f"{name}: {value}" for name, value in kept),
             "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def response_head(status_line: str, headers: list[tuple[str, str]]) -> bytes:
    """A response head without hop-by-hop fields, closing its connection."""
    dropped = RESPONSE_HOP_HEADERS | connection_tokens(headers)
    lines = [status_line, *(f"{name}: {value}" for name, value in headers
                            if name.lower() not in dropped), "Connection: close"]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def header_text(text: str) -> str:
    """``text`` as a header value: printable ASCII only (no way to split the head)."""
    return "".join(char if " " <= char <= "~" else "?" for char in text)
