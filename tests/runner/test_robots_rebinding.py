"""robots.txt is read from the address the guard checked: a resolver that answers a public
address first and loopback after (DNS rebinding) gets no request onto this machine. The lookup
is simulated at ``socket.getaddrinfo``; connections off loopback fail before a packet leaves."""

from __future__ import annotations

import errno
import socket
from ipaddress import ip_address

from wps.runner.politeness import RobotsRules

PUBLIC = "93.184.216.34"


def test_robots_txt_is_read_from_the_checked_address_only(other_server, monkeypatch):
    other_server.routes["/robots.txt"] = (200, "text/plain", b"User-agent: *\nDisallow:\n")
    lookups: list[str] = []
    connections: list[str] = []
    real_getaddrinfo, real_connect = socket.getaddrinfo, socket.socket.connect

    def rebinding(host, port, *args, **kwargs):
        if host != "rebind.test":
            return real_getaddrinfo(host, port, *args, **kwargs)
        lookups.append(PUBLIC if not lookups else "127.0.0.1")
        return real_getaddrinfo(lookups[-1], port, *args, **kwargs)

    def loopback_only(sock, address):
        connections.append(address[0])
        if not ip_address(address[0]).is_loopback:  # nothing leaves this machine
            raise OSError(errno.ENETUNREACH, "network unreachable (test)")
        return real_connect(sock, address)

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    monkeypatch.setattr(socket.socket, "connect", loopback_only)
    site = f"http://rebind.test:{other_server.port}"
    refusal = RobotsRules(allow_private=False).refusal(f"{site}/page")
    assert other_server.requests == []
    assert lookups == [PUBLIC] and connections == [PUBLIC]
    assert refusal.startswith(f"{site}/robots.txt unreachable (") and "\n" not in refusal
