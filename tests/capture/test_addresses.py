"""The address guard's decisions, checked directly: no navigation, no socket, no lookup but
``localhost`` (from /etc/hosts); other names go through injected fake resolvers."""

from __future__ import annotations

import asyncio
import socket
from ipaddress import IPv4Address, IPv6Address, ip_address

import pytest

from wps.capture.addresses import (
    address_kind,
    check_host,
    check_host_async,
    check_url,
    host_address,
    is_internal,
    split_url,
)
from wps.errors import BlockedTargetError, NetworkError, UsageError

INTERNAL_HOSTS = [
    "127.0.0.1", "localhost", "0x7f000001", "2130706433", "0177.0.0.1", "127.1", "0x7f.1",
    "127.0.0.1.", "[::ffff:127.0.0.1]", "[::1]", "::1", "169.254.169.254", "10.0.0.1",
    "172.16.0.1", "192.168.1.1", "100.64.0.1", "224.0.0.1", "0.0.0.0", "240.0.0.1",
    "255.255.255.255", "fe80::1", "fc00::1", "2002:7f00:1::", "64:ff9b::7f00:1",
    "[fe80::1]", "192.0.2.1", "198.18.0.1", "fec0::1", "::7f00:1", "::", "%31%32%37.0.0.1",
    "\uff11\uff12\uff17\uff0e\uff10\uff0e\uff10\uff0e\uff11",  # full-width 127.0.0.1
]
PUBLIC_ADDRESSES = ["93.184.216.34", "8.8.8.8", "2606:4700::1", "2a00:1450:4001::1",
                    "::ffff:93.184.216.34", "64:ff9b::5db8:d822", "2002:5db8:d822::"]


def no_lookup(name: str) -> list[str]:
    raise AssertionError(f"numeric host {name!r} was looked up")


def fake_dns(table: dict[str, list[str]]):
    """A resolver that answers from ``table`` and fails like getaddrinfo for other names."""
    def resolve(name: str) -> list[str]:
        if name not in table:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return table[name]
    return resolve


# ------------------------------------------------------------------------------ host_address
@pytest.mark.parametrize("host, expected", [
    ("127.0.0.1", "127.0.0.1"), ("0x7f000001", "127.0.0.1"), ("0X7F000001", "127.0.0.1"),
    ("2130706433", "127.0.0.1"), ("0177.0.0.1", "127.0.0.1"), ("127.1", "127.0.0.1"),
    ("0x7f.1", "127.0.0.1"), ("127.0.1", "127.0.0.1"), ("127.0.0.1.", "127.0.0.1"),
    ("0", "0.0.0.0"), ("0x", "0.0.0.0"), ("0xa9.0376.43518", "169.254.169.254"),
    ("%31%32%37.0.0.1", "127.0.0.1"), ("[::ffff:127.0.0.1]", "::ffff:7f00:1"),
    ("[::1]", "::1"), ("::1", "::1"), ("[FE80::1]", "fe80::1"),
])
def test_host_address_reads_numbers_as_chromium_does(host, expected):
    assert host_address(host) == ip_address(expected)


@pytest.mark.parametrize("host", ["example.org", "localhost", "1.2.3.example", "0x7g",
                                  "xn--nxasmq6b.example", "foo.bar.", "a-0x1"])
def test_host_address_leaves_names_alone(host):
    assert host_address(host) is None


@pytest.mark.parametrize("host", ["256.0.0.1", "1.2.3.4.5", "4294967296", "1.256.0.1", "09",
                                  "example.09", "0x7g.1", "1..2", "[zz]", "[::1", "[fe80::1%eth0]",
                                  "a b", "a/b", "a@b", ""])
def test_host_address_rejects_invalid_hosts(host):
    with pytest.raises(ValueError):
        host_address(host)


