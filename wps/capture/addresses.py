"""Which network addresses a page may reach: the guard in front of every connection.

An untrusted page must not reach this machine or its network (loopback services, the cloud
metadata endpoint 169.254.169.254, the office LAN). The guard parses a URL host the way the
WHATWG URL standard and Chromium do, so that ``2130706433``, ``0x7f.1`` or ``[::ffff:7f00:1]``
cannot pass for something else, resolves names, and refuses a host when *any* of its addresses
is internal. Callers connect to the checked addresses, never to the name again (a second lookup
could answer differently: DNS rebinding): :func:`connect_checked` does both for blocking code.
Only :func:`check_host`, :func:`check_url` and :func:`connect_checked` touch the network, through
the resolver they are given.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import socket
import unicodedata
from collections.abc import Awaitable, Callable, Iterable
from ipaddress import IPv4Address, IPv4Network, IPv6Address, IPv6Network, ip_address
from urllib.parse import unquote

from ..errors import BlockedTargetError, NetworkError, UsageError

IPAddress = IPv4Address | IPv6Address
Resolver = Callable[[str], Iterable[str | IPAddress] | Awaitable[Iterable[str | IPAddress]]]
"""``resolve(name)`` returns the name's addresses (or an awaitable of them, for the proxy)."""

ALLOW_HINT = "(use --allow-private to allow)"
WEB_SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}

_FORBIDDEN_HOST_CHARS = set(" #%/:<>?@[\\]^|\x7f")
"""WHATWG forbidden domain code points (besides controls): a host holding one is invalid."""
_IDNA_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})
_C0_AND_SPACE = "".join(map(chr, range(0x21)))
_DECIMAL = re.compile(r"[0-9]+")
_HEX = re.compile(r"0x[0-9a-f]*")
_OCTAL = re.compile(r"[0-7]+")
_HEX_DIGITS = re.compile(r"[0-9a-f]*")
_NAT64 = IPv6Network("64:ff9b::/96")

_NAMED_RANGES: dict[int, tuple[tuple[IPv4Network | IPv6Network, str], ...]] = {
    4: tuple((IPv4Network(net), kind) for net, kind in (
        ("255.255.255.255/32", "broadcast"),
        ("0.0.0.0/8", "this-network"),
        ("100.64.0.0/10", "carrier-grade NAT"),
        ("192.0.0.0/24", "reserved"),
        ("192.0.2.0/24", "documentation"),
        ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"),
        ("198.18.0.0/15", "benchmarking"),
    )),
    6: tuple((IPv6Network(net), kind) for net, kind in (
        ("100::/64", "discard-only"),
        ("64:ff9b:1::/48", "private"),
        ("2001:2::/48", "benchmarking"),
        ("2001:db8::/32", "documentation"),
        ("3fff::/20", "documentation"),
    )),
}
"""Ranges named here because the stdlib lumps them together as "private" or "not global"
(a message should say *which*), or because its verdict on them changed between Python
versions (100.64/10 is neither private nor global in 3.11; 64:ff9b:1::/48 is global there)."""


# ------------------------------------------------------------------------------ parsing hosts
def host_address(host: str) -> IPAddress | None:
    """The address a URL host stands for, as Chromium reads it; ``None`` for a name.

    Accepts bracketed or bare IPv6 and every IPv4 form the WHATWG URL standard canonicalises
    (``2130706433``, ``0x7f000001``, ``0177.0.0.1``, ``127.1``, ``0x7f.1``, trailing dot,
    percent-escapes, full-width digits). Raises ``ValueError`` for a host that is invalid in a
    URL (``256.1.1.1``, ``1.2.3.4.5``, ``[zz]``, forbidden characters): a browser would not
    load it, so it must not be taken for a name either.

    >>> host_address("0x7f000001"), host_address("[::ffff:127.0.0.1]")
    (IPv4Address('127.0.0.1'), IPv6Address('::ffff:7f00:1'))
    >>> host_address("example.org") is None
    True
    """
    return _parse_host(host)[1]


def _parse_host(host: str) -> tuple[str, IPAddress | None]:
    """``(name, None)`` for a name (normalised for lookup), ``(text, address)`` for a number."""
    if host.startswith("["):
        if not host.endswith("]"):
            raise ValueError("unclosed [")
        return host, _ipv6(host[1:-1])
    if ":" in host:  # a bare IPv6 address, as in urlsplit().hostname or CONNECT targets
        return host, _ipv6(host)
    name = unicodedata.normalize("NFKC", unquote(host)).translate(_IDNA_DOTS).lower()
    if not name or any(char in _FORBIDDEN_HOST_CHARS or char < " " for char in name):
        raise ValueError("not a valid host")
    parts = name.split(".")
    if len(parts) > 1 and parts[-1] == "":
        parts.pop()  # one trailing dot is allowed: "127.0.0.1." is 127.0.0.1
    if not (_DECIMAL.fullmatch(parts[-1]) or _HEX.fullmatch(parts[-1])):
        return name, None
    return name, IPv4Address(_ipv4_number(parts))


