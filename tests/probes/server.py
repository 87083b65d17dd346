"""A real server (`python -m app.server`, as `make run` starts it) on 127.0.0.1, for the
probes that need real connections."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """`python -m app.server` (uvicorn) in its own process group, so that `kill -9`
    takes the server and anything it started: the solver pool's processes."""

    what = "server"
    root = ROOT  # the tree whose app runs (a benchmark may run another commit's)

    def __init__(self, database_url: str, data_dir: Path, **env: str) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = data_dir / f"server-{self.port}.log"
        self.env = {
            **os.environ,
            "DATABASE_URL": database_url,
            "DATA_DIR": str(data_dir),
            "DAILY_PREPARE_AHEAD": "false",
            **env,
        }
        self.process: subprocess.Popen[bytes] | None = None

    def command(self) -> list[str]:
        host, port = "127.0.0.1", str(self.port)
        return [sys.executable, "-m", "app.server", "--host", host, "--port", port]

    def ready(self) -> bool:
        try:
            return httpx.get(f"{self.base_url}/health", timeout=1).status_code == 200
        except httpx.TransportError:
            return False

    def start(self, timeout: float = 30.0) -> None:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.command(),
                cwd=self.root,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the {self.what} exited: {self.log_path.read_text()[-2000:]}")
            if self.ready():
                return
            time.sleep(0.1)
        self.kill()
        raise RuntimeError(f"the {self.what} did not start: {self.log_path.read_text()[-2000:]}")

    def kill(self) -> None:
        """`kill -9` of the server's whole process group; waits until it is gone."""
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)
        self.process = None


class Worker(Server):
    """`python -m app.worker` (the background jobs without HTTP), in its own process
    group like a server; started once it says it takes jobs."""

    what = "worker"

    def command(self) -> list[str]:
        return [sys.executable, "-m", "app.worker"]

    def ready(self) -> bool:
        return "worker: taking jobs" in self.log_path.read_text()
