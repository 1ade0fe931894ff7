"""The nova tools end to end: `quire serve --tools nova` over stdio, driven by
the official Python MCP client, against a Task Manager on 127.0.0.1 written
here with http.server, which records every request (method, request target
exactly as sent, JSON body) and answers as each test tells it: success with
any body, an error status with the Task Manager's `error_code`, silence (a
timeout), a 2 GiB body, a redirect. Also: hostile ids, a host that is not
one, nothing listening (connection refused), and the in-memory mock
(`USE_MOCK_CLIENT=true`)."""

from __future__ import annotations

import json
import socket
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import quote

import pytest

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio

NOVA_TOOLS = {"update_execution_session", "create_step", "update_step", "health_check"}
VALID_STATUSES = ["running", "completed", "failed", "skipped"]


@dataclass
class Raw:
    """An answer with these bytes as its body, as they are."""
    status: int
    body: bytes
    content_type: str = "application/json"


@dataclass
class Huge:
    """A 200 declaring a 2 GiB body, sent until the client hangs up."""


@dataclass
class Redirect:
    """A redirect to `location`."""
    status: int
    location: str


class TaskManager:
    """A Task Manager on 127.0.0.1: `answers` maps (method, request target) to
    (status, JSON body), to a `Raw`, `Huge` or `Redirect` answer, or to
    "stall" (read the request, answer nothing for 10 s); anything else is a
    404 without `error_code`. `seen` records each request as (method, request
    target exactly as sent, JSON body or None)."""

    def __init__(self, answers: dict[tuple[str, str], Any]):
        self.answers = answers
        self.seen: list[tuple[str, str, Any]] = []
        self.release = threading.Event()
        manager = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def handle_any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else None
                manager.seen.append((self.command, self.path, body))
                answer = manager.answers.get((self.command, self.path))
                if answer == "stall":
                    manager.release.wait(10)
                    return
                if isinstance(answer, Huge):
                    self.send_response(200)
                    self.send_header("Content-Length", str(2 << 30))
                    self.end_headers()
                    chunk = b"y" * 65536
                    until = time.monotonic() + 20
                    try:
                        while time.monotonic() < until:
                            self.wfile.write(chunk)
                    except OSError:  # the client hung up, as it should
                        pass
                    return
                if isinstance(answer, Redirect):
                    self.send_response(answer.status)
                    self.send_header("Location", answer.location)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                if isinstance(answer, Raw):
                    status, content_type, data = answer.status, answer.content_type, answer.body
                else:
                    status, payload = answer or (404, {"error": f"no route {self.command} {self.path}"})
                    content_type, data = "application/json", json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = handle_any

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def env(self, **extra: str) -> dict[str, str]:
        return {"TASK_MANAGER_HOST": "127.0.0.1", "TASK_MANAGER_PORT": str(self.port), **extra}


@contextmanager
def task_manager(answers: dict[tuple[str, str], Any]) -> Iterator[TaskManager]:
    manager = TaskManager(answers)
    manager.thread.start()
    try:
        yield manager
    finally:
        manager.release.set()
        manager.httpd.shutdown()
        manager.httpd.server_close()


def nova_session(quire: Path, tmp_path: Path, env: dict[str, str]):
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    return stdio_session(quire, root, tmp_path / "server.stderr", args=("--tools", "nova"), env=env)


