"""What a capture source is: an http(s) URL, or a local ``.html``/``.html.gz`` file opened offline.

Local files are rendered through a ``file:`` URL. A gzipped file, or a non-ASCII file that is
valid UTF-8, is first copied to a temporary ``.html`` file (the latter with a UTF-8 byte-order
mark, which outranks any ``<meta charset>``: a saved page is very often re-encoded as UTF-8 while
its meta tag still names ISO-8859-1, and valid UTF-8 is almost never meant as anything else;
without the mark Chromium would also fall back to windows-1252 where no charset is declared). A
document that is empty or binary is refused here (:func:`check_body`), for a web page once it has
been served; one larger than :data:`MAX_DOCUMENT_BYTES` (decompressed) is refused while it is
read, so that a small gzip bomb never reaches memory. :func:`prepare_source` also refuses a web
page's address: every refusal comes before a browser is started.
"""

from __future__ import annotations

import gzip
import re
import shutil
import zlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ..errors import EmptyPageError, InputFileError, NotHtmlError, UsageError
from ..model import page_id_for  # noqa: F401 - where the capture's callers import it from
from .screenshots import SOURCE_PREFIX, new_temp_folder
from .sniff import SNIFF_BYTES, binary_verdict

HTML_SUFFIXES = (".html", ".htm", ".xhtml", ".html.gz", ".htm.gz", ".xhtml.gz")
MAX_DOCUMENT_BYTES = 64 << 20
"""The largest local page read (after decompression): far above any real page (the article
benchmark's largest is under 2 MB), far below what would strain this process."""
_UTF8_BOM = b"\xef\xbb\xbf"


@dataclass(slots=True)
class PageSource:
    """A resolved source: what the capture records, and what the browser opens."""

    url: str
    """The recorded URL: the http(s) URL as given, or the file URI of the original local file."""
    navigate_url: str
    """The URL the browser opens (a temporary file's URI for gzipped input)."""
    is_file: bool
    temp_dir: Path | None = None
    """A temporary folder to delete after the capture, if one was made."""

    def cleanup(self) -> None:
        if self.temp_dir is not None:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None


def is_url(source: str | Path) -> bool:
    return isinstance(source, str) and bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", source))


def url_problem(url: str) -> str | None:
    """Why no browser could open ``url`` (``"[zz]"``, port 99999 or 0, no host), or ``None``."""
    try:
        parts = urlsplit(url)
        port = parts.port  # urlsplit checks the port only when asked
    except ValueError as err:
        return f"not a valid URL ({err})"
    if parts.scheme.lower() in ("http", "https"):
        if not parts.hostname:
            return "URL has no host name"
        if port == 0:
            return "not a valid URL (port 0)"
    return None


def replayed_source(url: str) -> PageSource:
    """The page a WARC replay renders: an http(s) URL with a host, never looked up (every
    request is answered from the archive), never a ``file:`` URL (Chromium would open it from
    this machine's disk, outside the archive).

    Raises :class:`~wps.errors.UsageError` for any other URL.
    """
    problem = url_problem(url) if is_url(url) else "not a URL"
    if problem is None and urlsplit(url).scheme.lower() not in ("http", "https"):
        problem = "a replayed page needs an http(s) URL"
    if problem:
        raise UsageError(f"{url}: {problem}")
    return PageSource(url=url, navigate_url=url, is_file=False)


def prepare_source(source: str | Path, *, allow_private: bool) -> PageSource:
    """:func:`resolve_source`, then the address guard for a web page: everything that refuses a
    source, done before a browser starts (a refused source costs no Chromium).

    Raises what :func:`resolve_source` raises, and :class:`~wps.errors.BlockedTargetError` or
    :class:`~wps.errors.NetworkError` from :func:`~.addresses.check_url`.
    """
    from .addresses import check_url

    resolved = resolve_source(source)
    if not resolved.is_file:
        check_url(resolved.url, allow_private=allow_private)
    return resolved


def resolve_source(source: str | Path) -> PageSource:
    """Check ``source`` and prepare what the browser should open.

    Raises :class:`~wps.errors.UsageError` for an unsupported or malformed URL and
    :class:`~wps.errors.InputFileError` for a missing, unreadable, oversized or non-HTML local
    file.
    """
    if is_url(source):
        text = str(source)
        problem = url_problem(text)
        if problem:
            raise UsageError(f"{text}: {problem}")
        parts = urlsplit(text)
        scheme = parts.scheme.lower()
        if scheme in ("http", "https"):
            return PageSource(url=text, navigate_url=text, is_file=False)
        if scheme == "file":
            return _local_file(Path(parts.path))
        raise UsageError(f"{text}: unsupported URL scheme {scheme!r} (use http, https or a file)")
    return _local_file(Path(source))


