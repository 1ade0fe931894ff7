"""`semantic_search` through the official Python MCP client: with the real
`minilm` model (when installed; the test command installs it), with the
`http` embedder against a small OpenAI-compatible embeddings server written
here (hashed words, so its rankings are predictable), and with none.
Results, filters, modes, progress in `get_kiln_info`, a note changed while
the server runs, an embeddings server that fails, and over Streamable
HTTP."""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import os
import re
import threading
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import Quire, stdio_session
from test_tracker_http import serving_http

pytestmark = pytest.mark.anyio

TOOL = "semantic_search"
MODELS = Path(os.environ.get("QUIRE_E2E_MODELS_DIR", "/nonexistent"))
MINILM_INSTALLED = (MODELS / "all-MiniLM-L6-v2" / "model.safetensors").is_file()
STATIC_DISTILLED = (MODELS / "all-MiniLM-L6-v2-static" / "model.safetensors").is_file()

NOTES = {
    "garden/Tomatoes.md": "---\nstatus: active\ntags: [garden]\n---\n# Tomatoes\n\n"
    "Water the tomato plants every morning and pinch out the side shoots.\n",
    "cooking/Sourdough.md": "---\nstatus: active\n---\n# Sourdough\n\n"
    "Feed the starter, fold the dough, let it rise overnight, then bake in a hot oven.\n",
    "travel/Lisbon.md": "---\nstatus: planned\n---\n# Lisbon\n\n"
    "Yellow trams climb the hills; custard tarts by the river at sunset.\n",
    "work/Cluster.md": "# Cluster\n\n## Operators\n\nThe QX-2291 operator restarts failed pods in the staging cluster.\n",
    "money/Budget.md": "# Budget\n\nRent, groceries and savings, reviewed on the first of each month.\n",
}


@pytest.fixture
def kiln(tmp_path: Path) -> Path:
    root = tmp_path / "kiln"
    for path, text in NOTES.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def minilm_env() -> dict[str, str]:
    return {"QUIRE_MODELS_DIR": str(MODELS)}


async def eventually(check, what: str, seconds: float = 30.0):
    """Polls `check` (async, returning a truthy value) until it holds."""
    deadline = asyncio.get_running_loop().time() + seconds
    while True:
        value = await check()
        if value:
            return value
        assert asyncio.get_running_loop().time() < deadline, f"timed out waiting for {what}"
        await asyncio.sleep(0.2)


@pytest.mark.skipif(not MINILM_INSTALLED, reason=f"the minilm model is not installed in {MODELS}")
async def test_minilm_finds_notes_by_meaning_with_filters_modes_and_progress(quire: Path, kiln: Path, tmp_path: Path):
    async with stdio_session(quire, kiln, tmp_path / "server.stderr", args=("--tools", "kiln", "--embedder", "minilm"),
                             env=minilm_env()) as session:
        found = await session.ok_for({"query": "how do I make bread at home", "limit": 3}, tool=TOOL)
        assert found["embedder"].startswith("minilm:all-MiniLM-L6-v2")
        assert found["mode"] == "semantic"
        # Cluster is two sections, the others one each.
        assert found["index"] == {"ready": True, "chunks_embedded": 6, "chunks_total": 6, "notes_pending": 0}
        first = found["results"][0]
        assert first["path"] == "cooking/Sourdough.md", found
        assert first["heading"] == "Sourdough" and "starter" in first["snippet"]
        assert first["frontmatter"] == {"status": "active"} and first["indexing"] is False
        assert 0.3 < first["score"] <= 1.0
        assert [r["score"] for r in found["results"]] == sorted((r["score"] for r in found["results"]), reverse=True)
        assert len(found["results"]) == 3

        trip = await session.ok_for({"query": "a city break with trams", "properties": {"status": "planned"}}, tool=TOOL)
        assert [r["path"] for r in trip["results"]] == ["travel/Lisbon.md"]
        garden = await session.ok_for({"query": "vegetables", "folder": "garden"}, tool=TOOL)
        assert [r["path"] for r in garden["results"]] == ["garden/Tomatoes.md"]
        strict = await session.ok_for({"query": "growing vegetables in the garden", "min_score": 0.3}, tool=TOOL)
        assert [r["path"] for r in strict["results"]] == ["garden/Tomatoes.md"]
        code = await session.ok_for({"query": "QX-2291", "mode": "hybrid", "limit": 2}, tool=TOOL)
        assert code["mode"] == "hybrid" and code["results"][0]["path"] == "work/Cluster.md"
        assert code["results"][0]["heading"] == "Operators"

        info = await session.ok_for({"detailed": True}, tool="get_kiln_info")
        semantic = info["semantic"]
        assert semantic["state"] == "ready" and semantic["ready"] is True
        assert semantic["embedder"] == found["embedder"]
        assert (semantic["chunks_embedded"], semantic["chunks_total"], semantic["notes_pending"]) == (6, 6, 0)

        # A note written while the server runs is found once embedded.
        (kiln / "hobbies").mkdir()
        (kiln / "hobbies" / "Kayak.md").write_text("# Kayak\n\nPaddling across the fjord at dawn.\n", encoding="utf-8")

        async def kayak_first():
            found = await session.ok_for({"query": "boating on a calm sea", "limit": 1}, tool=TOOL)
            return found["results"][0]["path"] == "hobbies/Kayak.md" and found["index"]["ready"]

        await eventually(kayak_first, "the new note to be embedded")
    saved = list((kiln / ".quire").iterdir())
    assert [p.name for p in saved] == ["semantic-minilm-all-minilm-l6-v2-mean-256.idx"]