def _ipv6(text: str) -> IPv6Address:
    """Zone ids (``%eth0``) are refused: URLs cannot carry them, so no page can mean one."""
    if "%" in text:
        raise ValueError("zone ids are not allowed in URLs")
    return IPv6Address(text)


def _ipv4_number(parts: list[str]) -> int:
    """The WHATWG IPv4 parser: up to four parts; the last fills the bytes that are left."""
    if len(parts) > 4:
        raise ValueError("more than four parts")
    numbers = [_ipv4_part(part) for part in parts]
    if any(number > 255 for number in numbers[:-1]) or numbers[-1] >= 256 ** (5 - len(parts)):
        raise ValueError("a part is out of range")
    value = numbers[-1]
    for index, number in enumerate(numbers[:-1]):
        value += number << (8 * (3 - index))
    return value


def _ipv4_part(part: str) -> int:
    """One part: ``0x`` hex, a leading ``0`` octal, else decimal (``int()`` alone would also
    take signs, ``_`` and spaces)."""
    if part.startswith("0x"):
        digits, radix, pattern = part[2:], 16, _HEX_DIGITS
    elif len(part) > 1 and part.startswith("0"):
        digits, radix, pattern = part[1:], 8, _OCTAL
    else:
        digits, radix, pattern = part, 10, _DECIMAL
    if not pattern.fullmatch(digits):
        raise ValueError(f"{part!r} is not a number")
    return int(digits, radix) if digits else 0


# ---------------------------------------------------------------------------- judging addresses
def is_internal(address: IPAddress | str) -> bool:
    """True for anything but a public unicast internet address."""
    return address_kind(address) is not None


def address_kind(address: IPAddress | str) -> str | None:
    """What kind of non-public address this is ("loopback", "private", ...); ``None`` if public.

    IPv6 forms that carry an IPv4 address are judged by it first: the kernel or a gateway
    delivers ``::ffff:127.0.0.1`` (IPv4-mapped) and ``64:ff9b::7f00:1`` (NAT64) to 127.0.0.1,
    6to4 (2002::/16) and Teredo (2001::/32) tunnel to the embedded IPv4, and IPv4-compatible
    ``::a.b.c.d`` is a deprecated way of writing it; the stdlib calls some of these global.
    """
    address = ip_address(address) if isinstance(address, str) else address
    embedded = _embedded_ipv4(address)
    if embedded is not None:
        form, inner = embedded
        kinds = [kind for kind in map(_own_kind, inner) if kind]
        if kinds:
            return kinds[0]
        if form in ("IPv4-mapped", "NAT64"):
            return None  # it *is* that public IPv4 address
    return _own_kind(address)


def _own_kind(address: IPAddress) -> str | None:
    """The address's own kind, the stdlib's properties first, then the named ranges; anything
    the stdlib does not call global is refused as "reserved" (new special ranges included)."""
    if address.is_unspecified:
        return "unspecified"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if isinstance(address, IPv6Address) and address.is_site_local:
        return "site-local"  # fec0::/10, deprecated but still routed on some LANs
    for network, kind in _NAMED_RANGES[address.version]:
        if address in network:
            return kind
    if address.is_reserved:
        return "reserved"
    if address.is_private:
        return "private"
    if not address.is_global:
        return "reserved"
    return None


def _embedded_ipv4(address: IPAddress) -> tuple[str, list[IPv4Address]] | None:
    """The IPv4 address(es) an IPv6 address carries, with the name of the form."""
    if not isinstance(address, IPv6Address):
        return None
    if address.ipv4_mapped is not None:
        return "IPv4-mapped", [address.ipv4_mapped]
    if address.sixtofour is not None:
        return "6to4", [address.sixtofour]
    if address.teredo is not None:
        return "Teredo", list(address.teredo)
    if address in _NAT64:
        return "NAT64", [IPv4Address(int(address) & 0xFFFFFFFF)]
    if int(address) >> 32 == 0 and int(address) > 1:
        return "IPv4-compatible", [IPv4Address(int(address))]
    return None


def describe(address: IPAddress) -> str:
    """``127.0.0.1`` or, for an embedded form, ``::ffff:7f00:1 (IPv4-mapped 127.0.0.1)``."""
    embedded = _embedded_ipv4(address)
    if embedded is None:
        return str(address)
    form, inner = embedded
    return f"{address} ({form} {', '.join(map(str, inner))})"