# -------------------------------------------------------------------------------- is_internal
@pytest.mark.parametrize("address, kind", [
    ("127.0.0.1", "loopback"), ("::1", "loopback"), ("10.0.0.1", "private"),
    ("172.31.255.255", "private"), ("192.168.1.1", "private"), ("fc00::1", "private"),
    ("fd12:3456::1", "private"), ("169.254.169.254", "link-local"), ("fe80::1", "link-local"),
    ("224.0.0.1", "multicast"), ("ff02::1", "multicast"), ("0.0.0.0", "unspecified"),
    ("::", "unspecified"), ("240.0.0.1", "reserved"), ("255.255.255.255", "broadcast"),
    ("100.64.0.1", "carrier-grade NAT"), ("192.0.2.1", "documentation"),
    ("2001:db8::1", "documentation"), ("198.18.0.1", "benchmarking"),
    ("fec0::1", "site-local"), ("0.1.2.3", "this-network"),
    ("::ffff:127.0.0.1", "loopback"), ("::ffff:10.1.2.3", "private"),
    ("::7f00:1", "loopback"), ("2002:7f00:1::", "loopback"), ("2002:a9fe:a9fe::", "link-local"),
    ("64:ff9b::7f00:1", "loopback"), ("64:ff9b::a00:1", "private"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "loopback"),  # Teredo client 127.0.0.1
    ("::5db8:d822", "reserved"),  # IPv4-compatible: deprecated, even for a public IPv4
])
def test_internal_addresses_and_their_kinds(address, kind):
    assert is_internal(address)
    assert address_kind(ip_address(address)) == kind


@pytest.mark.parametrize("address", PUBLIC_ADDRESSES)
def test_public_addresses_are_not_internal(address):
    assert not is_internal(address)
    assert address_kind(address) is None


# ------------------------------------------------------------------------------- check_host
@pytest.mark.parametrize("host", INTERNAL_HOSTS)
def test_internal_hosts_are_refused_without_allow_private(host):
    resolve = None if host == "localhost" else no_lookup  # localhost: /etc/hosts
    with pytest.raises(BlockedTargetError) as caught:
        check_host(host, allow_private=False, resolve=resolve)
    message = str(caught.value)
    assert message.startswith(f"{host}: refused, ") and "(use --allow-private to allow)" in message
    assert "\n" not in message
    assert caught.value.exit_code == 18


@pytest.mark.parametrize("host", INTERNAL_HOSTS)
def test_internal_hosts_are_allowed_with_allow_private(host):
    resolve = None if host == "localhost" else no_lookup
    addresses = check_host(host, allow_private=True, resolve=resolve)
    assert addresses and all(isinstance(a, (IPv4Address, IPv6Address)) for a in addresses)
    if host == "localhost":
        assert all(a.is_loopback for a in addresses)


@pytest.mark.parametrize("host", PUBLIC_ADDRESSES + ["[2606:4700::1]"])
def test_public_numeric_hosts_are_allowed(host):
    assert check_host(host, allow_private=False, resolve=no_lookup) == [host_address(host)]


@pytest.mark.parametrize("host, kind", [
    ("127.0.0.1", "loopback"), ("10.0.0.1", "private"), ("169.254.169.254", "link-local"),
    ("224.0.0.1", "multicast"), ("240.0.0.1", "reserved"), ("0.0.0.0", "unspecified"),
])
def test_refusal_names_the_kind_of_address(host, kind):
    article = "an" if kind[0] in "aeiou" else "a"
    with pytest.raises(BlockedTargetError, match=f"{host} is {article} {kind} address"):
        check_host(host, allow_private=False, resolve=no_lookup)


def test_embedded_ipv4_is_named_in_the_refusal():
    with pytest.raises(BlockedTargetError) as caught:
        check_host("[::ffff:127.0.0.1]", allow_private=False)
    assert "(IPv4-mapped 127.0.0.1) is a loopback address" in str(caught.value)


def test_name_resolving_to_a_private_address_is_refused():
    resolve = fake_dns({"intranet.example": ["10.1.2.3"]})
    with pytest.raises(BlockedTargetError, match=r"^intranet\.example: refused, 10\.1\.2\.3 is a "
                                                 r"private address"):
        check_host("intranet.example", allow_private=False, resolve=resolve)
    assert check_host("intranet.example", allow_private=True, resolve=resolve) == \
        [IPv4Address("10.1.2.3")]


def test_name_with_one_private_address_among_public_ones_is_refused():
    resolve = fake_dns({"mixed.example": ["93.184.216.34", "2606:4700::1", "169.254.169.254"]})
    with pytest.raises(BlockedTargetError, match="169.254.169.254 is a link-local"):
        check_host("mixed.example", allow_private=False, resolve=resolve)


def test_name_with_public_addresses_is_allowed_and_keeps_their_order():
    resolve = fake_dns({"www.example": ["2606:4700::1", "93.184.216.34", "93.184.216.34"]})
    assert check_host("WWW.Example", allow_private=False, resolve=resolve) == \
        [IPv6Address("2606:4700::1"), IPv4Address("93.184.216.34")]


