"""The nova tools end to end: `quire serve --tools nova` over stdio, driven by
the official Python MCP client, against a Task Manager on 127.0.0.1 written
here with http.server, which records every request (method, path, JSON
body) and answers as each test tells it: success, an error status with the
Task Manager's `error_code`, silence (a timeout). Also: nothing listening
(connection refused), and the in-memory mock (`USE_MOCK_CLIENT=true`)."""

from __future__ import annotations

import json
import socket
import threading
import time
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Iterator

import pytest

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio

NOVA_TOOLS = {"update_execution_session", "create_step", "update_step", "health_check"}
VALID_STATUSES = ["running", "completed", "failed", "skipped"]


class TaskManager:
    """A Task Manager on 127.0.0.1: `answers` maps (method, path) to (status,
    JSON body), or to "stall" (read the request, answer nothing for 10 s);
    anything else is a 404 without `error_code`. `seen` records each request
    as (method, path, JSON body or None)."""

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
                status, payload = answer or (404, {"error": f"no route {self.command} {self.path}"})
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
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
                "success": True, "status": "healthy", "client": "http",
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
        assert health == {"success": True, "status": "healthy", "client": "mock"}
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