def refusal(address: IPAddress) -> str | None:
    """Why ``address`` is refused (``refused, 10.0.0.1 is a private address (...)``), or None."""
    kind = address_kind(address)
    if kind is None:
        return None
    article = "an" if kind[0] in "aeiou" else "a"
    return f"refused, {describe(address)} is {article} {kind} address {ALLOW_HINT}"


# ----------------------------------------------------------------------------- checking hosts
def check_host(host: str, *, allow_private: bool,
               resolve: Callable[[str], Iterable[str | IPAddress]] | None = None
               ) -> list[IPAddress]:
    """The addresses a connection to ``host`` may use; raises if any of them is internal.

    Numbers are parsed, names resolved with ``resolve`` (default :func:`socket.getaddrinfo`).
    Raises :class:`BlockedTargetError` (internal address or invalid host) or
    :class:`NetworkError` (the name does not resolve). ``allow_private`` allows every address.
    """
    return _check(host, host, allow_private, resolve or resolve_name)


async def check_host_async(host: str, *, allow_private: bool,
                           resolve: Resolver | None = None) -> list[IPAddress]:
    """:func:`check_host` for an event loop: the default lookup runs off the loop, and
    ``resolve`` may be a coroutine function."""
    name, address = _host_or_refuse(host, host)
    if address is not None:
        return _judged(host, [address], allow_private)
    try:
        found = (resolve or _resolve_name_async)(name)
        if inspect.isawaitable(found):
            found = await found
    except (OSError, UnicodeError) as error:
        raise _lookup_failed(host, error) from None
    return _judged(host, _addresses(host, found), allow_private)


def check_url(url: str, *, allow_private: bool,
              resolve: Callable[[str], Iterable[str | IPAddress]] | None = None) -> None:
    """Refuse a page URL before the browser starts: http(s) only, then its host's addresses.

    The host is cut out as Chromium does (``\\`` is ``/``, ``http:host`` is ``http://host``), so
    ``http://127.0.0.1\\@example.com/`` is refused rather than taken for example.com.
    """
    try:
        scheme, host = split_url(url)
    except ValueError as error:  # a port no browser would open: a malformed URL
        raise UsageError(f"{url}: not a valid URL ({error})") from None
    if scheme not in WEB_SCHEMES:
        shown = f"{scheme}:" if scheme else "no scheme"
        raise UsageError(f"{url}: only http and https URLs can be rendered ({shown})")
    if not host:
        raise UsageError(f"{url}: the URL has no host")
    _check(url, host, allow_private, resolve or resolve_name)


def connect_checked(address: tuple[str, int],
                    timeout: float | object = socket._GLOBAL_DEFAULT_TIMEOUT,  # type: ignore
                    source_address: tuple[str, int] | None = None, *, allow_private: bool,
                    resolve: Callable[[str], Iterable[str | IPAddress]] | None = None
                    ) -> socket.socket:
    """A socket connected to ``(host, port)`` at one of the addresses :func:`check_host`
    allowed, never after a second lookup (the signature of :func:`socket.create_connection`,
    so that ``http.client`` can connect through it). Raises what :func:`check_host` raises,
    or the last connection's ``OSError``."""
    host, port = address
    failure: OSError = OSError(f"{host}: no address")
    for checked in check_host(host, allow_private=allow_private, resolve=resolve):
        try:
            return socket.create_connection((str(checked), port), timeout,  # type: ignore[arg-type]
                                            source_address)
        except OSError as error:
            failure = error
    raise failure


def split_url(url: str) -> tuple[str, str]:
    """``(scheme, host)`` of a URL, read with the WHATWG rules for special schemes: tabs and
    newlines dropped, ``\\`` as ``/``, any run of slashes before the authority, the last ``@``
    ending the user info. The host keeps IPv6 brackets; the port is dropped."""
    scheme, authority = _scheme_and_authority(url)
    if scheme not in WEB_SCHEMES:
        return scheme, ""
    return scheme, split_host_port(authority)[0]


def url_origin(url: str) -> tuple[str, str, int] | None:
    """``(scheme, host, port)`` of an http(s) URL, the way ``--same-origin`` compares them:
    the host canonical (:func:`canonical_host`), the port explicit or the scheme's. ``None`` for
    another scheme or an invalid host or port.

    >>> url_origin("HTTP://0x7f.1/a"), url_origin("https://Example.org:8443/")
    (('http', '127.0.0.1', 80), ('https', 'example.org', 8443))
    """
    scheme, authority = _scheme_and_authority(url)
    if scheme not in WEB_SCHEMES:
        return None
    try:
        host, port = split_host_port(authority, DEFAULT_PORTS[scheme])
        return scheme, canonical_host(host), port  # type: ignore[return-value]
    except ValueError:
        return None


