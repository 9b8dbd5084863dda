"""The shared test HTTP server writes nothing into captured stderr: a client that hangs up early
is normal (Chromium aborts downloads, closes pages), and other route errors go to the real stderr."""

from __future__ import annotations

import socket
import struct
import time


def _wait_for(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the server thread did not finish the request"
        time.sleep(0.01)


def test_a_client_hanging_up_is_not_reported(other_server, capsys):
    def endless(handler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.end_headers()
        while True:  # until the write fails: the client is gone
            handler.wfile.write(b"<p>more</p>" * 1000)
            handler.wfile.flush()

    other_server.routes["/endless"] = endless
    with socket.create_connection(("127.0.0.1", other_server.port)) as client:
        client.sendall(b"GET /endless HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        client.recv(1024)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # RST
    _wait_for(lambda: other_server.httpd.disconnects == 1)
    assert other_server.httpd.errors == []
    assert capsys.readouterr() == ("", "")


def test_a_failing_route_is_kept_but_not_in_captured_stderr(other_server, capsys):
    def broken(handler) -> None:
        raise ValueError("route bug")

    other_server.routes["/broken"] = broken
    with socket.create_connection(("127.0.0.1", other_server.port)) as client:
        client.sendall(b"GET /broken HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        client.recv(1024)  # the server closes the connection without an answer
    _wait_for(lambda: other_server.httpd.errors)
    assert "ValueError: route bug" in other_server.httpd.errors[0]
    assert other_server.httpd.disconnects == 0
    assert capsys.readouterr().err == ""
