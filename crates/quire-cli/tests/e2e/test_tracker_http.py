"""`quire serve --http`: the same tool over Streamable HTTP, driven by the
official Python MCP client's Streamable HTTP transport."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping, Sequence

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import TOOL, changed, snapshot

pytestmark = pytest.mark.anyio

AMAZON = "trackers/2026-02-05-amazon.md"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_listening(process: subprocess.Popen, port: int, log: Path, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"quire serve --http exited with {process.returncode}:\n{log.read_text()}", pytrace=False)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    pytest.fail(f"quire serve --http did not listen on port {port} within {timeout}s:\n{log.read_text()}",
                pytrace=False)


def stop(process: subprocess.Popen) -> None:
    """Ctrl-C (the server's documented way to stop), then a kill if it lingers."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def serving_http(quire: Path, root: Path, log: Path, tools: str, args: Sequence[str] = (),
                 env: Mapping[str, str] | None = None) -> Iterator[tuple[str, subprocess.Popen]]:
    """`quire serve --root ROOT --tools TOOLS --http ... ARGS` on a free
    loopback port, listening; yields its MCP URL and process, and stops it
    after. `env` goes over this process's environment."""
    port = free_port()
    with open(log, "wb") as errlog:
        process = subprocess.Popen(
            [str(quire), "serve", "--root", str(root), "--tools", tools, "--http", f"127.0.0.1:{port}", *args],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=errlog,
            env={**os.environ, "RUST_LOG": os.environ.get("RUST_LOG", "info"), **(env or {})},
        )
    try:
        wait_until_listening(process, port, log)
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        stop(process)


@pytest.fixture
def http_server(quire: Path, vault: Path, tmp_path: Path) -> Iterator[tuple[str, subprocess.Popen]]:
    with serving_http(quire, vault, tmp_path / "server-http.stderr", "tracker") as served:
        yield served


async def test_streamable_http_lists_and_calls_the_tool(http_server, vault: Path):
    url, process = http_server
    before = snapshot(vault)
    async with streamable_http_client(url) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=30) as session:
            initialized = await session.initialize()
            assert initialized.server_info.name == "quire"
            tools = (await session.list_tools()).tools
            assert [tool.name for tool in tools] == [TOOL]
            assert tools[0].input_schema["additionalProperties"] is False

            result = await session.call_tool(TOOL, {"tracker_path": AMAZON, "target_status": "Resume Written"})
            assert result.is_error is False, result
            value = result.structured_content
            assert value["action"] == "updated" and value["success"] is True, value
            assert value["guardrail_check_passed"] is True

            result = await session.call_tool(TOOL, {"tracker_path": "trackers/missing.md", "target_status": "Applied"})
            assert result.is_error is True
            assert result.structured_content["error"]["code"] == "FILE_NOT_FOUND"
    assert b"\nstatus: Resume Written\n" in (vault / AMAZON).read_bytes()
    assert changed(before, snapshot(vault)) == {AMAZON}

    # Ctrl-C stops the server cleanly.
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=10) == 0