def test_resolver_answers_are_judged_like_hosts():
    resolve = fake_dns({"mapped.example": ["::ffff:192.168.0.1"]})
    with pytest.raises(BlockedTargetError, match="private address"):
        check_host("mapped.example", allow_private=False, resolve=resolve)


@pytest.mark.parametrize("resolve", [fake_dns({}), lambda name: [], lambda name: ["nonsense"]])
def test_name_that_does_not_resolve_is_a_network_error(resolve):
    with pytest.raises(NetworkError, match=r"^nowhere\.example: DNS lookup failed") as caught:
        check_host("nowhere.example", allow_private=True, resolve=resolve)
    assert caught.value.exit_code == 12 and "\n" not in str(caught.value)


@pytest.mark.parametrize("host", ["256.0.0.1", "[zz]", "a b", "evil.com/x", ""])
def test_invalid_hosts_are_refused_without_a_lookup(host):
    with pytest.raises(BlockedTargetError, match="is not a valid host"):
        check_host(host, allow_private=True, resolve=no_lookup)


def test_async_check_takes_a_coroutine_resolver():
    async def resolve(name: str) -> list[str]:
        return {"public.example": ["93.184.216.34"], "private.example": ["192.168.0.9"]}[name]

    async def scenario():
        allowed = await check_host_async("public.example", allow_private=False, resolve=resolve)
        with pytest.raises(BlockedTargetError, match="192.168.0.9 is a private"):
            await check_host_async("private.example", allow_private=False, resolve=resolve)
        with pytest.raises(BlockedTargetError, match="loopback"):
            await check_host_async("0x7f.1", allow_private=False, resolve=no_lookup)
        return allowed

    assert asyncio.run(scenario()) == [IPv4Address("93.184.216.34")]


# -------------------------------------------------------------------------------- check_url
@pytest.mark.parametrize("url", [
    "ftp://example.org/file", "file:///etc/passwd", "javascript:alert(1)",
    "data:text/html,<p>x</p>", "chrome://settings", "view-source:http://example.org/",
    "example.org", "//example.org/",
])
def test_check_url_refuses_other_schemes(url):
    with pytest.raises(UsageError, match="only http and https") as caught:
        check_url(url, allow_private=True, resolve=no_lookup)
    assert str(caught.value).startswith(f"{url}: ") and caught.value.exit_code == 2


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "https://[::1]:8443/x", "http://user:pw@10.0.0.1:8080/x",
    "HTTP://0x7f.1/", "http://127.0.0.1\\@example.org/", "http:127.0.0.1/",
    "http:/\\169.254.169.254/latest/meta-data/", " http://127.1/ ", "http://12\t7.0.0.1/",
    "http://169.254.169.254#@example.org/", "http://169.254.169.254?@example.org/",
])
def test_check_url_refuses_internal_hosts_however_written(url):
    with pytest.raises(BlockedTargetError) as caught:
        check_url(url, allow_private=False, resolve=no_lookup)
    assert str(caught.value).startswith(f"{url}: refused, ")
    assert "--allow-private" in str(caught.value)


def test_check_url_allows_public_and_private_with_allow_private():
    check_url("https://93.184.216.34/page", allow_private=False, resolve=no_lookup)
    check_url("http://[2606:4700::1]:8080/", allow_private=False, resolve=no_lookup)
    check_url("http://127.0.0.1:8000/", allow_private=True, resolve=no_lookup)
    check_url("http://www.example/", allow_private=False,
              resolve=fake_dns({"www.example": ["93.184.216.34"]}))


def test_check_url_userinfo_does_not_hide_the_host():
    """``http://10.0.0.1@public.example/`` goes to public.example; the reverse is refused."""
    resolve = fake_dns({"public.example": ["93.184.216.34"]})
    check_url("http://10.0.0.1@public.example/", allow_private=False, resolve=resolve)
    with pytest.raises(BlockedTargetError):
        check_url("http://public.example@10.0.0.1/", allow_private=False, resolve=resolve)


def test_check_url_without_a_host_is_a_usage_error():
    with pytest.raises(UsageError, match="no host"):
        check_url("http:///", allow_private=True, resolve=no_lookup)


def test_split_url_reads_the_host_as_chromium_does():
    assert split_url("http://a.example\\@b.example/") == ("http", "a.example")
    assert split_url("HTTPS://user@[::1]:443/path") == ("https", "[::1]")
    assert split_url("http:example.org") == ("http", "example.org")
    assert split_url("mailto:x@example.org") == ("mailto", "")
