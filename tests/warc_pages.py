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
