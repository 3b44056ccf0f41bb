"""``--address`` is probed before ``ray.init``: a port nobody answers on, a server that is not a Ray
head, and a gRPC (HTTP/2) server, which passes. No Ray needed: the probe is plain sockets."""

from __future__ import annotations

import socket
import threading

import pytest

from evaluate import ray_backend


class _Server:
    """A one-connection TCP server on localhost that reads the client's first bytes and replies
    with ``reply`` (``None``: says nothing and keeps the connection open until stopped)."""

    def __init__(self, reply: bytes | None):
        self.reply = reply
        self.received = b""
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.port = self.sock.getsockname()[1]
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        connection, _ = self.sock.accept()
        with connection:
            connection.settimeout(5)
            try:
                while len(self.received) < len(ray_backend._PREFACE):
                    chunk = connection.recv(64)
                    if not chunk:
                        break
                    self.received += chunk
            except OSError:
                pass
            if self.reply is not None:
                connection.sendall(self.reply)
            self.done.wait(10)

    def close(self):
        self.done.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def server(request):
    s = _Server(request.param)
    yield s
    s.close()


@pytest.mark.parametrize("server", [bytes([0, 0, 0x18, 4, 0, 0, 0, 0, 0]) + b"\x00" * 24], indirect=True)
def test_a_grpc_server_passes_and_hears_the_http2_preface(server):
    ray_backend.probe_address(f"127.0.0.1:{server.port}")
    assert server.received == ray_backend._PREFACE


@pytest.mark.parametrize("server", [b"HTTP/1.0 400 Bad request version ('HTTP/2.0')\r\n\r\n"], indirect=True)
def test_a_web_server_is_not_a_ray_cluster(server):
    with pytest.raises(ValueError) as caught:
        ray_backend.probe_address(f"127.0.0.1:{server.port}")
    message = str(caught.value)
    assert message.startswith(f"--address 127.0.0.1:{server.port} is not a Ray cluster: ")
    assert "and it answered b'HTTP/1.0 '; give" in message and "\n" not in message


@pytest.mark.parametrize("server", [None], indirect=True)
def test_a_silent_server_is_not_a_ray_cluster(server, monkeypatch):
    monkeypatch.setattr(ray_backend, "CONNECT_TIMEOUT", 0.5)
    with pytest.raises(ValueError, match="is not a Ray cluster: .* and it sent nothing back; give the address"):
        ray_backend.probe_address(f"ray://127.0.0.1:{server.port}")


@pytest.mark.parametrize("server", [bytes([0, 0, 0, 1, 4, 0, 0, 0, 1])], indirect=True)
def test_another_http2_frame_first_is_refused(server):
    """A server's preface starts with SETTINGS (RFC 9113, 3.4); a HEADERS frame first is not a server's."""
    with pytest.raises(ValueError, match="is not a Ray cluster"):
        ray_backend.probe_address(f"127.0.0.1:{server.port}")


def test_a_closed_port_is_still_told_as_unreachable():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(ValueError, match=f"cannot reach a Ray cluster at --address 127.0.0.1:{port}"):
        ray_backend.probe_address(f"127.0.0.1:{port}")
