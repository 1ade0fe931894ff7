"""The kiln's write tools through the official Python MCP client over
stdio: left out with `--writes deny`, and with `--writes allow` what an agent gets back
for a create, an update on a fresh and a stale digest, and a delete with
backlinks; nothing is written where a call is refused."""

from __future__ import annotations

from pathlib import Path
from typing import AsyncIterator

import pytest
from mcp import MCPError

from conftest import Quire, changed, snapshot, stdio_session

pytestmark = pytest.mark.anyio

WRITES = {"create_note", "update_note", "edit_note", "delete_note"}


@pytest.fixture
async def writer(quire: Path, vault: Path, tmp_path: Path) -> AsyncIterator[Quire]:
    args = ("--tools", "kiln", "--writes", "allow")
    async with stdio_session(quire, vault, tmp_path / "server.stderr", args=args) as session:
        yield session


async def test_with_writes_denied_the_tools_are_not_offered(quire: Path, vault: Path, tmp_path: Path):
    args = ("--tools", "kiln", "--writes", "deny")
    async with stdio_session(quire, vault, tmp_path / "server.stderr", args=args) as session:
        names = {tool.name for tool in (await session.session.list_tools()).tools}
        assert not names & WRITES
        with pytest.raises(MCPError) as refused:
            await session.session.call_tool("create_note", {"path": "x", "content": "x"})
        assert refused.value.code == -32602, refused.value.error  # as for any tool not offered
    assert not (vault / "x.md").exists()


async def test_write_tools_are_annotated_for_hosts(writer: Quire):
    tools = {tool.name: tool for tool in (await writer.session.list_tools()).tools}
    assert WRITES <= set(tools)
    for name in WRITES:
        annotations = tools[name].annotations
        assert annotations.read_only_hint is False
        assert tools[name].meta == {"category": "manipulate"}
    assert tools["update_note"].annotations.destructive_hint is True
    assert tools["delete_note"].annotations.destructive_hint is True
    assert tools["create_note"].annotations.destructive_hint is False


async def test_create_update_and_delete_a_note(writer: Quire):
    root = writer.root
    created = await writer.ok_for(
        {"path": "ideas/Fresh idea", "content": "# Idea\n\nSee [[job-search]].\n", "frontmatter": {"status": "new"}},
        tool="create_note",
    )
    assert created["path"] == "ideas/Fresh idea.md"
    assert (root / "ideas" / "Fresh idea.md").read_text(encoding="utf-8") == (
        "---\nstatus: new\n---\n# Idea\n\nSee [[job-search]].\n"
    )
    message = await writer.error_for("VALIDATION_ERROR", {"path": "ideas/Fresh idea", "content": "again"},
                                     tool="create_note")
    assert "update_note" in message

    read = await writer.ok_for({"path": "ideas/Fresh idea"}, tool="read_note")
    assert read["sha256"] == created["sha256"]
    updated = await writer.ok_for(
        {"path": "ideas/Fresh idea", "frontmatter": {"status": "done", "tags": ["x"]},
         "expected_sha256": read["sha256"]},
        tool="update_note",
    )
    assert updated["updated"] == ["frontmatter"]
    # The replace is whole: what it changed is named (issue 25).
    assert updated["changed_properties"] == ["status", "tags"] and "removed_properties" not in updated
    assert (root / "ideas" / "Fresh idea.md").read_text(encoding="utf-8") == (
        "---\nstatus: done\ntags:\n  - x\n---\n# Idea\n\nSee [[job-search]].\n"
    )
    stale = await writer.error_for(
        "VALIDATION_ERROR",
        {"path": "ideas/Fresh idea", "content": "lost?\n", "expected_sha256": read["sha256"]},
        tool="update_note",
    )
    assert "changed since it was read" in stale
    assert "lost?" not in (root / "ideas" / "Fresh idea.md").read_text(encoding="utf-8")

    target = await writer.ok_for({"path": "notes/job-search"}, tool="read_metadata")
    assert "ideas/Fresh idea.md" in target["backlinks"]
    (root / "Pointer.md").write_text("[[Fresh idea]]\n", encoding="utf-8")
    await writer.ok_for({"path": "Pointer"}, tool="read_metadata")  # indexed
    deleted = await writer.ok_for({"path": "ideas/Fresh idea"}, tool="delete_note")
    assert deleted["deleted"] is True and deleted["trashed_to"] == ".trash/Fresh idea.md"
    assert deleted["backlinks"] == ["Pointer.md"] and deleted["backlink_count"] == 1
    assert (root / ".trash" / "Fresh idea.md").exists()
    assert not (root / "ideas" / "Fresh idea.md").exists()
    listed = await writer.ok_for({"limit": 1000}, tool="list_notes")
    assert "ideas/Fresh idea.md" not in [note["path"] for note in listed["notes"]]
    missing = await writer.error_for("FILE_NOT_FOUND", {"path": "ideas/Fresh idea"}, tool="delete_note")
    assert "no note" in missing


