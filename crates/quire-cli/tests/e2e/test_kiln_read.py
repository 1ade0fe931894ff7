"""`read_note` through the official Python MCP client over stdio, on a copy
of examples/vault with a few hostile additions: what an agent gets back for
each way of asking, and for each path it must not read."""

from __future__ import annotations

import asyncio
import hashlib
import os
from pathlib import Path
from typing import AsyncIterator

import pytest

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio

TOOL = "read_note"


@pytest.fixture
async def kiln(quire: Path, vault: Path, tmp_path: Path) -> AsyncIterator[Quire]:
    (vault / "notes" / "long.md").write_text("".join(f"line {n}\n" for n in range(1, 2501)), encoding="utf-8")
    (vault / "notes" / "Cafe\u0301.md").write_text("crème brûlée\n", encoding="utf-8")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "workspace.md").write_text("hidden\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("SECRET\n", encoding="utf-8")
    (vault / "notes" / "out.md").symlink_to(outside / "secret.md")
    os.mkfifo(vault / "notes" / "pipe.md")
    async with stdio_session(quire, vault, tmp_path / "server.stderr", args=("--tools", "kiln")) as session:
        yield session


async def test_reads_whole_head_tail_and_ranges_with_the_digest(kiln: Quire):
    whole = await kiln.ok_for({"path": "notes/job-search"}, tool=TOOL)
    on_disk = (kiln.root / "notes" / "job-search.md").read_bytes()
    assert whole["content"] == on_disk.decode("utf-8")
    assert whole["sha256"] == hashlib.sha256(on_disk).hexdigest()
    assert whole["path"] == "notes/job-search.md"
    assert whole["start_line"] == 1 and whole["end_line"] == whole["total_lines"] == whole["lines_returned"]

    head = await kiln.ok_for({"path": "notes/long.md", "head": 2}, tool=TOOL)
    assert (head["content"], head["start_line"], head["end_line"]) == ("line 1\nline 2\n", 1, 2)
    tail = await kiln.ok_for({"path": "notes/long", "tail": 1}, tool=TOOL)
    assert (tail["content"], tail["start_line"]) == ("line 2500\n", 2500)
    clamped = await kiln.ok_for({"path": "notes/long", "start_line": 2499, "end_line": 9000}, tool=TOOL)
    assert clamped["lines_returned"] == 2
    assert clamped["clamped"] == "the note has 2500 lines; the range ends at line 2500, not 9000"


async def test_a_long_note_is_cut_with_where_to_read_on(kiln: Quire):
    first = await kiln.ok_for({"path": "notes/long"}, tool=TOOL)
    assert first["lines_returned"] == 2000
    assert first["next_start_line"] == 2001
    assert "start_line: 2001" in first["truncated"]
    rest = await kiln.ok_for({"path": "notes/long", "start_line": first["next_start_line"]}, tool=TOOL)
    assert (rest["start_line"], rest["end_line"]) == (2001, 2500)
    assert "truncated" not in rest


async def test_an_nfd_file_name_is_read_by_its_nfc_path(kiln: Quire):
    read = await kiln.ok_for({"path": "notes/Caf\u00e9"}, tool=TOOL)
    assert read["content"] == "crème brûlée\n"
    assert read["path"] == "notes/Caf\u00e9.md"


async def test_a_missing_note_names_the_closest(kiln: Quire):
    message = await kiln.error_for("FILE_NOT_FOUND", {"path": "notes/Job-Searches"}, tool=TOOL)
    assert message == "there is no note `notes/Job-Searches.md`; did you mean `notes/job-search.md`?"


async def test_a_note_is_named_as_people_and_wikilinks_name_it(kiln: Quire):
    """Issue 25: every tool that takes a note's path also takes its name, an
    alias or a wikilink, resolved as a link from the root; the result has
    the real path; a name several notes have is an error listing them."""
    (kiln.root / "notes" / "Hotkeys.md").write_text(
        "---\naliases: [Keyboard shortcuts]\n---\n# Hotkeys\n## Custom hotkeys\n", encoding="utf-8"
    )
    (kiln.root / "ideas").mkdir(exist_ok=True)
    (kiln.root / "ideas" / "Twin.md").write_text("one\n", encoding="utf-8")
    (kiln.root / "notes" / "Twin.md").write_text("two\n", encoding="utf-8")
    for given in ["Keyboard shortcuts", "Hotkeys", "[[Hotkeys#Custom hotkeys]]", "[[keyboard shortcuts|keys]]"]:
        for tool in (TOOL, "read_metadata"):
            deadline = asyncio.get_running_loop().time() + 10
            while True:  # the watcher sees the new note a moment after it is written
                is_error, value = await kiln.call({"path": given}, tool=tool)
                if not is_error or asyncio.get_running_loop().time() > deadline:
                    break
                await asyncio.sleep(0.05)
            assert not is_error, (given, tool, value)
            assert value["path"] == "notes/Hotkeys.md", (given, tool, value)
    metadata = await kiln.ok_for({"path": "Keyboard shortcuts"}, tool="read_metadata")
    assert [heading["text"] for heading in metadata["headings"]] == ["Hotkeys", "Custom hotkeys"]
    message = await kiln.error_for("VALIDATION_ERROR", {"path": "[[Twin]]"}, tool=TOOL)
    assert "names 2 notes: `ideas/Twin.md`, `notes/Twin.md`" in message, message


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({"path": "notes/out"}, "outside the workspace"),
        ({"path": "../outside/secret"}, "climbs above the kiln root"),
        ({"path": ".obsidian/workspace"}, "hidden"),
        ({"path": "notes/pipe"}, "not a regular file"),
        ({"path": "notes/long", "head": 1, "tail": 1}, "cannot be combined"),
        ({"path": "notes/long", "start_line": 9, "end_line": 3}, "is after `end_line`"),
        ({"path": "notes/long", "head": -1}, "invalid arguments for read_note"),
        ({"path": "C:\\notes\\long.md"}, "drive"),
    ],
)
async def test_what_must_not_be_read_is_refused(kiln: Quire, arguments: dict, expected: str):
    message = await kiln.error_for("VALIDATION_ERROR", arguments, tool=TOOL)
    assert expected in message, message
    assert "SECRET" not in message


