"""`text_search` through the official Python MCP client over stdio, on a copy
of examples/vault with hostile additions: what an agent gets back for each
way of asking, and what it must never see (hidden folders, a link out of the
vault, a FIFO that would hang a reader)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import AsyncIterator

import pytest

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio

TOOL = "text_search"


@pytest.fixture
async def kiln(quire: Path, vault: Path, tmp_path: Path) -> AsyncIterator[Quire]:
    notes = vault / "notes"
    (notes / "search.md").write_text(
        "alpha\nbeta\nNeedle one\ngamma\ndelta\nneedle two\r\nepsilon\n", encoding="utf-8"
    )
    (notes / "Cafe\u0301.md").write_bytes("crème needle\n".encode("utf-8"))
    (notes / "latin1.md").write_bytes(b"caf\xe9 needle\n")
    (notes / "minified.md").write_text("x" * 200_000 + "needle" + "y" * 200_000 + "\n", encoding="utf-8")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "workspace.md").write_text("needle hidden\n", encoding="utf-8")
    (vault / ".trash").mkdir()
    (vault / ".trash" / "old.md").write_text("needle trashed\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("needle SECRET\n", encoding="utf-8")
    (notes / "out.md").symlink_to(outside / "secret.md")
    (vault / "linked-out").symlink_to(outside)
    os.mkfifo(notes / "pipe.md")
    async with stdio_session(quire, vault, tmp_path / "server.stderr", args=("--tools", "kiln")) as session:
        yield session


def flat(answer: dict) -> list[dict]:
    """Every match of an answer, each with its note's path."""
    return [{"path": note["path"], **match} for note in answer["notes"] for match in note["matches"]]


async def test_matches_come_ordered_with_their_context(kiln: Quire):
    found = await kiln.ok_for({"query": "needle", "folder": "notes", "context_lines": 2}, tool=TOOL)
    matches = flat(found)
    paths = [(match["path"], match["line_number"]) for match in matches]
    assert paths == [
        ("notes/Caf\u00e9.md", 1),
        ("notes/latin1.md", 1),
        ("notes/minified.md", 1),
        ("notes/search.md", 3),
        ("notes/search.md", 6),
    ]
    assert found["total_matches"] == 5 and found["truncated"] is False
    assert found["notes_matched"] == 4 and [len(note["matches"]) for note in found["notes"]] == [1, 1, 1, 2]
    assert "truncated_reason" not in found and "next_cursor" not in found
    one, two = matches[3:]
    assert (one["before"], one["line"], one["after"]) == (["alpha", "beta"], "Needle one", ["gamma", "delta"])
    assert (two["before"], two["line"], two["after"]) == (["gamma", "delta"], "needle two", ["epsilon"])
    assert matches[1]["line"] == "caf\ufffd needle"
    cut = matches[2]["line"]
    assert "needle" in cut and cut.startswith("\u2026") and cut.endswith("\u2026") and len(cut) < 600
    # The FIFO is named, never opened.
    assert found["files_skipped"] == 1 and found["skipped"][0]["path"] == "notes/pipe.md"