@pytest.mark.parametrize(
    "tool, arguments, expected",
    [
        ("create_note", {"path": "../out", "content": "x"}, "climbs above"),
        ("create_note", {"path": ".obsidian/x", "content": "x"}, "hidden"),
        ("create_note", {"path": "x", "content": "---\na: 1\n---\n", "frontmatter": {"b": 1}}, "frontmatter block"),
        ("update_note", {"path": "notes/job-search"}, "nothing to change"),
        ("delete_note", {"path": ".trash/x"}, "hidden"),
    ],
)
async def test_refused_writes_write_nothing(writer: Quire, tool: str, arguments: dict, expected: str):
    before = {path: path.read_bytes() for path in writer.root.rglob("*") if path.is_file()}
    message = await writer.error_for("VALIDATION_ERROR", arguments, tool=tool)
    assert expected in message, message
    after = {path: path.read_bytes() for path in writer.root.rglob("*") if path.is_file()}
    assert after == before


async def test_a_tag_is_added_without_touching_anything_else(writer: Quire):
    """Issue 25: `set_properties` and `remove_properties` change single
    properties in place; comments, other properties and the body keep every
    byte; the note may be named as a wikilink."""
    note = writer.root / "ideas" / "Tagged.md"
    note.parent.mkdir(exist_ok=True)
    note.write_text("---\n# why: kept\naliases: [T] # mine\ntags: [a]\ndraft: true\n---\nBody [[x]]\n", encoding="utf-8")
    read = await writer.ok_for({"path": "[[Tagged]]"}, tool="read_note")
    assert read["path"] == "ideas/Tagged.md"
    updated = await writer.ok_for(
        {"path": "[[Tagged]]", "set_properties": {"tags": ["a", "b"]}, "remove_properties": ["draft"],
         "expected_sha256": read["sha256"]},
        tool="update_note",
    )
    assert updated["updated"] == ["properties"]
    assert updated["changed_properties"] == ["tags"] and updated["removed_properties"] == ["draft"]
    assert note.read_text(encoding="utf-8") == (
        "---\n# why: kept\naliases: [T] # mine\ntags:\n  - a\n  - b\n---\nBody [[x]]\n"
    )
    message = await writer.error_for(
        "VALIDATION_ERROR", {"path": "ideas/Tagged", "frontmatter": {}, "set_properties": {"x": 1}}, tool="update_note"
    )
    assert "cannot come with `set_properties`" in message


async def test_edit_note_changes_part_of_the_body_and_keeps_every_other_byte(writer: Quire):
    """Issue 28: edit_note's operations, each touching only its own bytes
    (a CRLF note stays CRLF), and its refusals, which write nothing."""
    note = writer.root / "edits" / "Plan.md"
    note.parent.mkdir()
    original = "---\r\ntags: [a] # kept\r\n---\r\n# Plan\r\nIntro.\r\n\r\n## Tasks\r\n- one\r\n\r\n## Notes\r\nA note.\r\n"
    note.write_bytes(original.encode())
    read = await writer.ok_for({"path": "edits/Plan"}, tool="read_note")
    edited = await writer.ok_for(
        {"path": "[[Plan]]", "operation": "insert_under_heading", "heading": "Tasks", "text": "- two",
         "expected_sha256": read["sha256"]},
        tool="edit_note",
    )
    assert edited["path"] == "edits/Plan.md" and edited["updated"] == ["body"]
    expected = original.replace("- one\r\n", "- one\r\n- two\r\n")
    assert note.read_bytes() == expected.encode()
    await writer.ok_for({"path": "edits/Plan", "operation": "replace_text", "old_text": "A note.", "text": "B note."},
                        tool="edit_note")
    await writer.ok_for({"path": "edits/Plan", "operation": "append", "text": "End."}, tool="edit_note")
    expected = expected.replace("A note.", "B note.") + "End.\r\n"
    assert note.read_bytes() == expected.encode()
    for arguments, message in [
        ({"operation": "insert_under_heading", "heading": "Todo", "text": "x"}, "has no heading `Todo`"),
        ({"operation": "replace_text", "old_text": "- ", "text": "x"}, "occurs 2 times"),
        ({"operation": "replace_section", "text": "x"}, "needs `heading`"),
        ({"operation": "append", "text": "x", "old_text": "y"}, "`old_text` goes with replace_text"),
        ({"operation": "append", "text": "x", "expected_sha256": read["sha256"]}, "changed since"),
    ]:
        refused = await writer.error_for("VALIDATION_ERROR", {"path": "edits/Plan", **arguments}, tool="edit_note")
        assert message in refused, refused
    assert note.read_bytes() == expected.encode()


async def test_move_note_refusals_change_nothing(writer: Quire):
    """Issue 28: a move onto an existing note, onto itself, into a hidden
    folder or out of the root is refused with what to do, and writes
    nothing; a missing note names the closest."""
    before = snapshot(writer.root)
    for arguments, message in [
        ({"path": "notes/job-search", "new_path": "README"}, "already exists"),
        ({"path": "notes/job-search", "new_path": "notes/job-search.md"}, "that is where it is"),
        ({"path": "notes/job-search", "new_path": ".hidden/x"}, "hidden"),
        ({"path": "notes/job-search", "new_path": "../x"}, "above the kiln root"),
    ]:
        refused = await writer.error_for("VALIDATION_ERROR", arguments, tool="move_note")
        assert message in refused, refused
    missing = await writer.error_for("FILE_NOT_FOUND", {"path": "notes/jobsearch", "new_path": "x"}, tool="move_note")
    assert "job-search" in missing
    assert changed(before, snapshot(writer.root)) == set()
