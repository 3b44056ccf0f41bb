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


class _FakeRay:
    """Just enough of the ``ray`` module for :func:`ray_backend.start_ray` joining a cluster."""

    def __init__(self, cpus: float, fail: str | None = None):
        self.cpus, self.fail, self.calls = cpus, fail, []

    def is_initialized(self):
        return False

    def init(self, **kwargs):
        self.calls.append(("init", kwargs.get("address")))
        if self.fail:
            raise ConnectionError(self.fail)

    def cluster_resources(self):
        return {"CPU": self.cpus}

    def shutdown(self):
        self.calls.append(("shutdown", None))


@pytest.fixture
def fake_ray(monkeypatch):
    def install(cpus: float, fail: str | None = None):
        fake = _FakeRay(cpus, fail)
        monkeypatch.setattr(ray_backend, "require_ray", lambda: fake)
        monkeypatch.setattr(ray_backend, "probe_address", lambda address: None)
        return fake

    return install


def test_joining_a_cluster_uses_its_cpus_and_refuses_more_workers(fake_ray):
    fake = fake_ray(1.0)
    assert ray_backend.start_ray("10.0.0.1:6379", None) == (fake, 1, True)
    assert ray_backend.start_ray("10.0.0.1:6379", 1)[1] == 1
    with pytest.raises(ValueError) as caught:
        ray_backend.start_ray("10.0.0.1:6379", 2)
    assert str(caught.value) == ("--workers 2, but the Ray cluster at 10.0.0.1:6379 has 1 CPU: give --workers 1 or "
                                 "fewer, or leave it out to use them all")  # fmt: skip
    assert fake.calls[-1] == ("shutdown", None)  # disconnected before refusing


def test_a_failed_join_names_the_token_setting(fake_ray, monkeypatch):
    monkeypatch.delenv("RAY_AUTH_MODE", raising=False)
    fake_ray(4.0, fail="Failed to connect to Ray cluster at 10.0.0.1:6379")
    with pytest.raises(ConnectionError, match=r"^Failed to connect to Ray cluster at 10.0.0.1:6379; if the cluster "
                       r"uses token authentication .* set RAY_AUTH_MODE=token in this shell"):  # fmt: skip
        ray_backend.start_ray("10.0.0.1:6379", None)
    monkeypatch.setenv("RAY_AUTH_MODE", "token")
    with pytest.raises(ConnectionError, match=r"^Failed to connect to Ray cluster at 10.0.0.1:6379$"):
        ray_backend.start_ray("10.0.0.1:6379", None)


@pytest.mark.parametrize("server", [b"\x15\x03\x03\x00\x02\x02\x46"], indirect=True)  # a TLS alert
def test_a_tls_cluster_is_probed_for_its_connection_only(server, monkeypatch):
    monkeypatch.setenv("RAY_USE_TLS", "1")
    ray_backend.probe_address(f"127.0.0.1:{server.port}")  # no preface sent, no refusal
    assert server.received == b""


def test_ray_init_keeps_the_tournaments_sigterm_handler(fake_ray):
    """ray.init replaces SIGTERM's handler with its own sys.exit (Ray 2.60); a handler installed
    before it, a tournament's, is put back, so SIGTERM still stops the run with its message."""
    import signal

    fake = fake_ray(2.0)

    def rays_own(signum, frame):
        raise SystemExit(signum)

    def init(**kwargs):
        fake.calls.append(("init", kwargs.get("address")))
        signal.signal(signal.SIGTERM, rays_own)

    fake.init = init

    def ours(signum, frame):
        raise KeyboardInterrupt

    before = signal.signal(signal.SIGTERM, ours)
    try:
        ray_backend.start_ray("10.0.0.1:6379", None)
        assert signal.getsignal(signal.SIGTERM) is ours
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        ray_backend.start_ray(None, 2)  # no handler of ours: Ray's stays
        assert signal.getsignal(signal.SIGTERM) is rays_own
    finally:
        signal.signal(signal.SIGTERM, before)