async def test_case_regex_context_and_limit(kiln: Quire):
    sensitive = await kiln.ok_for({"query": "Needle", "folder": "notes"}, tool=TOOL)
    assert [m["line"] for m in flat(sensitive)] == ["Needle one"]
    insensitive = await kiln.ok_for({"query": "NEEDLE", "case": "insensitive", "folder": "notes"}, tool=TOOL)
    assert insensitive["total_matches"] == 5
    exact = await kiln.ok_for({"query": "needle", "case": "sensitive", "folder": "notes"}, tool=TOOL)
    assert exact["total_matches"] == 4
    regex = await kiln.ok_for({"query": r"^needle \w+$", "regex": True, "context_lines": 0}, tool=TOOL)
    assert [(m["line"], m.get("before"), m.get("after")) for m in flat(regex)] == [("needle two", None, None)]
    literal = await kiln.ok_for({"query": r"^needle \w+$"}, tool=TOOL)
    assert literal["total_matches"] == 0
    limited = await kiln.ok_for({"query": "needle", "limit": 2}, tool=TOOL)
    assert len(flat(limited)) == 2 and limited["total_matches"] == 5
    assert limited["truncated"] is True and limited["truncated_reason"] == "limit"
    rest = await kiln.ok_for({"query": "needle", "limit": 2, "cursor": limited["next_cursor"]}, tool=TOOL)
    last = await kiln.ok_for({"query": "needle", "limit": 2, "cursor": rest["next_cursor"]}, tool=TOOL)
    assert "next_cursor" not in last and last["truncated"] is False
    paged = [(m["path"], m["line_number"]) for answer in (limited, rest, last) for m in flat(answer)]
    whole = await kiln.ok_for({"query": "needle"}, tool=TOOL)
    assert paged == [(m["path"], m["line_number"]) for m in flat(whole)]
    refused = await kiln.error_for("VALIDATION_ERROR", {"query": "needle", "cursor": "p1.61"}, tool=TOOL)
    assert "next_cursor" in refused


async def test_nothing_hidden_or_outside_is_searched(kiln: Quire):
    found = await kiln.ok_for({"query": "needle", "limit": 1000}, tool=TOOL)
    text = repr(found)
    for never in ("SECRET", "hidden", "trashed", ".obsidian", ".trash", "linked-out", "out.md"):
        assert never not in text, never


async def test_edits_are_seen_by_the_next_call(kiln: Quire):
    assert (await kiln.ok_for({"query": "brand new words"}, tool=TOOL))["total_matches"] == 0
    (kiln.root / "notes" / "fresh.md").write_text("brand new words\n", encoding="utf-8")
    found = await kiln.ok_for({"query": "brand new words"}, tool=TOOL)
    assert [m["path"] for m in flat(found)] == ["notes/fresh.md"]


@pytest.mark.parametrize(
    "arguments, code, expected",
    [
        ({"query": ""}, "VALIDATION_ERROR", "`query` is empty"),
        ({"query": "x" * 1001}, "VALIDATION_ERROR", "over the limit of 1000"),
        ({"query": "a\nb"}, "VALIDATION_ERROR", "line break"),
        ({"query": "(unclosed", "regex": True}, "VALIDATION_ERROR", "not a valid regular expression"),
        ({"query": "x", "context_lines": 11}, "VALIDATION_ERROR", "give 0 to 10"),
        ({"query": "x", "limit": 0}, "VALIDATION_ERROR", "give 1 to 1000"),
        ({"query": "x", "limit": 1001}, "VALIDATION_ERROR", "give 1 to 1000"),
        ({"query": "x", "case": "upper"}, "VALIDATION_ERROR", "invalid arguments for text_search"),
        ({"query": "x", "regexp": True}, "VALIDATION_ERROR", "unknown field"),
        ({"query": 3}, "VALIDATION_ERROR", "invalid arguments for text_search"),
        ({"query": "x", "folder": "../outside"}, "VALIDATION_ERROR", "climbs above the kiln root"),
        ({"query": "x", "folder": ".obsidian"}, "VALIDATION_ERROR", "hidden"),
        ({"query": "x", "folder": "linked-out"}, "VALIDATION_ERROR", "outside the workspace"),
        ({"query": "x", "folder": "notes/search.md"}, "VALIDATION_ERROR", "not a folder"),
        ({"query": "x", "folder": "nowhere"}, "FILE_NOT_FOUND", "does not exist"),
    ],
)
async def test_bad_arguments_say_what_to_pass(kiln: Quire, arguments: dict, code: str, expected: str):
    message = await kiln.error_for(code, arguments, tool=TOOL)
    assert expected in message, message
    assert "SECRET" not in message
