"""Frontmatter key order through the official Python MCP client over
stdio (issue 11): `create_note` and `update_note` write the properties in
the order the call gives them, byte for byte, and `read_metadata` sends a
note's properties back in the order its YAML writes them (what an agent
sees in the result's JSON text)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio


@pytest.fixture
async def writer(quire: Path, vault: Path, tmp_path: Path) -> AsyncIterator[Quire]:
    args = ("--tools", "kiln", "--writes", "allow")
    async with stdio_session(quire, vault, tmp_path / "server.stderr", args=args) as session:
        yield session


async def result_text(writer: Quire, tool: str, arguments: dict[str, Any]) -> str:
    """The JSON text of a successful call's result, as the server sent it."""
    result = await writer.session.call_tool(tool, arguments)
    assert result.is_error is False, result
    texts = [block.text for block in result.content if getattr(block, "type", None) == "text"]
    assert len(texts) == 1, result.content
    return texts[0]


async def test_create_and_update_write_keys_in_the_order_given(writer: Quire):
    note = writer.root / "order" / "Keys.md"
    # A Python dict keeps its insertion order, and the client sends it so.
    created = await writer.ok_for(
        {"path": "order/Keys", "content": "Body\n", "frontmatter": {"zeta": 1, "alpha": 2, "mid": ["b", "a"]}},
        tool="create_note",
    )
    assert created["path"] == "order/Keys.md"
    assert note.read_bytes() == b"---\nzeta: 1\nalpha: 2\nmid:\n  - b\n  - a\n---\nBody\n"

    updated = await writer.ok_for(
        {"path": "order/Keys", "frontmatter": {"mid": {"z": 1, "a": 2}, "zeta": "last", "alpha": None}},
        tool="update_note",
    )
    assert updated["updated"] == ["frontmatter"]
    assert note.read_bytes() == b'---\nmid: {"z": 1, "a": 2}\nzeta: last\nalpha:\n---\nBody\n'


async def test_read_metadata_gives_keys_in_the_order_of_the_yaml(writer: Quire):
    (writer.root / "Ordered.md").write_text(
        "---\nzeta: 1\nalpha: [x]\nmid: {z: 1, a: 2}\nbeta: true\n---\nBody\n", encoding="utf-8"
    )
    text = await result_text(writer, "read_metadata", {"path": "Ordered"})
    frontmatter = json.loads(text)["frontmatter"]
    assert list(frontmatter) == ["zeta", "alpha", "mid", "beta"]
    assert list(frontmatter["mid"]) == ["z", "a"]

    # What create_note wrote reads back in the order it was given.
    await writer.ok_for(
        {"path": "Round", "content": "", "frontmatter": {"status": "draft", "title": "T", "aliases": ["R"]}},
        tool="create_note",
    )
    text = await result_text(writer, "read_metadata", {"path": "Round"})
    assert list(json.loads(text)["frontmatter"]) == ["status", "title", "aliases"]
