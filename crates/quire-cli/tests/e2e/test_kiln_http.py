"""The kiln over Streamable HTTP (`quire serve --tools kiln --http`), driven
by the official Python MCP client's HTTP transport: every kiln tool and the
notes as resources answer there as over stdio, and an edit made on disk
while the server runs is seen by the next call."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Iterator

import pytest
from mcp import ClientSession, MCPError
from mcp.client.streamable_http import streamable_http_client

from test_tracker_http import serving_http

pytestmark = pytest.mark.anyio


@pytest.fixture
def kiln_http(quire: Path, vault: Path, tmp_path: Path) -> Iterator[str]:
    with serving_http(quire, vault, tmp_path / "server-http.stderr", "kiln") as (url, _process):
        yield url


async def structured(session: ClientSession, tool: str, arguments: dict) -> dict:
    result = await session.call_tool(tool, arguments)
    assert result.is_error is False, result
    assert isinstance(result.structured_content, dict), result
    return result.structured_content


async def test_every_kiln_tool_and_the_resources_answer_over_http(kiln_http: str, vault: Path):
    async with streamable_http_client(kiln_http) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=30) as session:
            initialized = await session.initialize()
            assert initialized.capabilities.resources is not None
            names = sorted(tool.name for tool in (await session.list_tools()).tools)
            assert names == sorted(
                ["read_note", "read_metadata", "list_notes", "get_kiln_info", "text_search", "property_search",
                 "semantic_search", "find_links", "create_note", "update_note", "edit_note", "move_note", "delete_note"]  # --writes ask, the default
            )
            listed = await structured(session, "list_notes", {"limit": 1000})
            paths = [note["path"] for note in listed["notes"]]
            assert paths and paths == sorted(paths)
            first = paths[0]
            read_back = await structured(session, "read_note", {"path": first})
            assert read_back["content"] == (vault / first).read_text(encoding="utf-8")
            metadata = await structured(session, "read_metadata", {"path": first})
            assert metadata["path"] == first
            info = await structured(session, "get_kiln_info", {"detailed": True})
            assert info["note_count"] == listed["total"] and info["root_uri"] == "kiln:///"
            word = read_back["content"].split()[0]
            found = await structured(session, "text_search", {"query": word, "case": "sensitive", "context_lines": 0})
            assert found["total_matches"] >= 1
            assert all(note["path"] in paths for note in found["notes"])
            props = await structured(session, "property_search", {"properties": {"no-such-key": "x"}})
            assert props["notes"] == [] and props["total"] == 0

            resources = (await session.list_resources()).resources
            assert [resource.name for resource in resources] == paths
            contents = (await session.read_resource(resources[0].uri)).contents
            assert contents[0].text == read_back["content"]
            with pytest.raises(MCPError) as raised:
                await session.read_resource("kiln:///no/such/note.md")
            assert raised.value.code == -32002

            # An edit made while the server runs is seen by the next call.
            (vault / "Fresh from disk.md").write_text("a unique zebracorn\n", encoding="utf-8")
            for _ in range(200):
                found = await structured(session, "list_notes", {"limit": 1000})
                if "Fresh from disk.md" in [note["path"] for note in found["notes"]]:
                    break
                await asyncio.sleep(0.05)
            else:
                pytest.fail("the new note was not listed within 10 s")
            hit = await structured(session, "text_search", {"query": "zebracorn"})
            assert [note["path"] for note in hit["notes"]] == ["Fresh from disk.md"]
