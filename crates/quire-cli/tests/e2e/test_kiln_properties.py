"""`property_search` through the official Python MCP client over stdio, on a
copy of examples/vault (whose trackers carry `status` and `tags`) with a few
notes added for each rule and each hostile file: what an agent gets back for
each way of asking, and each argument it must correct."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio

TOOL = "property_search"

ADDED = {
    "projects/Plan.md": "---\nstatus: active\npriority: 3\ncreated: 2024-01-05\ntags: [project/quire]\n---\n# Plan #Idea\n",
    "projects/Draft.md": "---\nstatus: draft\npriority: 3.0\ntags: '#project, reading'\nreviewer:\n---\n",
    "projects/Done.md": "---\nstatus: [done, active]\npriority: '3'\ndone: true\naliases: [Finished]\n---\n",
    "daily/2024-01-05.md": "---\ncreated: '2024-01-05'\n---\nA day #log\n",
    "daily/crlf.md": "---\r\nstatus: active\r\n---\r\nText\r\n",
    "broken.md": "---\nstatus: [active\n---\nBody #idea\n",
    "Cafe\u0301.md": "---\nstatus: active\n---\n",
    ".obsidian/hidden.md": "---\nstatus: active\n---\n",
    ".trash/gone.md": "---\nstatus: active\n---\n",
}


@pytest.fixture
async def kiln(quire: Path, vault: Path, tmp_path: Path) -> AsyncIterator[Quire]:
    for path, text in ADDED.items():
        (vault / path).parent.mkdir(parents=True, exist_ok=True)
        (vault / path).write_bytes(text.encode("utf-8"))
    (vault / "latin1.md").write_bytes(b"---\nstatus: active\n---\nCaf\xe9\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("---\nstatus: active\n---\nSECRET\n", encoding="utf-8")
    (vault / "projects" / "out.md").symlink_to(outside / "secret.md")
    os.mkfifo(vault / "projects" / "pipe.md")
    async with stdio_session(quire, vault, tmp_path / "server.stderr", args=("--tools", "kiln")) as session:
        yield session


async def found(kiln: Quire, arguments: dict[str, Any]) -> list[str]:
    value = await kiln.ok_for(arguments, tool=TOOL)
    paths = [note["path"] for note in value["notes"]]
    assert value["total"] == len(paths) and "next_cursor" not in value, value
    return paths


@pytest.mark.parametrize(
    "properties, expected",
    [
        # Hidden folders, a link out, a FIFO, broken YAML and Latin-1 never
        # match; CRLF and an NFD name (shown NFC) do.
        ({"status": "active"}, ["Caf\u00e9.md", "daily/crlf.md", "projects/Done.md", "projects/Plan.md"]),
        ({"status": ["draft", "done"]}, ["projects/Done.md", "projects/Draft.md"]),
        ({"status": "Active"}, []),
        ({"status": "Reviewed", "tags": "tracker"}, ["trackers/2026-02-05-amazon.md", "trackers/2026-02-10-stripe.md"]),
        ({"status": "Resume Written"}, ["trackers/2026-01-20-initech.md"]),
        ({"priority": 3}, ["projects/Done.md", "projects/Draft.md", "projects/Plan.md"]),
        ({"priority": "3"}, ["projects/Done.md", "projects/Draft.md", "projects/Plan.md"]),
        ({"priority": 3.5}, []),
        ({"done": True}, ["projects/Done.md"]),
        ({"created": "2024-01-05"}, ["daily/2024-01-05.md", "projects/Plan.md"]),
        ({"tags": "#PROJECT"}, ["projects/Draft.md", "projects/Plan.md"]),
        ({"tags": "project/quire"}, ["projects/Plan.md"]),
        ({"tags": ["idea", "log"]}, ["broken.md", "daily/2024-01-05.md", "projects/Plan.md"]),
        ({"aliases": "finished"}, ["projects/Done.md"]),
        ({"reviewer": None}, ["projects/Draft.md"]),
        ({"applied_on": None}, ["trackers/2026-02-05-amazon.md"]),
        ({"nothing": None}, []),
    ],
)
async def test_each_rule(kiln: Quire, properties: dict[str, Any], expected: list[str]):
    assert await found(kiln, {"properties": properties}) == expected


async def test_results_carry_the_frontmatter_when_asked_and_stay_in_their_folder(kiln: Quire):
    # Paths only by default, so a page stays small (issue 25).
    compact = await kiln.ok_for({"properties": {"tags": "tracker"}, "folder": "trackers"}, tool=TOOL)
    assert all(set(note) == {"path"} for note in compact["notes"]), compact
    value = await kiln.ok_for(
        {"properties": {"tags": "tracker"}, "folder": "trackers", "include_frontmatter": True}, tool=TOOL
    )
    assert [note["path"] for note in value["notes"]] == [note["path"] for note in compact["notes"]]
    assert [note["frontmatter"]["company"] for note in value["notes"]] == ["Amazon", "Stripe"]
    assert value["notes"][1]["frontmatter"]["tags"] == ["tracker", "payments"]
    assert await found(kiln, {"properties": {"status": "active"}, "folder": "projects"}) == [
        "projects/Done.md",
        "projects/Plan.md",
    ]
    # A folder that is not there is not found, as in text_search (issue 25).
    message = await kiln.error_for("FILE_NOT_FOUND", {"properties": {"status": "active"}, "folder": "nowhere"}, tool=TOOL)
    assert "`nowhere` does not exist" in message, message
    broken = await kiln.ok_for({"properties": {"tags": "idea"}, "limit": 1, "include_frontmatter": True}, tool=TOOL)
    assert broken["notes"] == [{"path": "broken.md", "frontmatter": {}}]


async def test_pages_follow_one_another(kiln: Quire):
    everything = await found(kiln, {"properties": {"status": "active"}})
    seen: list[str] = []
    cursor = None
    while True:
        arguments: dict[str, Any] = {"properties": {"status": "active"}, "limit": 1}
        if cursor:
            arguments["cursor"] = cursor
        page = await kiln.ok_for(arguments, tool=TOOL)
        assert page["total"] == len(everything)
        seen += [note["path"] for note in page["notes"]]
        cursor = page.get("next_cursor")
        if cursor is None:
            break
    assert seen == everything


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ({"properties": {}}, 'such as {"properties": {"status": "active"}}'),
        ({"properties": {"status": {"is": "active"}}}, "`properties.status` holds an object"),
        ({"properties": {"status": [["active"]]}}, "a list inside the list"),
        ({"properties": {"status": []}}, "`properties.status` is an empty list"),
        ({"properties": {f"k{n}": n for n in range(40)}}, "give at most 32"),
        ({"properties": {"tags": "#"}}, "names no tag"),
        ({"properties": {"status": "active"}, "limit": 0}, "`limit` is 0"),
        ({"properties": {"status": "active"}, "limit": -1}, "invalid arguments for property_search"),
        ({"properties": {"status": "active"}, "cursor": "forged"}, "not one this search returned"),
        ({"properties": {"status": "active"}, "folder": "../outside"}, "climbs above the kiln root"),
        ({"properties": {"status": "active"}, "folder": ".obsidian"}, "hidden"),
        ({"properties": {"status": "active"}, "query": "x"}, "unknown field `query`"),
        ({"properties": "status: active"}, "invalid arguments for property_search"),
        ({}, "missing field `properties`"),
    ],
)
async def test_bad_arguments_say_what_to_pass(kiln: Quire, arguments: dict[str, Any], expected: str):
    message = await kiln.error_for("VALIDATION_ERROR", arguments, tool=TOOL)
    assert expected in message, message
    assert "SECRET" not in message


@pytest.mark.parametrize(
    "properties, folder, expected",
    [
        # Dates as dates (a quoted date too), strictly.
        ({"created": {"before": "2024-01-06"}}, None, ["daily/2024-01-05.md", "projects/Plan.md"]),
        ({"created": {"after": "2024-01-05"}}, None, []),
        # Numbers as numbers, "3" and 3.0 included; a range is two operators.
        ({"priority": {"after": 2, "before": 4}}, None, ["projects/Done.md", "projects/Draft.md", "projects/Plan.md"]),
        ({"priority": {"before": "3"}}, None, []),
        # A mismatch of kinds is no match.
        ({"created": {"before": 3000}}, None, []),
        # not: none of the values; with exists, only notes that have the key.
        (
            {"status": {"not": ["Reviewed", "active"], "exists": True}},
            None,
            ["projects/Draft.md", "trackers/2026-01-12-globex.md", "trackers/2026-01-20-initech.md"],
        ),
        ({"status": {"not": "active"}}, "projects", ["projects/Draft.md"]),
        ({"tags": {"exists": False}}, "projects", ["projects/Done.md"]),
        ({"reviewer": {"exists": True}}, None, ["projects/Draft.md"]),
        ({"applied_on": {"exists": True}, "status": "Reviewed"}, None, ["trackers/2026-02-05-amazon.md"]),
        # In a list, an operator object is one more alternative.
        ({"status": ["Applied", {"exists": True, "not": ["active", "Reviewed", "draft", "Resume Written"]}]}, "trackers", ["trackers/2026-01-12-globex.md"]),
    ],
)
async def test_each_operator(kiln: Quire, properties: dict[str, Any], folder: str | None, expected: list[str]):
    arguments: dict[str, Any] = {"properties": properties}
    if folder:
        arguments["folder"] = folder
    assert await found(kiln, arguments) == expected


async def test_operators_page_like_equality(kiln: Quire):
    # The four trackers and the five readable added notes with a `status`
    # (not broken.md, latin1.md, the link out, the FIFO or the hidden ones).
    everything = await found(kiln, {"properties": {"status": {"exists": True}}})
    assert len(everything) == 9, everything
    first = await kiln.ok_for({"properties": {"status": {"exists": True}}, "limit": 5}, tool=TOOL)
    second = await kiln.ok_for(
        {"properties": {"status": {"exists": True}}, "limit": 5, "cursor": first["next_cursor"]}, tool=TOOL
    )
    assert "next_cursor" not in second and first["total"] == second["total"] == 9
    assert [note["path"] for note in first["notes"] + second["notes"]] == everything


@pytest.mark.parametrize(
    "properties, expected",
    [
        ({"status": {"similar": "active"}}, "holds an object with `similar`, which is no operator; give a value, or an object of the operators `not`, `exists`, `before` and `after`"),
        ({"status": {}}, "holds an object without an operator"),
        ({"due": {"before": "next week"}}, '`properties.due.before` is `"next week"`; give a date written YYYY-MM-DD, such as "2026-12-01", or a number'),
        ({"due": {"after": "2026-02-30"}}, "give a date written YYYY-MM-DD"),
        ({"due": {"exists": "yes"}}, "give true (the note has the property) or false (it has not)"),
        ({"tags": {"after": 1}}, "compares dates and numbers, but `tags` holds names"),
        ({"status": {"not": {"exists": True}}}, "`properties.status.not` is an object"),
    ],
)
async def test_bad_operators_say_what_to_write(kiln: Quire, properties: dict[str, Any], expected: str):
    message = await kiln.error_for("VALIDATION_ERROR", {"properties": properties}, tool=TOOL)
    assert expected in message, message