@pytest.mark.skipif(not STATIC_DISTILLED, reason=f"the static table is not distilled in {MODELS}")
async def test_the_static_tier_answers_and_keeps_an_index_of_its_own(quire: Path, kiln: Path, tmp_path: Path):
    async with stdio_session(quire, kiln, tmp_path / "server.stderr",
                             args=("--tools", "kiln", "--embedder", "static"), env=minilm_env()) as session:
        found = await session.ok_for({"query": "baking bread with a starter", "limit": 2}, tool=TOOL)
        assert found["embedder"].startswith("static:all-MiniLM-L6-v2:")
        assert found["results"][0]["path"] == "cooking/Sourdough.md", found
        assert found["index"]["ready"] is True
        info = await session.ok_for({"detailed": True}, tool="get_kiln_info")
        assert info["semantic"]["embedder"] == found["embedder"]
    # Its vectors are not minilm's: a file of its own, never mixed.
    names = sorted(p.name for p in (kiln / ".quire").iterdir())
    assert len(names) == 1 and names[0].startswith("semantic-static-all-minilm-l6-v2-"), names


@pytest.mark.skipif(not (MINILM_INSTALLED and STATIC_DISTILLED), reason=f"both tiers are not installed in {MODELS}")
async def test_every_installed_tier_is_kept_and_the_best_complete_one_answers(quire: Path, kiln: Path, tmp_path: Path):
    """Issue 26: without --embedder the server keeps an index per installed
    embedder (minilm, then the static table); every answer is from a tier
    that is complete, says which, and how each tier stands; once minilm is
    complete it answers; get_kiln_info shows both tiers."""
    async with stdio_session(quire, kiln, tmp_path / "server.stderr", args=("--tools", "kiln"),
                             env=minilm_env()) as session:
        found = await session.ok_for({"query": "baking bread with a starter", "limit": 2}, tool=TOOL)
        tiers = {tier["embedder"].split(":")[0]: tier for tier in found["tiers"]}
        assert list(tiers) == ["minilm", "static"], found["tiers"]
        answering = found["embedder"].split(":")[0]
        assert tiers[answering]["ready"] is True and found["index"]["ready"] is True, found
        assert "notice" not in found
        assert found["results"][0]["path"] == "cooking/Sourdough.md", found

        async def minilm_answers():
            found = await session.ok_for({"query": "baking bread with a starter", "limit": 2}, tool=TOOL)
            return found if found["embedder"].startswith("minilm:") else None

        found = await eventually(minilm_answers, "minilm to answer")
        assert found["tiers"][0]["ready"] is True and found["index"]["ready"] is True, found
        info = await session.ok_for({"detailed": True}, tool="get_kiln_info")
        assert [tier["embedder"].split(":")[0] for tier in info["semantic"]["tiers"]] == ["minilm", "static"]

        async def both_ready():
            info = await session.ok_for({"detailed": True}, tool="get_kiln_info")
            return all(tier["ready"] for tier in info["semantic"]["tiers"])

        await eventually(both_ready, "both tiers to be complete", seconds=120)
    # Each tier keeps an index of its own.
    names = sorted(p.name for p in (kiln / ".quire").iterdir())
    assert [name.split("-")[1] for name in names] == ["minilm", "static"], names