def canonical_host(host: str) -> str:
    """A URL host as Chromium writes it in its requests: a number as its address (``0x7f.1`` is
    ``127.0.0.1``, IPv6 in brackets), a name in lower case, IDNA-encoded. Raises ``ValueError``
    for an invalid host."""
    name, address = _parse_host(host)
    if address is not None:
        return f"[{address}]" if address.version == 6 else str(address)
    try:
        return name.encode("idna").decode("ascii")
    except UnicodeError:  # a label the codec refuses: compared as written
        return name


def _scheme_and_authority(url: str) -> tuple[str, str]:
    """The lower-case scheme and, for http(s), the authority without user info."""
    text = re.sub(r"[\t\n\r]", "", url).strip(_C0_AND_SPACE)
    scheme, colon, rest = text.partition(":")
    scheme = scheme.lower()
    if not colon or not re.fullmatch(r"[a-z][a-z0-9+.-]*", scheme):
        return "", ""
    if scheme not in WEB_SCHEMES:
        return scheme, ""
    authority = re.split(r"[/\\?#]", rest.lstrip("/\\"), maxsplit=1)[0]
    return scheme, authority.rpartition("@")[2]


def split_host_port(authority: str, default_port: int | None = None) -> tuple[str, int | None]:
    """``("[::1]", 443)`` from ``[::1]:443``, ``("example.org", default_port)`` from a bare
    host. Raises ``ValueError`` for a port that is not 1 to 65535."""
    if authority.startswith("["):
        end = authority.find("]") + 1
        host, rest = (authority[:end], authority[end:]) if end else (authority, "")
    else:
        host, colon, port = authority.partition(":")
        rest = colon + port
    if not rest or rest == ":":
        return host, default_port
    if not rest.startswith(":") or not rest[1:].isdecimal() or not 0 < int(rest[1:]) < 65536:
        raise ValueError(f"bad port {rest[1:]!r}")
    return host, int(rest[1:])


def resolve_name(name: str) -> list[IPAddress]:
    """The name's addresses (IPv4 and IPv6, in the resolver's order, without repeats)."""
    infos = socket.getaddrinfo(name, None, type=socket.SOCK_STREAM)
    return _unique(ip_address(info[4][0]) for info in infos)


async def _resolve_name_async(name: str) -> list[IPAddress]:
    infos = await asyncio.get_running_loop().getaddrinfo(name, None, type=socket.SOCK_STREAM)
    return _unique(ip_address(info[4][0]) for info in infos)


def _check(label: str, host: str, allow_private: bool,
           resolve: Callable[[str], Iterable[str | IPAddress]]) -> list[IPAddress]:
    name, address = _host_or_refuse(label, host)
    if address is not None:
        return _judged(label, [address], allow_private)
    try:
        found = resolve(name)
    except (OSError, UnicodeError) as error:
        raise _lookup_failed(label, error) from None
    return _judged(label, _addresses(label, found), allow_private)


def _host_or_refuse(label: str, host: str) -> tuple[str, IPAddress | None]:
    try:
        return _parse_host(host)
    except ValueError:
        raise blocked(label, f"refused, {host!r} is not a valid host") from None


def _addresses(label: str, found: Iterable[str | IPAddress]) -> list[IPAddress]:
    try:
        addresses = _unique(ip_address(item) if isinstance(item, str) else item
                            for item in found)
    except ValueError as error:
        raise _lookup_failed(label, error) from None
    if not addresses:
        raise _lookup_failed(label, None)
    return addresses


def _judged(label: str, addresses: list[IPAddress], allow_private: bool) -> list[IPAddress]:
    """All of ``addresses``, or a refusal naming the first internal one: a name with one
    private address among public ones is refused (the browser may pick any of them)."""
    if not allow_private:
        for address in addresses:
            reason = refusal(address)
            if reason:
                raise blocked(label, reason)
    return addresses


def blocked(label: str, reason: str) -> BlockedTargetError:
    """``BlockedTargetError("<label>: <reason>")`` that also carries ``reason`` alone (the proxy
    reports the reason under its own label)."""
    error = BlockedTargetError(f"{label}: {reason}")
    error.reason = reason  # type: ignore[attr-defined]
    return error


def _lookup_failed(label: str, error: Exception | None) -> NetworkError:
    cause = getattr(error, "strerror", None) or ("no addresses" if error is None else str(error))
    return NetworkError(f"{label}: DNS lookup failed ({cause})")


def _unique(addresses: Iterable[IPAddress]) -> list[IPAddress]:
    return list(dict.fromkeys(addresses))