async def test_read_metadata_answers_from_the_index_and_sees_edits(kiln: Quire):
    (kiln.root / "notes" / "hub.md").write_text(
        "---\ntags: [hub, '#Work']\nstatus: active\n---\n# Hub\n\nSee [[job-search]] and [[Nowhere]] #idea\n- [ ] sort\n",
        encoding="utf-8",
    )
    hub = await kiln.ok_for({"path": "notes/hub"}, tool="read_metadata")
    assert hub["frontmatter"]["status"] == "active"
    assert hub["tags"] == ["hub", "Work", "idea"]
    assert [(link["target"], link["path"]) for link in hub["links"]] == [
        ("job-search", "notes/job-search.md"),
        ("Nowhere", None),
    ]
    assert hub["stats"]["task_count"] == 1 and hub["stats"]["heading_count"] == 1
    assert "content" not in hub
    target = await kiln.ok_for({"path": "notes/job-search"}, tool="read_metadata")
    assert "notes/hub.md" in target["backlinks"]
    assert target["stats"]["backlink_count"] == len(target["backlinks"])

    (kiln.root / "notes" / "hub.md").write_text("---\nbroken: [\n---\nNo links now.\n", encoding="utf-8")
    edited = await kiln.ok_for({"path": "notes/hub.md"}, tool="read_metadata")
    assert edited["links"] == [] and edited["frontmatter"] == {}
    assert len(edited["problems"]) == 1


async def test_read_metadata_refuses_what_read_note_refuses(kiln: Quire):
    message = await kiln.error_for("FILE_NOT_FOUND", {"path": "notes/Job-Searches"}, tool="read_metadata")
    assert "did you mean `notes/job-search.md`" in message
    for path in ("notes/out", ".obsidian/workspace", "../outside/secret"):
        message = await kiln.error_for("VALIDATION_ERROR", {"path": path}, tool="read_metadata")
        assert "SECRET" not in message


