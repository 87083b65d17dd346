"""Peak memory of a real server (`python -m app.server`) under the largest bodies and
the largest request heads.

    .venv/bin/python bench/limits.py [--clients 8] [--requests 50] [--unbounded-heads]

Starts a server on a free loopback port with a throw-away SQLite database, then reads
its resident memory (VmRSS, and the peak VmHWM) from /proc:
1. at rest;
2. while `--clients` clients each send `--requests` bodies of exactly MAX_BODY_BYTES
   (the largest a request may have; answered 201);
3. while the same clients each announce a 50 MB body (refused 413 before any of it is
   read; then they try to send 1 MB of it);
4. while the same clients at once each send a request head with one 50 MiB header, with
   5,000 headers, or with one 1 MiB header (refused 431 past MAX_HEADER_BYTES or
   MAX_HEADERS; each client stops sending when the server closes). Each phase is read
   at rest before, at its peak (VmHWM), and 1 s after.

`--unbounded-heads` starts the server with both head limits at 10^9, as uvicorn is
without them. Only 127.0.0.1 is ever addressed; every socket has a timeout, and a phase
stops after `PHASE_SECONDS`.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import httpx

from app.config import Settings

ROOT = Path(__file__).resolve().parents[1]
HUGE = 50 * 1024 * 1024
PHASE_SECONDS = 120.0
PIECE = 1024 * 1024


def memory_kib(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            fields[name] = int(value.split()[0])
    return fields


def reset_peak(pid: int) -> None:
    """Start VmHWM afresh (Linux: "5" to clear_refs), so a peak is this phase's own and
    not start-up's (loading the public seeds lists, say)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


async def at_the_limit(url: str, limit: int, clients: int, requests: int) -> list[int]:
    head, tail = b'{"name": "ada"', b"}"
    body = head + b" " * (limit - len(head) - len(tail)) + tail
    statuses: list[int] = []

    async def client() -> None:
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            for _ in range(requests):
                answer = await http.post(
                    "/api/v1/players", content=body, headers={"Content-Type": "application/json"}
                )
                statuses.append(answer.status_code)

    await asyncio.gather(*(client() for _ in range(clients)))
    return statuses


def over_the_limit(port: int, clients: int) -> list[bytes]:
    """Each client announces a 50 MiB body and tries to send 1 MiB of it; the answer
    (read first: the server answers before reading and closes) is its status line."""
    answers = []
    for _ in range(clients):
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(
                b"POST /api/v1/players HTTP/1.1\r\nHost: bench\r\n"
                b"content-type: application/json\r\n" + f"content-length: {HUGE}\r\n\r\n".encode()
            )
            answers.append(sock.recv(200).split(b"\r\n", 1)[0])
            with contextlib.suppress(OSError):  # the server has closed: sending may fail
                sock.sendall(b" " * 1_000_000)
    return answers


def head_with_header(size: int) -> Callable[[], bytes]:
    def head() -> bytes:
        return b"GET /health HTTP/1.1\r\nHost: bench\r\nx-big: " + b"a" * size + b"\r\n\r\n"

    return head


def head_with_headers(count: int) -> Callable[[], bytes]:
    def head() -> bytes:
        many = b"".join(b"x-h%d: 1\r\n" % i for i in range(count))
        return b"GET /health HTTP/1.1\r\nHost: bench\r\n" + many + b"\r\n"

    return head


def send_head(port: int, head: bytes, deadline: float) -> str:
    """Sends `head` a MiB at a time until it is all sent or the server closes, then reads
    the status line (or says why there is none)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        try:
            for start in range(0, len(head), PIECE):
                if time.monotonic() > deadline:
                    return "stopped: out of time"
                sock.sendall(head[start : start + PIECE])
        except OSError:
            pass  # closed by the server mid-head: its answer may still be there to read
        try:
            return sock.recv(200).split(b"\r\n", 1)[0].decode() or "closed, no answer"
        except OSError as exc:
            return f"no answer ({type(exc).__name__})"


def head_attack(pid: int, port: int, clients: int, head: Callable[[], bytes]) -> str:
    """`clients` connections at once each sending `head()`: RSS before, peak, 1 s after."""
    time.sleep(1)
    reset_peak(pid)
    before = memory_kib(pid)["VmRSS"]
    deadline = time.monotonic() + PHASE_SECONDS
    data = head()
    with ThreadPoolExecutor(clients) as pool:
        futures = [pool.submit(send_head, port, data, deadline) for _ in range(clients)]
        wait(futures, timeout=PHASE_SECONDS + 60)
        answers = sorted({f.result() if f.done() else "stuck" for f in futures})
    peak = memory_kib(pid)["VmHWM"]
    time.sleep(1)
    after = memory_kib(pid)["VmRSS"]
    return (
        f"answered {answers}: RSS before {before / 1024:.1f} MiB, peak {peak / 1024:.1f} "
        f"MiB (+{(peak - before) / 1024:.1f}), after {after / 1024:.1f} MiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--requests", type=int, default=50)
    parser.add_argument("--unbounded-heads", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        env = {
            **os.environ,
            "DATA_DIR": tmp,
            "DATABASE_URL": f"sqlite+aiosqlite:///{tmp}/bench.sqlite3",
            "DAILY_PREPARE_AHEAD": "false",
            "SOLVABLE_PREPARE_AHEAD": "false",
        }
        if args.unbounded_heads:
            env |= {"MAX_HEADER_BYTES": str(10**9), "MAX_HEADERS": str(10**9)}
        server = subprocess.Popen(
            [sys.executable, "-m", "app.server", "--port", str(port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        url = f"http://127.0.0.1:{port}"
        try:
            for _ in range(300):
                try:
                    if httpx.get(f"{url}/health").status_code == 200:
                        break
                except httpx.HTTPError:
                    time.sleep(0.1)
            limit = Settings().max_body_bytes
            reset_peak(server.pid)
            rest = memory_kib(server.pid)
            print(f"at rest: RSS {rest['VmRSS'] / 1024:.1f} MiB")
            started = time.monotonic()
            statuses = asyncio.run(at_the_limit(url, limit, args.clients, args.requests))
            after = memory_kib(server.pid)
            print(
                f"{len(statuses)} bodies of {limit} bytes from {args.clients} clients "
                f"({time.monotonic() - started:.1f} s, statuses {sorted(set(statuses))}): "
                f"RSS {after['VmRSS'] / 1024:.1f} MiB, peak {after['VmHWM'] / 1024:.1f} MiB "
                f"(+{(after['VmHWM'] - rest['VmRSS']) / 1024:.1f} MiB over rest)"
            )
            reset_peak(server.pid)
            answers = over_the_limit(port, args.clients)
            huge = memory_kib(server.pid)
            print(
                f"{args.clients} bodies announced at 50 MiB (1 MiB sent each), answered "
                f"{sorted(set(a.decode() for a in answers))}: RSS {huge['VmRSS'] / 1024:.1f} "
                f"MiB, peak {huge['VmHWM'] / 1024:.1f} MiB"
            )
            for name, head in (
                ("one 50 MiB header", head_with_header(HUGE)),
                ("5,000 headers", head_with_headers(5_000)),
                ("one 1 MiB header", head_with_header(1024 * 1024)),
            ):
                outcome = head_attack(server.pid, port, args.clients, head)
                print(f"{args.clients} heads with {name}, at once: {outcome}")
        finally:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()


if __name__ == "__main__":
    main()
