"""Shared fixtures for the end-to-end tests: the `quire` binary, a private
copy of `examples/vault` per test, and an MCP client session over stdio.

The client is the official Python `mcp` package (pinned in requirements.txt),
so these tests check the server against an implementation nobody here wrote.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Mapping, Sequence

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[4]
EXAMPLE_VAULT = REPO / "examples" / "vault"
TOOL = "update_tracker_status"


def quire_bin() -> Path:
    """`$QUIRE_BIN`, else `<repo>/target/debug/quire`."""
    configured = os.environ.get("QUIRE_BIN")
    path = Path(configured) if configured else REPO / "target" / "debug" / "quire"
    if not path.is_file() or not os.access(path, os.X_OK):
        source = "QUIRE_BIN" if configured else "the default location"
        pytest.fail(
            f"the quire binary is missing at {path} ({source}); "
            "build it with `cargo build --bin quire` or set QUIRE_BIN",
            pytrace=False,
        )
    return path


@pytest.fixture(scope="session")
def quire() -> Path:
    return quire_bin()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    """A private copy of examples/vault; the tests may change it freely."""
    root = tmp_path / "vault"
    shutil.copytree(EXAMPLE_VAULT, root)
    return root


def snapshot(root: Path) -> dict[str, str]:
    """Every file and folder under `root` (relative, `/`-separated) with the
    SHA-256 of its bytes (`<dir>` for a folder). New, missing or changed
    entries, temporary files included, show up as a difference."""
    entries: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root).as_posix()
        if path.is_symlink():
            entries[relative] = "<symlink> " + os.readlink(path)
        elif path.is_dir():
            entries[relative] = "<dir>"
        else:
            entries[relative] = hashlib.sha256(path.read_bytes()).hexdigest()
    return entries


def changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    """Paths added, removed or changed between two snapshots."""
    return {path for path in before.keys() | after.keys() if before.get(path) != after.get(path)}


class Quire:
    """An initialized MCP client session with a `quire serve` over stdio, plus
    helpers that check the result envelope of every call."""

    def __init__(self, session: ClientSession, root: Path):
        self.session = session
        self.root = root

    async def call(self, arguments: dict[str, Any], *, tool: str = TOOL) -> tuple[bool, dict[str, Any]]:
        """Calls `tool` (the tracker tool unless told); returns (isError,
        structuredContent) after checking that the text content is the same
        JSON and that no absolute path of the workspace leaks into it."""
        result = await self.session.call_tool(tool, arguments)
        assert isinstance(result.structured_content, dict), result
        texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
        assert len(texts) == 1, result.content
        assert json.loads(texts[0]) == result.structured_content
        # The workspace's absolute path must not appear unless the caller
        # itself sent it (an echoed argument reveals nothing new).
        sent = json.dumps(arguments)
        for secret in {str(self.root), str(self.root.resolve())}:
            if secret not in sent:
                assert secret not in texts[0], f"absolute path leaked: {texts[0]}"
        return result.is_error, result.structured_content

    async def ok(self, **arguments: Any) -> dict[str, Any]:
        """A call that must produce a normal result (isError false)."""
        return await self.ok_for(arguments)

    async def ok_for(self, arguments: dict[str, Any], *, tool: str = TOOL) -> dict[str, Any]:
        is_error, value = await self.call(arguments, tool=tool)
        assert is_error is False, value
        assert "error" not in value or isinstance(value["error"], str), value
        return value

    async def error(self, code: str, **arguments: Any) -> str:
        """A call that must fail with a top-level error `code`; returns its message."""
        return await self.error_for(code, arguments)

    async def error_for(self, code: str, arguments: dict[str, Any], *, tool: str = TOOL) -> str:
        is_error, value = await self.call(arguments, tool=tool)
        assert is_error is True, value
        assert set(value) == {"error"}, value
        error = value["error"]
        assert set(error) == {"code", "message", "retryable"}, error
        assert error["code"] == code, error
        assert isinstance(error["message"], str) and error["message"], error
        assert isinstance(error["retryable"], bool), error
        if code != "INTERNAL_ERROR":
            assert error["retryable"] is False, error
        assert "Traceback" not in error["message"] and "panicked" not in error["message"], error
        return error["message"]


@asynccontextmanager
async def stdio_session(
    quire: Path,
    root: Path,
    stderr_path: Path,
    *,
    args: Sequence[str] = ("--tools", "tracker"),
    env: Mapping[str, str] | None = None,
) -> AsyncIterator[Quire]:
    """Spawns `quire serve --root ROOT ARGS...` (by default the tracker
    toolset alone) and yields an initialized session. `env` goes over the
    client's default environment (PATH, HOME, ...). The server's stderr (its
    logs) goes to `stderr_path`."""
    parameters = StdioServerParameters(
        command=str(quire),
        args=["serve", "--root", str(root), *args],
        env={"RUST_LOG": os.environ.get("RUST_LOG", "info"), **(env or {})},
    )
    with open(stderr_path, "a", encoding="utf-8") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30) as session:
                initialized = await session.initialize()
                assert initialized.server_info.name == "quire"
                assert initialized.capabilities.tools is not None
                await session.list_tools()  # caches the output schema the client validates against
                yield Quire(session, root)


@pytest.fixture
async def server(quire: Path, vault: Path, tmp_path: Path) -> AsyncIterator[Quire]:
    """`quire serve --root <copy of examples/vault> --tools tracker` over stdio, initialized."""
    async with stdio_session(quire, vault, tmp_path / "server.stderr") as session:
        yield session