async def test_list_notes_pages_through_a_folder(kiln: Quire):
    everything = await kiln.ok_for({"limit": 1000}, tool="list_notes")
    # Paths only by default (issue 25); the details on request.
    assert all(set(note) == {"path"} for note in everything["notes"])
    detailed = await kiln.ok_for({"limit": 1000, "include_details": True}, tool="list_notes")
    assert [note["path"] for note in detailed["notes"]] == [note["path"] for note in everything["notes"]]
    assert all({"word_count", "size", "modified"} <= set(note) for note in detailed["notes"])
    paths = [note["path"] for note in everything["notes"]]
    assert paths == sorted(paths) and everything["total"] == len(paths)
    assert "notes/Caf\u00e9.md" in paths and not any(path.startswith(".obsidian") for path in paths)
    assert not any("secret" in path.lower() for path in paths)
    seen: list[str] = []
    cursor = None
    while True:
        arguments = {"folder": "notes", "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = await kiln.ok_for(arguments, tool="list_notes")
        seen += [note["path"] for note in page["notes"]]
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert seen == [path for path in paths if path.startswith("notes/")]
    message = await kiln.error_for("VALIDATION_ERROR", {"cursor": "forged"}, tool="list_notes")
    assert "cursor" in message


async def test_an_agent_walks_the_folders_and_a_missing_one_is_not_found(kiln: Quire):
    """Issue 25: `folders` on the first page lists each immediate subfolder
    with its note count, so the whole kiln is walked folder by folder with
    `recursive: false` and every note is met once; a folder that is not
    there is FILE_NOT_FOUND in list_notes and property_search alike."""
    everything = await kiln.ok_for({"limit": 1000}, tool="list_notes")
    met: list[str] = []
    calls = 0
    pending = [None]
    while pending:
        folder = pending.pop()
        arguments = {"recursive": False, "limit": 1000, **({"folder": folder} if folder else {})}
        page = await kiln.ok_for(arguments, tool="list_notes")
        calls += 1
        met += [note["path"] for note in page["notes"]]
        for sub in page.get("folders", []):
            below = await kiln.ok_for({"folder": sub["path"], "limit": 1000}, tool="list_notes")
            assert below["total"] == sub["notes"], sub
            pending.append(sub["path"])
    assert sorted(met) == sorted(note["path"] for note in everything["notes"])
    assert calls > 1
    for tool, arguments in [
        ("list_notes", {"folder": "no such folder"}),
        ("property_search", {"properties": {"status": "active"}, "folder": "no such folder"}),
    ]:
        message = await kiln.error_for("FILE_NOT_FOUND", arguments, tool=tool)
        assert "no such folder" in message, message


async def wait_for(kiln: Quire, tool: str, arguments: dict, holds) -> dict:
    """The tool's answer once `holds` is true of it (the server sees files
    change through a watcher, a moment after they do), within 10 s."""
    deadline = asyncio.get_running_loop().time() + 10
    while True:
        value = await kiln.ok_for(arguments, tool=tool)
        if holds(value):
            return value
        assert asyncio.get_running_loop().time() < deadline, value
        await asyncio.sleep(0.05)


async def test_links_to_attachments_that_exist_resolve_to_their_files(kiln: Quire):
    """Issue 25: `[[file.pdf]]` and `![[image.png]]` to a file that exists
    resolve to its path (own folder first, as for notes); a missing one is
    `null`; a file that appears later is seen by the next call."""
    (kiln.root / "notes" / "img").mkdir()
    (kiln.root / "notes" / "img" / "chart.png").write_bytes(b"\x89PNG")
    (kiln.root / "notes" / "pics.md").write_text(
        "![[chart.png]] [[Scan.pdf#page=2]] ![[gone.jpg]] [chart](img/chart.png)\n", encoding="utf-8"
    )
    pics = await kiln.ok_for({"path": "notes/pics"}, tool="read_metadata")
    assert [(link["target"], link["path"]) for link in pics["links"]] == [
        ("chart.png", "notes/img/chart.png"),
        ("Scan.pdf", None),
        ("gone.jpg", None),
        ("img/chart.png", "notes/img/chart.png"),
    ]
    (kiln.root / "Scan.pdf").write_bytes(b"%PDF-1.7")

    def scan_found(value: dict) -> bool:
        return value["links"][1]["path"] == "Scan.pdf"

    await wait_for(kiln, "read_metadata", {"path": "notes/pics"}, scan_found)


async def test_notes_changed_by_another_program_are_seen(kiln: Quire):
    everything = await kiln.ok_for({"limit": 1000}, tool="list_notes")
    before = [note["path"] for note in everything["notes"]]
    (kiln.root / "fresh").mkdir()
    (kiln.root / "fresh" / "idea.md").write_text("Links to [[job-search]].\n", encoding="utf-8")
    listed = await wait_for(
        kiln, "list_notes", {"limit": 1000}, lambda value: "fresh/idea.md" in [n["path"] for n in value["notes"]]
    )
    assert listed["total"] == len(before) + 1
    target = await kiln.ok_for({"path": "notes/job-search"}, tool="read_metadata")
    assert "fresh/idea.md" in target["backlinks"]

    (kiln.root / "fresh" / "idea.md").rename(kiln.root / "fresh" / "moved.md")
    await wait_for(
        kiln, "list_notes", {"folder": "fresh"}, lambda value: [n["path"] for n in value["notes"]] == ["fresh/moved.md"]
    )
    (kiln.root / "fresh" / "moved.md").unlink()
    await wait_for(kiln, "list_notes", {"folder": "fresh"}, lambda value: value["total"] == 0)
    target = await kiln.ok_for({"path": "notes/job-search"}, tool="read_metadata")
    assert not any(path.startswith("fresh/") for path in target["backlinks"])


async def test_get_kiln_info_reports_totals_and_the_index(kiln: Quire):
    await kiln.ok_for({"limit": 1}, tool="list_notes")  # waits for the index
    brief = await kiln.ok_for({}, tool="get_kiln_info")
    assert brief["root_uri"] == "kiln:///" and brief["state"] == "ready"
    assert "index" not in brief
    listed = await kiln.ok_for({"limit": 1}, tool="list_notes")
    assert brief["note_count"] == listed["total"]
    assert brief["total_words"] > 0 and brief["total_size"] > 0
    detailed = await kiln.ok_for({"detailed": True}, tool="get_kiln_info")
    index = detailed["index"]
    assert index["watcher"] == "watching"
    assert index["notes_indexed"] == brief["note_count"]
    # The link out, the FIFO and the hidden folder were passed over.
    assert index["skipped"] >= 2
    assert index["last_scan"].endswith("Z")
    message = await kiln.error_for("VALIDATION_ERROR", {"detailed": "yes"}, tool="get_kiln_info")
    assert "detailed" in message
