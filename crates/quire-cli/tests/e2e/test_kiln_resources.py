"""The kiln's notes as MCP resources, through the official Python MCP
client over stdio: listed a page at a time with `kiln:///` URIs, one URI
template, a note read whole, and every URI that names no note refused with
the JSON-RPC error a client can act on."""

from __future__ import annotations

from pathlib import Path
from typing import AsyncIterator
from urllib.parse import quote

import pytest
from mcp import MCPError, types

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio


@pytest.fixture
async def kiln(quire: Path, vault: Path, tmp_path: Path) -> AsyncIterator[Quire]:
    (vault / "notes" / "Café #1 100%.md").write_text("---\ntitle: Coffee\n---\ncrème\n", encoding="utf-8")
    (vault / "notes" / "long.md").write_text("".join(f"line {n}\n" for n in range(1, 3001)), encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("SECRET\n", encoding="utf-8")
    (vault / "notes" / "out.md").symlink_to(outside / "secret.md")
    (vault / ".obsidian").mkdir()
    (vault / ".obsidian" / "hidden.md").write_text("hidden\n", encoding="utf-8")
    async with stdio_session(quire, vault, tmp_path / "server.stderr", args=("--tools", "kiln")) as session:
        yield session


async def all_resources(kiln: Quire) -> list:
    found, cursor = [], None
    while True:
        params = types.PaginatedRequestParams(cursor=cursor) if cursor else None
        page = await kiln.session.list_resources(params=params)
        found += page.resources
        cursor = page.next_cursor
        if cursor is None:
            return found


async def test_resources_are_the_notes_with_kiln_uris(kiln: Quire):
    resources = await all_resources(kiln)
    listed = await kiln.ok_for({"limit": 1000}, tool="list_notes")
    assert [resource.name for resource in resources] == [note["path"] for note in listed["notes"]]
    by_name = {resource.name: resource for resource in resources}
    cafe = by_name["notes/Café #1 100%.md"]
    assert str(cafe.uri) == "kiln:///notes/" + quote("Café #1 100%.md", safe="")
    assert (cafe.title, cafe.mime_type) == ("Coffee", "text/markdown")
    assert cafe.size == len("---\ntitle: Coffee\n---\ncrème\n".encode())
    assert by_name["notes/long.md"].title == "long"
    assert not any("secret" in name or name.startswith(".obsidian") for name in by_name)
    info = await kiln.ok_for({}, tool="get_kiln_info")
    assert all(str(resource.uri).startswith(info["root_uri"]) for resource in resources)


async def test_a_note_is_read_whole_by_its_uri(kiln: Quire):
    resources = {resource.name: resource for resource in await all_resources(kiln)}
    for name in ("notes/Café #1 100%.md", "notes/long.md"):
        read = await kiln.session.read_resource(resources[name].uri)
        [contents] = read.contents
        assert contents.text == (kiln.root / name).read_text(encoding="utf-8")
        assert contents.mime_type == "text/markdown"
        assert str(contents.uri) == str(resources[name].uri)
    # An NFD-insensitive, `.md`-optional path is read as read_note reads it.
    short = await kiln.session.read_resource("kiln:///notes/long")
    assert short.contents[0].text.count("\n") == 3000


async def test_the_template_names_every_note(kiln: Quire):
    templates = await kiln.session.list_resource_templates()
    [template] = templates.resource_templates
    assert template.uri_template == "kiln:///{+path}"
    assert template.mime_type == "text/markdown"


@pytest.mark.parametrize(
    "uri, code, expected",
    [
        ("kiln:///notes/nowhere.md", -32002, "there is no note"),
        ("kiln:///notes/Long.md", -32002, "did you mean `notes/long.md`"),
        ("kiln:///notes/out.md", -32602, "outside"),
        ("kiln:///..%2Foutside%2Fsecret.md", -32602, "climbs above"),
        ("kiln:///.obsidian/hidden.md", -32602, "hidden"),
        ("kiln:///notes/a%ZZ.md", -32602, "hexadecimal"),
        ("kiln:///notes/a.md?x=1", -32602, "query"),
        ("file:///etc/passwd", -32602, "kiln:///"),
        ("kiln:///", -32602, "root"),
    ],
)
async def test_uris_that_name_no_note_are_refused(kiln: Quire, uri: str, code: int, expected: str):
    with pytest.raises(MCPError) as raised:
        await kiln.session.read_resource(uri)
    assert raised.value.error.code == code, raised.value.error
    assert expected in raised.value.error.message, raised.value.error.message
    assert "SECRET" not in raised.value.error.message
    assert str(kiln.root) not in raised.value.error.message
