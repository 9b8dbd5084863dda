"""Two stored pages (one English, one German) and a WARC holding them, for the datatrove tests."""

from __future__ import annotations

import io

ENGLISH = ("The committee met on Tuesday to discuss the new library opening hours. After a long "
           "debate, the members agreed that the building should stay open until nine in the "
           "evening on weekdays, so that students and workers can use the reading rooms.")
GERMAN = ("Der Ausschuss traf sich am Dienstag, um über die neuen Öffnungszeiten der Bibliothek "
          "zu sprechen. Nach einer langen Debatte einigten sich die Mitglieder darauf, dass das "
          "Gebäude an Wochentagen bis neun Uhr abends geöffnet bleiben soll.")
PAGES = {
    "http://127.0.0.1/en/library": f"<!doctype html><title>Library</title><nav><a href=/>Home</a> "
    f"<a href=/news>News</a></nav><main><h1>Library hours</h1><p>{ENGLISH}</p><p>{ENGLISH}</p>"
    "</main>",
    "http://127.0.0.1/de/bibliothek": f"<!doctype html><title>Bibliothek</title><main><h1>"
    f"Öffnungszeiten</h1><p>{GERMAN}</p><p>{GERMAN}</p></main>",
}


def write_warc(path, pages: dict[str, str]) -> None:
    """A gzipped WARC with one HTML response per page (what a crawler stores)."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for url, html in pages.items():
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8")],
                                       protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                url, "response", payload=io.BytesIO(html.encode("utf-8")),
                http_headers=headers))


# WARC replay: a page, its stylesheet and image, as a browser-grade archiver stores them
SITE = "http://replay.example"
PAGE = f"""<!doctype html><html><head><link rel="stylesheet" href="/style.css">
<script src="/missing.js"></script></head>
<body><p id="text">archived text</p><img id="image" src="{SITE}/image.png"></body></html>"""
STYLE = "p { color: rgb(10, 20, 30); }"


def png(width: int, height: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (200, 30, 30)).save(buffer, format="PNG")
    return buffer.getvalue()


def write_replay_warc(path):
    """A WARC of :data:`PAGE`, its stylesheet and its image (7×5 pixels, a ``revisit`` record
    of an earlier capture of it under another URL), as a browser-grade crawler stores them;
    ``/missing.js`` is not in it. Returns ``path``."""
    records = [(f"{SITE}/page", "text/html; charset=utf-8", PAGE.encode()),
               (f"{SITE}/style.css", "text/css", STYLE.encode()),
               (f"{SITE}/old/image.png", "image/png", png(7, 5))]
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as handle:
        writer = WARCWriter(handle, gzip=True)
        for url, kind, body in records:
            headers = StatusAndHeaders("200 OK", [("Content-Type", kind)], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(
                url, "response", payload=io.BytesIO(body), http_headers=headers))
        revisit = writer.create_revisit_record(
            f"{SITE}/image.png", digest="sha1:AAAA", refers_to_uri=f"{SITE}/old/image.png",
            refers_to_date="2026-01-01T00:00:00Z")
        writer.write_record(revisit)
    return path
