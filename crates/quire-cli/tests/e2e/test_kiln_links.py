"""`find_links` through the official Python MCP client over stdio, on a copy
of examples/vault (whose trackers link their resumes, PDFs that exist, from
a frontmatter property) with a few notes added for each kind: broken and
ambiguous links with their lines, orphans, a note's neighbours, pages
followed with a cursor, and each argument an agent must correct."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio

TOOL = "find_links"

ADDED = {
    "hub.md": "# Hub\n[[Plan]] [[projects/Tasks]]\n![[chart.png]] ![[missing.png]]\n",
    "projects/Plan.md": "---\nup: \"[[hub]]\"\nrelated: [\"[[Nowhere]]\"]\n---\n# Plan\n[[Tasks]] [gone](Gone.md)\n",
    "projects/Tasks.md": "- [ ] ship [[Done]]\n- [ ] back to [[Plan]]\n",
    "archive/Plan.md": "old, see [[hub|the hub]]\n",
    "Done.md": "done\n",
    "daily/crlf.md": "---\r\nup: \"[[Lost]]\"\r\n---\r\n[[hub]] [[Missing]]\r\n",
    "broken.md": "---\nup: [\"[[hub]]\"\n---\nBody [[Vanished]]\n",
    ".obsidian/hidden.md": "[[Ghost]]\n",
}


@pytest.fixture
async def kiln(quire: Path, vault: Path, tmp_path: Path) -> AsyncIterator[Quire]:
    for path, text in ADDED.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_bytes(text.encode("utf-8"))
    (vault / "chart.png").write_bytes(b"\x89PNG")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("[[SECRET]]\n", encoding="utf-8")
    (vault / "projects" / "out.md").symlink_to(outside / "secret.md")
    os.mkfifo(vault / "projects" / "pipe.md")
    async with stdio_session(quire, vault, tmp_path / "server.stderr", args=("--tools", "kiln")) as session:
        yield session


async def whole(kiln: Quire, arguments: dict[str, Any]) -> dict[str, Any]:
    value = await kiln.ok_for(arguments, tool=TOOL)
    assert "next_cursor" not in value, value
    items = value.get("links", value.get("notes"))
    assert value["total"] == len(items), value
    return value


async def test_broken_links_with_their_lines(kiln: Quire):
    value = await whole(kiln, {"kind": "broken"})
    found = [(link["note"], link["line"], link["target"]) for link in value["links"]]
    # The trackers' resumes exist (PDF attachments), chart.png too; the
    # hidden folder and the link out are never read.
    assert found == [
        ("broken.md", 4, "Vanished"),
        ("daily/crlf.md", 2, "Lost"),
        ("daily/crlf.md", 4, "Missing"),
        ("hub.md", 3, "missing.png"),
        ("projects/Plan.md", 3, "Nowhere"),
        ("projects/Plan.md", 6, "Gone.md"),
    ], value
    assert value["links"][1]["property"] == "up"
    assert value["links"][3]["embed"] is True
    assert "property" not in value["links"][0]
    assert "SECRET" not in str(value) and "Ghost" not in str(value)


async def test_ambiguous_links_name_the_note_chosen(kiln: Quire):
    value = await whole(kiln, {"kind": "ambiguous"})
    assert value["links"] == [
        {"note": "hub.md", "line": 2, "target": "Plan", "embed": False, "chosen": "archive/Plan.md", "candidates": 2},
        {
            "note": "projects/Tasks.md",
            "line": 2,
            "target": "Plan",
            "embed": False,
            "chosen": "projects/Plan.md",
            "candidates": 2,
        },
    ]


async def test_orphans_and_neighbours(kiln: Quire):
    orphans = await whole(kiln, {"kind": "orphans", "folder": "projects"})
    assert orphans["notes"] == []
    orphans = await whole(kiln, {"kind": "orphans"})
    paths = [note["path"] for note in orphans["notes"]]
    assert {"broken.md", "daily/crlf.md"} <= set(paths) and "hub.md" not in paths, paths
    around = await whole(kiln, {"kind": "neighbours", "path": "[[Tasks]]"})
    assert around["note"] == "projects/Tasks.md"
    assert around["notes"] == [
        {"path": "Done.md", "distance": 1, "direction": "out"},
        {"path": "hub.md", "distance": 1, "direction": "in"},
        {"path": "projects/Plan.md", "distance": 1, "direction": "both"},
    ]
    farther = await whole(kiln, {"kind": "neighbours", "path": "projects/Tasks.md", "depth": 2})
    # archive/Plan.md links to hub.md, which links here.
    assert {"path": "archive/Plan.md", "distance": 2, "direction": "in"} in farther["notes"], farther
    assert [note["distance"] for note in farther["notes"]] == sorted(note["distance"] for note in farther["notes"])


async def test_pages_follow_one_another(kiln: Quire):
    everything = (await whole(kiln, {"kind": "broken"}))["links"]
    seen: list[dict[str, Any]] = []
    cursor = None
    while True:
        arguments: dict[str, Any] = {"kind": "broken", "limit": 4}
        if cursor:
            arguments["cursor"] = cursor
        page = await kiln.ok_for(arguments, tool=TOOL)
        assert page["total"] == len(everything) and len(page["links"]) <= 4
        seen += page["links"]
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert seen == everything


@pytest.mark.parametrize(
    "arguments, code, expected",
    [
        ({"kind": "neighbours"}, "VALIDATION_ERROR", "`neighbours` needs `path`"),
        ({"kind": "neighbours", "path": "Plan"}, "VALIDATION_ERROR", "`Plan` names 2 notes"),
        ({"kind": "neighbours", "path": "Plans"}, "FILE_NOT_FOUND", "there is no note `Plans.md`"),
        ({"kind": "neighbours", "path": "hub", "depth": 4}, "VALIDATION_ERROR", "`depth` is 4; give 1"),
        ({"kind": "broken", "path": "hub"}, "VALIDATION_ERROR", "`path` is only for `neighbours`"),
        ({"kind": "orphans", "depth": 2}, "VALIDATION_ERROR", "`depth` is only for `neighbours`"),
        ({"kind": "broken", "limit": 0}, "VALIDATION_ERROR", "`limit` is 0"),
        ({"kind": "broken", "cursor": "forged"}, "VALIDATION_ERROR", "not one this query returned"),
        ({"kind": "broken", "folder": "nowhere"}, "FILE_NOT_FOUND", "`nowhere` does not exist"),
        ({"kind": "broken", "folder": "../outside"}, "VALIDATION_ERROR", "climbs above the kiln root"),
        ({"kind": "neighbors", "path": "hub"}, "VALIDATION_ERROR", "unknown variant `neighbors`"),
        ({}, "VALIDATION_ERROR", "missing field `kind`"),
    ],
)
async def test_bad_arguments_say_what_to_pass(kiln: Quire, arguments: dict[str, Any], code: str, expected: str):
    message = await kiln.error_for(code, arguments, tool=TOOL)
    assert expected in message, message
    assert "SECRET" not in message