async def ok(server: Quire, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A normal result (isError false), its text the same JSON as its structured content."""
    return await server.ok_for(arguments, tool=tool)


def step(step_id: str, status: str, message: str | None = None) -> dict[str, Any]:
    return {"id": step_id, "execution_id": "exec-1", "step_name": "Run the tests", "status": status, "message": message}


async def test_each_tool_sends_its_request_and_returns_the_answer(quire: Path, tmp_path: Path):
    answers = {
        ("PATCH", "/api/executions/exec-1"): (200, {"id": "exec-1", "session_id": "sess-1", "worktree_path": None}),
        ("POST", "/api/executions/exec-1/steps"): (200, step("step-7", "running", "cargo test")),
        ("PATCH", "/api/executions/exec-1/steps/step-7"): (200, step("step-7", "completed", "all pass")),
        ("GET", "/api/health"): (200, {"status": "healthy"}),
    }
    with task_manager(answers) as manager:
        async with nova_session(quire, tmp_path, manager.env()) as server:
            tools = {tool.name: tool for tool in (await server.session.list_tools()).tools}
            assert set(tools) == NOVA_TOOLS
            for name in NOVA_TOOLS - {"health_check"}:
                assert "NOVA_EXECUTION_ID" in tools[name].description, name
            assert "skill tool" in tools["update_execution_session"].description
            assert set(tools["create_step"].input_schema["required"]) == {"execution_id", "step_name"}

            session = await ok(server, "update_execution_session", {"execution_id": "exec-1", "session_id": "sess-1"})
            assert session == {"success": True, "data": {"id": "exec-1", "session_id": "sess-1", "worktree_path": None}}
            created = await ok(server, "create_step", {
                "execution_id": "exec-1", "step_name": "Run the tests", "message": "cargo test",
            })
            assert created == {"success": True, "step_id": "step-7", "data": step("step-7", "running", "cargo test")}
            updated = await ok(server, "update_step", {
                "execution_id": "exec-1", "step_id": "step-7", "status": "completed", "message": "all pass",
            })
            assert updated == {"success": True, "data": step("step-7", "completed", "all pass")}
            health = await ok(server, "health_check", {})
            assert health == {
                "success": True, "status": "healthy", "data": {"status": "healthy"}, "client": "http",
                "host": "127.0.0.1", "port": manager.port, "base_url": f"http://127.0.0.1:{manager.port}",
            }
    assert manager.seen == [
        ("PATCH", "/api/executions/exec-1", {"session_id": "sess-1"}),
        ("POST", "/api/executions/exec-1/steps", {"step_name": "Run the tests", "message": "cargo test", "status": "running"}),
        ("PATCH", "/api/executions/exec-1/steps/step-7", {"status": "completed", "message": "all pass"}),
        ("GET", "/api/health", None),
    ]


async def test_an_error_answer_gives_the_task_managers_error_and_code(quire: Path, tmp_path: Path):
    answers = {
        ("POST", "/api/executions/nope/steps"): (
            404, {"error": "execution nope not found", "error_code": "EXECUTION_NOT_FOUND"}),
        ("PATCH", "/api/executions/exec-1/steps/step-1"): (409, {"error": "step is finished"}),
    }
    with task_manager(answers) as manager:
        async with nova_session(quire, tmp_path, manager.env()) as server:
            refused = await ok(server, "create_step", {"execution_id": "nope", "step_name": "x"})
            assert refused == {
                "success": False,
                "error": "the Task Manager answered 404: execution nope not found (EXECUTION_NOT_FOUND)",
                "error_code": "EXECUTION_NOT_FOUND",
                "retryable": False,
            }
            refused = await ok(server, "update_step", {"execution_id": "exec-1", "step_id": "step-1", "message": "m"})
            assert refused["success"] is False and "error_code" not in refused, refused
            assert refused["error"] == "the Task Manager answered 409: step is finished"
            # What the server refuses itself never reaches the Task Manager.
            bad = await ok(server, "update_step", {"execution_id": "exec-1", "step_id": "step-1", "status": "done"})
            assert bad["success"] is False and bad["valid_statuses"] == VALID_STATUSES, bad
            empty = await ok(server, "update_step", {"execution_id": "exec-1", "step_id": "step-1"})
            assert empty["success"] is False and "at least one of status and message" in empty["error"], empty
            blank = await ok(server, "create_step", {"execution_id": " ", "step_name": "x"})
            assert blank["error"].startswith("execution_id is empty"), blank
            # Arguments that do not fit the schema are tool errors.
            message = await server.error_for("VALIDATION_ERROR", {"execution_id": "exec-1"}, tool="update_execution_session")
            assert "missing field `session_id`" in message
    assert [(method, path) for method, path, _ in manager.seen] == [
        ("POST", "/api/executions/nope/steps"),
        ("PATCH", "/api/executions/exec-1/steps/step-1"),
    ]


async def test_a_stalled_task_manager_is_a_request_timeout(quire: Path, tmp_path: Path):
    answers = {("POST", "/api/executions/exec-1/steps"): "stall", ("GET", "/api/health"): "stall"}
    with task_manager(answers) as manager:
        async with nova_session(quire, tmp_path, manager.env(TASK_MANAGER_TIMEOUT="1")) as server:
            started = time.monotonic()
            timed_out = await ok(server, "create_step", {"execution_id": "exec-1", "step_name": "x"})
            elapsed = time.monotonic() - started
            assert timed_out["success"] is False, timed_out
            assert timed_out["error"].startswith("Request timeout"), timed_out
            assert timed_out["retryable"] is True
            assert elapsed < 5, elapsed
            health = await ok(server, "health_check", {})
            assert health["success"] is False and health["error"].startswith("Request timeout"), health
            assert health["base_url"] == f"http://127.0.0.1:{manager.port}"
    # Neither a POST nor a timeout is tried again.
    assert [(method, path) for method, path, _ in manager.seen] == [
        ("POST", "/api/executions/exec-1/steps"),
        ("GET", "/api/health"),
    ]


async def test_nothing_listening_is_a_connection_failure_naming_where(quire: Path, tmp_path: Path):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {"TASK_MANAGER_HOST": "127.0.0.1", "TASK_MANAGER_PORT": str(port)}
    async with nova_session(quire, tmp_path, env) as server:
        health = await ok(server, "health_check", {})
        assert health["success"] is False, health
        assert f"could not be reached at http://127.0.0.1:{port}" in health["error"], health
        assert health["retryable"] is True
        session = await ok(server, "update_execution_session", {"execution_id": "e", "session_id": "s"})
        assert session["success"] is False and "could not be reached" in session["error"], session


async def test_the_mock_client_keeps_the_steps(quire: Path, tmp_path: Path):
    async with nova_session(quire, tmp_path, {"USE_MOCK_CLIENT": "true"}) as server:
        health = await ok(server, "health_check", {})
        assert health == {"success": True, "status": "healthy", "data": {"status": "healthy"}, "client": "mock"}
        created = await ok(server, "create_step", {"execution_id": "exec-1", "step_name": "Run the tests"})
        assert created["step_id"] == "step-1" and created["data"]["status"] == "running", created
        updated = await ok(server, "update_step", {"execution_id": "exec-1", "step_id": "step-1", "status": "failed"})
        assert updated == {"success": True, "data": step("step-1", "failed")}
        missing = await ok(server, "update_step", {"execution_id": "exec-1", "step_id": "step-2", "status": "failed"})
        assert missing["success"] is False and missing["error_code"] == "STEP_NOT_FOUND", missing


async def test_a_bad_variable_does_not_stop_the_server(quire: Path, tmp_path: Path):
    async with nova_session(quire, tmp_path, {"TASK_MANAGER_PORT": "http"}) as server:
        health = await ok(server, "health_check", {})
        assert health["success"] is False, health
        assert health["error"].startswith("TASK_MANAGER_PORT is `http`: a port number"), health
    assert "TASK_MANAGER_PORT is `http`" in (tmp_path / "server.stderr").read_text()


def segment(id_: str) -> str:
    """`id_` as one path segment: every byte but RFC 3986's unreserved ones
    (letters, digits, `-._~`) percent-encoded, as Python's `quote` does."""
    return quote(id_, safe="")


HOSTILE_IDS = [
    "..\\..\\..\\health", "..\\..\\x", ".\\.", "\\", "%2e%2e", "%2F", "a/../b", "a?b=c", "a#b", "a b", "a;b",
    "a\x00b", "é", "日本", "x" * 1024,
]


async def test_hostile_ids_travel_as_exactly_one_path_segment(quire: Path, tmp_path: Path):
    r"""Issue 23, item 1: `..\..\..\health` once reached `PATCH /health` (the
    url crate reads `\` as `/`)."""
    answers: dict[tuple[str, str], Any] = {}
    for id_ in HOSTILE_IDS:
        answers[("PATCH", f"/api/executions/{segment(id_)}")] = (200, {"id": "x"})
        answers[("PATCH", f"/api/executions/exec-1/steps/{segment(id_)}")] = (200, {"id": "x"})
    with task_manager(answers) as manager:
        async with nova_session(quire, tmp_path, manager.env()) as server:
            for id_ in HOSTILE_IDS:
                session = await ok(server, "update_execution_session", {"execution_id": id_, "session_id": "s"})
                assert session == {"success": True, "data": {"id": "x"}}, (id_, session)
                updated = await ok(server, "update_step", {"execution_id": "exec-1", "step_id": id_, "message": "m"})
                assert updated == {"success": True, "data": {"id": "x"}}, (id_, updated)
            for id_ in (".", ".."):
                refused = await ok(server, "create_step", {"execution_id": id_, "step_name": "x"})
                assert refused["success"] is False, refused
                assert refused["error"].startswith(f"execution_id `{id_}` cannot be used"), refused
    expected = []
    for id_ in HOSTILE_IDS:
        expected.append(("PATCH", f"/api/executions/{segment(id_)}"))
        expected.append(("PATCH", f"/api/executions/exec-1/steps/{segment(id_)}"))
    assert [(method, path) for method, path, _ in manager.seen] == expected


async def test_any_success_answer_reaches_the_agent_as_data(quire: Path, tmp_path: Path):
    """Issue 23, item 5: a success status is a success, its answer passed on
    whatever its shape; a created step without an id in its answer may
    exist, and the agent is told not to create it again."""
    answers = {
        ("PATCH", "/api/executions/exec-1"): (200, {"ok": True, "session_id": "sess-9"}),
        ("POST", "/api/executions/exec-1/steps"): (201, {"step_id": "step-42", "ok": True}),
        ("PATCH", "/api/executions/exec-1/steps/step-42"): (200, {"ok": True}),
        ("PATCH", "/api/executions/exec-1/steps/step-43"): Raw(200, b"Updated\n", "text/plain"),
        ("PATCH", "/api/executions/exec-1/steps/step-44"): Raw(204, b""),
        ("POST", "/api/executions/exec-2/steps"): Raw(201, b""),
        ("GET", "/api/health"): Raw(200, b"OK", "text/plain"),
    }
    with task_manager(answers) as manager:
        async with nova_session(quire, tmp_path, manager.env()) as server:
            session = await ok(server, "update_execution_session", {"execution_id": "exec-1", "session_id": "sess-9"})
            assert session == {"success": True, "data": {"ok": True, "session_id": "sess-9"}}
            created = await ok(server, "create_step", {"execution_id": "exec-1", "step_name": "build"})
            assert created == {"success": True, "step_id": "step-42", "data": {"step_id": "step-42", "ok": True}}
            for step_id, data in (("step-42", {"ok": True}), ("step-43", "Updated"), ("step-44", None)):
                updated = await ok(server, "update_step", {"execution_id": "exec-1", "step_id": step_id, "status": "completed"})
                assert updated == {"success": True, "data": data}, updated
            unnamed = await ok(server, "create_step", {"execution_id": "exec-2", "step_name": "build"})
            assert unnamed["success"] is False and unnamed["retryable"] is False, unnamed
            assert "step_id" not in unnamed, unnamed
            assert "the step was most likely created" in unnamed["error"], unnamed
            assert "Do not create the step again" in unnamed["error"], unnamed
            health = await ok(server, "health_check", {})
            assert health["success"] is True and health["data"] == "OK" and "status" not in health, health
    assert len(manager.seen) == 7, manager.seen


async def test_an_oversized_answer_and_a_redirect_are_refused(quire: Path, tmp_path: Path):
    """Issue 23, items 2 and 3: a 2 GiB answer is refused at once, naming the
    limit; a 307 is not followed to where it points (the session id would
    have gone there), and is named."""
    with task_manager({}) as elsewhere:
        away = f"http://127.0.0.1:{elsewhere.port}/steal"
        answers = {
            ("GET", "/api/health"): Huge(),
            ("PATCH", "/api/executions/exec-1"): Redirect(307, away),
            ("POST", "/api/executions/exec-1/steps"): Redirect(308, away),
        }
        with task_manager(answers) as manager:
            async with nova_session(quire, tmp_path, manager.env()) as server:
                started = time.monotonic()
                health = await ok(server, "health_check", {})
                assert time.monotonic() - started < 5
                assert health["success"] is False and health["retryable"] is False, health
                assert "a body longer than the 4194304 bytes (4 MiB, SUCCESS_BODY_LIMIT)" in health["error"], health
                session = await ok(server, "update_execution_session", {"execution_id": "exec-1", "session_id": "secret"})
                assert session["success"] is False, session
                assert f"answered 307, a redirect to {away}; redirects are not followed" in session["error"], session
                created = await ok(server, "create_step", {"execution_id": "exec-1", "step_name": "secret"})
                assert f"answered 308, a redirect to {away}" in created["error"], created
        assert len(manager.seen) == 3, manager.seen
    assert elsewhere.seen == []


async def test_a_host_that_is_not_one_is_refused_naming_the_variable(quire: Path, tmp_path: Path):
    r"""Issue 23, item 4: `127.0.0.1\` was accepted and the request went to
    port 80."""
    env = {"TASK_MANAGER_HOST": "127.0.0.1\\", "TASK_MANAGER_PORT": "9"}
    async with nova_session(quire, tmp_path, env) as server:
        for tool, arguments in (("health_check", {}), ("create_step", {"execution_id": "e", "step_name": "x"})):
            refused = await ok(server, tool, arguments)
            assert refused["success"] is False, refused
            assert refused["error"].startswith("TASK_MANAGER_HOST is `127.0.0.1\\`: write a host name"), refused
    assert "TASK_MANAGER_HOST is `127.0.0.1\\`" in (tmp_path / "server.stderr").read_text()