def _local_file(path: Path) -> PageSource:
    name = path.name.lower()
    if not path.exists():
        hint = "" if "/" in str(path) else " (a URL needs http:// or https://)"
        raise InputFileError(f"{path}: no such file{hint}")
    if not path.is_file():
        raise InputFileError(f"{path}: not a file")
    if not name.endswith(HTML_SUFFIXES):
        raise InputFileError(f"{path}: not an HTML file (expected {', '.join(HTML_SUFFIXES)})")
    path = path.resolve()
    url = path.as_uri()
    raw = _read_capped(path, gzipped=name.endswith(".gz"))
    check_body(url, raw)  # here, where the bytes are read anyway: before a browser starts
    needs_bom = _needs_utf8_bom(raw)
    if not name.endswith(".gz") and not needs_bom:
        return PageSource(url=url, navigate_url=url, is_file=True)
    temp_dir = new_temp_folder(SOURCE_PREFIX)
    target = temp_dir / "page.html"
    target.write_bytes((_UTF8_BOM + raw) if needs_bom else raw)
    return PageSource(url=url, navigate_url=target.as_uri(), is_file=True, temp_dir=temp_dir)


def _read_capped(path: Path, *, gzipped: bool) -> bytes:
    """The file's bytes (decompressed), read as a stream that stops past
    :data:`MAX_DOCUMENT_BYTES`: a 1 MB gzip bomb holding gigabytes costs at most that much."""
    try:
        with (gzip.open(path, "rb") if gzipped else path.open("rb")) as stream:
            raw = stream.read(MAX_DOCUMENT_BYTES + 1)
    except (OSError, EOFError, zlib.error) as err:  # gzip.BadGzipFile is an OSError
        raise InputFileError(f"{path}: unreadable ({err})") from None
    if len(raw) > MAX_DOCUMENT_BYTES:
        what = "decompresses to" if gzipped else "holds"
        raise InputFileError(f"{path}: too large, {what} more than "
                             f"{MAX_DOCUMENT_BYTES >> 20} MiB of HTML")
    return raw


_HTTP_CHARSET = re.compile(r"""charset\s*=\s*["']?([\w.:-]+)""", re.IGNORECASE)
_WHATWG_CODECS = {
    **dict.fromkeys(("ascii", "us-ascii", "latin1", "l1", "iso-8859-1", "iso8859-1",
                     "iso_8859-1", "cp819", "ibm819", "windows-1252", "x-cp1252"), "cp1252"),
    **dict.fromkeys(("iso-8859-9", "latin5", "l5", "windows-1254"), "cp1254"),
    **dict.fromkeys(("tis-620", "iso-8859-11", "windows-874"), "cp874"),
    **dict.fromkeys(("gb2312", "gbk", "x-gbk", "gb_2312-80", "chinese", "csgb2312"), "gb18030"),
    **dict.fromkeys(("shift_jis", "shift-jis", "sjis", "ms_kanji", "x-sjis", "windows-31j",
                     "csshiftjis"), "cp932"),
    **dict.fromkeys(("euc-kr", "ks_c_5601-1987", "windows-949", "korean"), "cp949"),
    **dict.fromkeys(("big5", "big5-hkscs", "x-x-big5", "cn-big5"), "big5hkscs"),
}
"""Labels the WHATWG Encoding Standard maps to another codec than Python's of the same name
(ISO-8859-1 is decoded as windows-1252 by every browser, and so on); other labels are looked up
in Python's codecs."""


def html_in_utf8(raw: bytes, content_type: str) -> bytes:
    """A stored page's bytes as UTF-8 where its HTTP ``Content-Type`` names another charset.

    A crawl stores a page's bytes and its header apart. A browser takes the header's charset
    over the page's own ``<meta charset>``; written to a file alone, the page would be read by
    its meta tag or by Chromium's guess, and a template that names UTF-8 on a windows-1251 site
    sent its prose to the detector as mojibake. As for local files (:func:`_needs_utf8_bom`),
    bytes that are valid UTF-8 stay as they are, and so do bytes labelled with an unknown
    charset."""
    match = _HTTP_CHARSET.search(content_type)
    if match is None or raw.startswith((_UTF8_BOM, b"\xff\xfe", b"\xfe\xff")):
        return raw
    try:
        raw.decode("utf-8")
        return raw
    except UnicodeDecodeError:
        pass
    label = match.group(1).lower()
    try:
        text = raw.decode(_WHATWG_CODECS.get(label, label), errors="replace")
    except LookupError:
        return raw
    return _UTF8_BOM + text.encode("utf-8")


def _needs_utf8_bom(raw: bytes) -> bool:
    """True for non-ASCII UTF-8 without a BOM, whatever charset it declares."""
    if raw.startswith(_UTF8_BOM) or raw.isascii():
        return False
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def check_body(url: str, body: bytes) -> None:
    """Refuse an empty main document, or one that is binary whatever its label says.

    Chromium renders any bytes served as text/html; a PDF or random bytes taken as a page would
    give junk segments (and random bytes can cost gigabytes of layout). The whole body is
    judged, not its head: 4 KB of HTML followed by megabytes of random bytes is binary too.
    """
    head = body[:SNIFF_BYTES].lstrip(_UTF8_BOM)
    if not head.strip():
        raise EmptyPageError(f"{url}: the page is empty (no content in the document)")
    verdict = binary_verdict(body)
    if verdict is not None:
        raise NotHtmlError(f"{url}: not an HTML page (the body is {verdict})")