class FakeEmbeddings:
    """An OpenAI-compatible `POST /v1/embeddings` on a loopback port: each
    word hashed into one of 64 dimensions, normalized. Records requests;
    answers 503 while `failing`."""

    DIMENSION = 64

    def __init__(self):
        self.requests: list[dict[str, Any]] = []
        self.failing = False
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the stdlib's name)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append({"path": self.path, "body": body,
                                      "content_type": self.headers.get("Content-Type")})
                if fake.failing:
                    self.send_response(503)
                    self.end_headers()
                    self.wfile.write(b"overloaded")
                    return
                data = [{"object": "embedding", "index": i, "embedding": fake.embed(text)}
                        for i, text in enumerate(body["input"])]
                payload = json.dumps({"object": "list", "data": data, "model": body["model"]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    @classmethod
    def embed(cls, text: str) -> list[float]:
        vector = [0.0] * cls.DIMENSION
        for word in re.findall(r"\w+", text.lower()):
            vector[hashlib.sha256(word.encode()).digest()[0] % cls.DIMENSION] += 1.0
        norm = math.sqrt(sum(v * v for v in vector)) or 1.0
        return [v / norm for v in vector]


@pytest.fixture
def embeddings() -> Iterator[FakeEmbeddings]:
    fake = FakeEmbeddings()
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.server.shutdown()


def http_args(fake: FakeEmbeddings) -> tuple[str, ...]:
    return ("--tools", "kiln", "--embedder", "http", "--embedder-url", fake.url, "--embedder-model", "fake-64")


async def test_the_http_embedder_is_asked_in_batches_and_its_failure_reported(
        quire: Path, kiln: Path, tmp_path: Path, embeddings: FakeEmbeddings):
    async with stdio_session(quire, kiln, tmp_path / "server.stderr", args=http_args(embeddings)) as session:
        found = await session.ok_for({"query": "tomato plants morning water"}, tool=TOOL)
        assert found["embedder"] == "http:fake-64"
        assert found["results"][0]["path"] == "garden/Tomatoes.md", found
        assert found["index"]["ready"] is True
        bodies = [r["body"] for r in embeddings.requests]
        assert all(r["path"] == "/v1/embeddings" for r in embeddings.requests)
        assert all(r["content_type"] == "application/json" for r in embeddings.requests)
        assert all(body["model"] == "fake-64" and isinstance(body["input"], list) for body in bodies)
        embedded = [text for body in bodies for text in body["input"]]
        assert "tomato plants morning water" in embedded
        assert any("Sourdough" in text for text in embedded)

        # The server starts failing; a changed note cannot be embedded.
        embeddings.failing = True
        (kiln / "money" / "Budget.md").write_text("# Budget\n\nA new line about pensions.\n", encoding="utf-8")

        async def problem():
            info = await session.ok_for({"detailed": True}, tool="get_kiln_info")
            return info["semantic"] if info["semantic"].get("problem") else None

        semantic = await eventually(problem, "the failure to be reported")
        assert semantic["state"] == "indexing" and semantic["ready"] is False
        assert semantic["notes_pending"] == 1
        assert "503" in semantic["problem"], semantic
        message = await session.error_for("INTERNAL_ERROR", {"query": "pensions"}, tool=TOOL)
        assert "the query could not be embedded" in message and "503" in message

        # It recovers: the note is embedded, the problem forgotten.
        embeddings.failing = False

        async def recovered():
            found = await session.ok_for({"query": "pensions new line", "limit": 1}, tool=TOOL)
            return found if found["index"]["ready"] and found["results"][0]["path"] == "money/Budget.md" else None

        found = await eventually(recovered, "the embedder to recover", seconds=60)
        assert "problem" not in found["index"]


async def test_without_an_embedder_the_error_says_how_to_get_one(quire: Path, kiln: Path, tmp_path: Path):
    empty = tmp_path / "no-models"
    empty.mkdir()
    async with stdio_session(quire, kiln, tmp_path / "server.stderr", args=("--tools", "kiln"),
                             env={"QUIRE_MODELS_DIR": str(empty)}) as session:
        message = await session.error_for("STORE_ERROR", {"query": "bread"}, tool=TOOL)
        assert message.startswith("semantic search is not available: no embedder is installed in ")
        assert "`quire models install`" in message and "--embedder http" in message
        info = await session.ok_for({"detailed": True}, tool="get_kiln_info")
        assert info["semantic"]["state"] == "unavailable" and info["semantic"]["ready"] is False
        # Arguments are still checked first.
        await session.error_for("VALIDATION_ERROR", {"query": ""}, tool=TOOL)
    async with stdio_session(quire, kiln, tmp_path / "server.stderr",
                             args=("--tools", "kiln", "--embedder", "none")) as session:
        message = await session.error_for("STORE_ERROR", {"query": "bread"}, tool=TOOL)
        assert "--embedder none" in message
    assert not (kiln / ".quire").exists()


@pytest.mark.parametrize("arguments, says", [
    ({"query": "x", "limit": 0}, "`limit` is 0"),
    ({"query": "x", "limit": 101}, "`limit` is 101"),
    ({"query": "x", "min_score": 0.5, "mode": "hybrid"}, "`semantic` mode only"),
    ({"query": "x", "folder": "../up"}, "climbs above the kiln root"),
    ({"query": "x", "properties": {}}, "`properties` is empty"),
    ({"query": "x" * 2001}, "over the limit of 2000"),
])
async def test_bad_arguments_are_refused_with_what_to_do(quire: Path, kiln: Path, tmp_path: Path,
                                                         embeddings: FakeEmbeddings, arguments, says):
    async with stdio_session(quire, kiln, tmp_path / "server.stderr", args=http_args(embeddings)) as session:
        message = await session.error_for("VALIDATION_ERROR", arguments, tool=TOOL)
        assert says in message, message


async def test_over_streamable_http(quire: Path, kiln: Path, tmp_path: Path, embeddings: FakeEmbeddings):
    with serving_http(quire, kiln, tmp_path / "server-http.stderr", "kiln", args=http_args(embeddings)[2:]) as (url, _):
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30) as session:
                await session.initialize()
                await session.list_tools()
                result = await session.call_tool(TOOL, {"query": "yellow trams hills", "limit": 2})
                assert result.is_error is False, result
                value = result.structured_content
                assert value["results"][0]["path"] == "travel/Lisbon.md"
                assert len(value["results"]) == 2
