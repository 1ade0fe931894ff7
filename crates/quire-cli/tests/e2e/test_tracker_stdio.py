"""`update_tracker_status` end to end: `quire serve` over stdio, driven by the
official Python MCP client. Every test works on its own copy of
examples/vault and checks the files on disk, not only the answers."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest
from mcp import MCPError

from conftest import EXAMPLE_VAULT, TOOL, Quire, changed, snapshot, stdio_session

pytestmark = pytest.mark.anyio

AMAZON = "trackers/2026-02-05-amazon.md"  # Reviewed, wiki-link resume_path, clean resume
STRIPE = "trackers/2026-02-10-stripe.md"  # Reviewed, plain resume_path, resume.tex has placeholders
INITECH = "trackers/2026-01-20-initech.md"  # 'Resume Written' (quoted), wiki-link with alias
GLOBEX = "trackers/2026-01-12-globex.md"  # Applied, CRLF line endings, no resume_path

STATUSES = ["Reviewed", "Resume Written", "Applied", "Interview", "Offer", "Rejected", "Ghosted"]
RESPONSE_FIELDS = {"tracker_path", "previous_status", "target_status", "action", "success", "dry_run", "warnings"}

STATUS_LINE = re.compile(rb"^status:[ \t]*(?P<value>[^\r\n]*?)[ \t]*(?P<eol>\r?\n)", re.MULTILINE)


def status_value_span(text: bytes) -> tuple[int, int]:
    """Byte span of the `status` value in the frontmatter (the first `---` block)."""
    end = text.index(b"\n---", 3)
    matches = [m for m in STATUS_LINE.finditer(text, 0, end + 1)]
    assert len(matches) == 1, text
    return matches[0].span("value")


def unquoted(value: bytes) -> bytes:
    if len(value) >= 2 and value[:1] == value[-1:] and value[:1] in (b"'", b'"'):
        return value[1:-1]
    return value


def assert_only_status_changed(before: bytes, after: bytes, new_status: str) -> None:
    """`after` is `before` with the bytes of the status value, and nothing
    else, replaced by `new_status` (quoted the same way if it was quoted)."""
    start, end = status_value_span(before)
    new_start, new_end = status_value_span(after)
    assert new_start == start, (before, after)
    assert after[:start] == before[:start], "bytes before the status value changed"
    assert after[new_end:] == before[end:], "bytes after the status value changed"
    assert unquoted(after[new_start:new_end]) == new_status.encode(), after[new_start:new_end]


def read(root: Path, relative: str) -> bytes:
    return (root / relative).read_bytes()


def assert_response(value: dict, *, tracker_path: str, previous: str, target: str, action: str,
                    success: bool, dry_run: bool) -> None:
    assert RESPONSE_FIELDS <= set(value), value
    assert value["tracker_path"] == tracker_path
    assert value["previous_status"] == previous
    assert value["target_status"] == target
    assert value["action"] == action, value
    assert value["success"] is success, value
    assert value["dry_run"] is dry_run, value
    assert isinstance(value["warnings"], list)


# --- tools/list ---------------------------------------------------------------


async def test_lists_exactly_the_tracker_tool_with_schemas_and_annotations(server: Quire):
    tools = (await server.session.list_tools()).tools
    assert [tool.name for tool in tools] == [TOOL]
    tool = tools[0]
    assert tool.description

    schema = tool.input_schema
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) == {"tracker_path", "target_status"}
    assert set(schema["properties"]) == {"tracker_path", "target_status", "dry_run", "force"}
    assert schema["properties"]["target_status"]["enum"] == STATUSES
    assert schema["properties"]["dry_run"]["type"] == "boolean"
    assert schema["properties"]["dry_run"].get("default") is False
    assert schema["properties"]["force"]["type"] == "boolean"
    assert schema["properties"]["force"].get("default") is False

    assert tool.output_schema is not None
    assert tool.output_schema["type"] == "object"
    assert RESPONSE_FIELDS <= set(tool.output_schema["required"])
    assert {"guardrail_check_passed", "error"} <= set(tool.output_schema["properties"])

    annotations = tool.annotations
    assert annotations is not None
    assert annotations.title
    assert annotations.read_only_hint is False
    assert annotations.destructive_hint is False
    assert annotations.idempotent_hint is True
    assert annotations.open_world_hint is False


# --- normal outcomes -------------------------------------------------------------


async def test_forward_transition_changes_only_the_status_value_bytes(server: Quire, vault: Path):
    # Reviewed -> Resume Written (amazon's resume is complete, so the guardrails pass).
    before_tree = snapshot(vault)
    before = read(vault, AMAZON)
    value = await server.ok(tracker_path=AMAZON, target_status="Resume Written")
    assert_response(value, tracker_path=AMAZON, previous="Reviewed", target="Resume Written",
                    action="updated", success=True, dry_run=False)
    assert value["guardrail_check_passed"] is True
    assert value["warnings"] == []
    assert "error" not in value
    after = read(vault, AMAZON)
    assert after == before.replace(b"\nstatus: Reviewed\n", b"\nstatus: Resume Written\n", 1)
    assert_only_status_changed(before, after, "Resume Written")
    assert changed(before_tree, snapshot(vault)) == {AMAZON}

    # Resume Written -> Applied, the next forward step, on the same file.
    value = await server.ok(tracker_path=AMAZON, target_status="Applied")
    assert_response(value, tracker_path=AMAZON, previous="Resume Written", target="Applied",
                    action="updated", success=True, dry_run=False)
    assert_only_status_changed(after, read(vault, AMAZON), "Applied")


async def test_forward_transition_on_a_quoted_status(server: Quire, vault: Path):
    before = read(vault, INITECH)
    assert b"status: 'Resume Written'" in before
    value = await server.ok(tracker_path=INITECH, target_status="Applied")
    assert_response(value, tracker_path=INITECH, previous="Resume Written", target="Applied",
                    action="updated", success=True, dry_run=False)
    assert "guardrail_check_passed" not in value or value["guardrail_check_passed"] is None
    assert_only_status_changed(before, read(vault, INITECH), "Applied")


async def test_same_status_is_a_noop(server: Quire, vault: Path):
    before = snapshot(vault)
    value = await server.ok(tracker_path=GLOBEX, target_status="Applied")
    assert_response(value, tracker_path=GLOBEX, previous="Applied", target="Applied",
                    action="noop", success=True, dry_run=False)
    assert snapshot(vault) == before


async def test_policy_violation_is_blocked_without_writing(server: Quire, vault: Path):
    before = snapshot(vault)
    # Reviewed -> Applied skips Resume Written.
    value = await server.ok(tracker_path=AMAZON, target_status="Applied")
    assert_response(value, tracker_path=AMAZON, previous="Reviewed", target="Applied",
                    action="blocked", success=False, dry_run=False)
    assert "Reviewed" in value["error"] and "Applied" in value["error"]
    # A backwards move is blocked too.
    value = await server.ok(tracker_path=GLOBEX, target_status="Reviewed")
    assert_response(value, tracker_path=GLOBEX, previous="Applied", target="Reviewed",
                    action="blocked", success=False, dry_run=False)
    assert value["error"]
    assert snapshot(vault) == before


async def test_force_overrides_the_policy_with_a_warning(server: Quire, vault: Path):
    before_tree = snapshot(vault)
    before = read(vault, AMAZON)
    value = await server.ok(tracker_path=AMAZON, target_status="Interview", force=True)
    assert_response(value, tracker_path=AMAZON, previous="Reviewed", target="Interview",
                    action="updated", success=True, dry_run=False)
    assert len(value["warnings"]) >= 1
    assert any("Reviewed" in warning and "Interview" in warning for warning in value["warnings"]), value
    assert_only_status_changed(before, read(vault, AMAZON), "Interview")
    assert changed(before_tree, snapshot(vault)) == {AMAZON}


async def test_force_does_not_bypass_the_resume_guardrails(server: Quire, vault: Path):
    before = snapshot(vault)
    value = await server.ok(tracker_path=STRIPE, target_status="Resume Written", force=True)
    assert value["action"] == "blocked" and value["success"] is False, value
    assert value["guardrail_check_passed"] is False
    assert snapshot(vault) == before


async def test_resume_written_is_blocked_by_placeholders(server: Quire, vault: Path):
    before = snapshot(vault)
    for dry_run in (False, True):
        value = await server.ok(tracker_path=STRIPE, target_status="Resume Written", dry_run=dry_run)
        assert_response(value, tracker_path=STRIPE, previous="Reviewed", target="Resume Written",
                        action="blocked", success=False, dry_run=dry_run)
        assert value["guardrail_check_passed"] is False
        error = value["error"]
        assert "PROJECT-AI-" in error and "WORK-BULLET-POINT-" in error, error
        assert "resume.tex" in error, error
        assert "applications/stripe-backend/resume/resume.tex" in error, error
    assert snapshot(vault) == before


@pytest.mark.parametrize(
    ("breakage", "expected"),
    [
        ("empty pdf", "resume.pdf"),
        ("missing pdf", "resume.pdf"),
        ("missing tex", "resume.tex"),
    ],
)
async def test_resume_written_is_blocked_by_missing_or_empty_artifacts(
    server: Quire, vault: Path, breakage: str, expected: str
):
    resume = vault / "applications" / "amazon-sde" / "resume"
    if breakage == "empty pdf":
        (resume / "resume.pdf").write_bytes(b"")
    elif breakage == "missing pdf":
        (resume / "resume.pdf").unlink()
    else:
        (resume / "resume.tex").unlink()
    before = snapshot(vault)
    value = await server.ok(tracker_path=AMAZON, target_status="Resume Written")
    assert_response(value, tracker_path=AMAZON, previous="Reviewed", target="Resume Written",
                    action="blocked", success=False, dry_run=False)
    assert value["guardrail_check_passed"] is False
    assert expected in value["error"], value
    assert snapshot(vault) == before


async def test_resume_written_without_resume_path_is_a_validation_error(server: Quire, vault: Path):
    tracker = vault / AMAZON
    text = tracker.read_bytes()
    tracker.write_bytes(re.sub(rb"(?m)^resume_path:.*\n", b"", text))
    before = snapshot(vault)
    message = await server.error("VALIDATION_ERROR", tracker_path=AMAZON, target_status="Resume Written")
    assert "resume_path" in message
    assert snapshot(vault) == before


async def test_resume_written_passes_for_amazon(server: Quire, vault: Path):
    value = await server.ok(tracker_path=AMAZON, target_status="Resume Written")
    assert value["action"] == "updated" and value["success"] is True, value
    assert value["guardrail_check_passed"] is True
    assert "error" not in value


async def test_dry_run_predicts_without_writing(server: Quire, vault: Path):
    before = snapshot(vault)
    value = await server.ok(tracker_path=AMAZON, target_status="Resume Written", dry_run=True)
    assert_response(value, tracker_path=AMAZON, previous="Reviewed", target="Resume Written",
                    action="would_update", success=True, dry_run=True)
    assert value["guardrail_check_passed"] is True
    # A dry run of a policy violation reports the block, also without writing.
    value = await server.ok(tracker_path=AMAZON, target_status="Offer", dry_run=True)
    assert_response(value, tracker_path=AMAZON, previous="Reviewed", target="Offer",
                    action="blocked", success=False, dry_run=True)
    assert value["error"]
    # And a dry-run noop is a noop.
    value = await server.ok(tracker_path=GLOBEX, target_status="Applied", dry_run=True)
    assert value["action"] == "noop" and value["dry_run"] is True
    assert snapshot(vault) == before


@pytest.mark.parametrize(
    ("tracker", "previous", "terminal"),
    [
        (GLOBEX, "Applied", "Rejected"),
        (AMAZON, "Reviewed", "Ghosted"),
        (INITECH, "Resume Written", "Rejected"),
    ],
)
async def test_terminal_outcomes_are_allowed_from_any_status(
    server: Quire, vault: Path, tracker: str, previous: str, terminal: str
):
    before = read(vault, tracker)
    value = await server.ok(tracker_path=tracker, target_status=terminal)
    assert_response(value, tracker_path=tracker, previous=previous, target=terminal,
                    action="updated", success=True, dry_run=False)
    assert value["warnings"] == []
    assert_only_status_changed(before, read(vault, tracker), terminal)


async def test_crlf_tracker_keeps_crlf(server: Quire, vault: Path):
    before = read(vault, GLOBEX)
    assert before.count(b"\r\n") == before.count(b"\n") > 0
    value = await server.ok(tracker_path=GLOBEX, target_status="Rejected")
    assert value["action"] == "updated", value
    after = read(vault, GLOBEX)
    assert after == before.replace(b"status: Applied\r\n", b"status: Rejected\r\n", 1)
    assert after.count(b"\r\n") == after.count(b"\n") == before.count(b"\n")


async def test_only_the_tracker_changes_in_the_workspace(server: Quire, vault: Path):
    """A sequence of calls: every file but the updated trackers hashes the same,
    and nothing is added (no temporary files left behind) or removed."""
    before = snapshot(vault)
    await server.ok(tracker_path=AMAZON, target_status="Resume Written")
    await server.ok(tracker_path=STRIPE, target_status="Resume Written")  # blocked
    await server.ok(tracker_path=GLOBEX, target_status="Applied")  # noop
    await server.ok(tracker_path=INITECH, target_status="Applied", dry_run=True)
    await server.error("VALIDATION_ERROR", tracker_path=GLOBEX, target_status="Hired")
    assert changed(before, snapshot(vault)) == {AMAZON}
    await server.ok(tracker_path=GLOBEX, target_status="Ghosted")
    assert changed(before, snapshot(vault)) == {AMAZON, GLOBEX}


# --- top-level errors ------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        pytest.param({"tracker_path": AMAZON, "target_status": "Hired"}, id="unknown status"),
        pytest.param({"tracker_path": AMAZON, "target_status": "applied"}, id="wrong case"),
        pytest.param({"tracker_path": AMAZON, "target_status": " Applied"}, id="leading space"),
        pytest.param({"tracker_path": AMAZON, "target_status": "Resume Written\n"}, id="trailing newline"),
        pytest.param({"tracker_path": AMAZON, "target_status": ""}, id="empty status"),
        pytest.param({"tracker_path": AMAZON, "target_status": "Applied", "note": "x"}, id="unknown property"),
        pytest.param({"tracker_path": AMAZON}, id="missing target_status"),
        pytest.param({"target_status": "Applied"}, id="missing tracker_path"),
        pytest.param({"tracker_path": AMAZON, "target_status": "Applied", "dry_run": "yes"}, id="dry_run not a boolean"),
        pytest.param({"tracker_path": "../outside.md", "target_status": "Rejected"}, id="dotdot escape"),
        pytest.param({"tracker_path": "trackers/../../outside.md", "target_status": "Rejected"}, id="nested dotdot escape"),
        pytest.param({"tracker_path": "/etc/hostname", "target_status": "Rejected"}, id="absolute path outside"),
        pytest.param({"tracker_path": "", "target_status": "Rejected"}, id="empty path"),
    ],
)
async def test_validation_errors(server: Quire, vault: Path, arguments: dict):
    # A tracker just outside the workspace: a path escaping to it must not touch it.
    outside = vault.parent / "outside.md"
    shutil.copyfile(vault / GLOBEX, outside)
    outside_before = outside.read_bytes()
    before = snapshot(vault)
    await server.error_for("VALIDATION_ERROR", arguments)
    assert snapshot(vault) == before
    assert outside.read_bytes() == outside_before


async def test_absolute_path_of_a_tracker_outside_is_refused(server: Quire, vault: Path, tmp_path: Path):
    elsewhere = tmp_path / "elsewhere" / "trackers"
    elsewhere.mkdir(parents=True)
    target = elsewhere / "2026-01-12-globex.md"
    shutil.copyfile(vault / GLOBEX, target)
    before = target.read_bytes()
    message = await server.error("VALIDATION_ERROR", tracker_path=str(target), target_status="Rejected")
    assert "outside" in message
    assert target.read_bytes() == before


async def test_symlink_leading_out_of_the_workspace_is_refused(server: Quire, vault: Path, tmp_path: Path):
    secret_folder = tmp_path / "secret-folder"
    secret_folder.mkdir()
    secret = secret_folder / "tracker.md"
    shutil.copyfile(vault / GLOBEX, secret)
    (vault / "trackers" / "link.md").symlink_to(secret)
    before = secret.read_bytes()
    message = await server.error("VALIDATION_ERROR", tracker_path="trackers/link.md", target_status="Rejected")
    assert str(secret_folder) not in message, message
    assert secret.read_bytes() == before


async def test_malformed_trackers_are_validation_errors(server: Quire, vault: Path):
    (vault / "trackers" / "no-frontmatter.md").write_text("# Just a note\n\nstatus: Reviewed\n")
    (vault / "trackers" / "no-status.md").write_text("---\ncompany: Acme\n---\n# Acme\n")
    (vault / "trackers" / "broken.md").write_text("---\ncompany: [Acme\nstatus: Reviewed\n---\n# Acme\n")
    before = snapshot(vault)
    for name in ("no-frontmatter.md", "no-status.md", "broken.md"):
        await server.error("VALIDATION_ERROR", tracker_path=f"trackers/{name}", target_status="Rejected")
    assert snapshot(vault) == before


async def test_missing_tracker_is_file_not_found(server: Quire, vault: Path):
    before = snapshot(vault)
    message = await server.error("FILE_NOT_FOUND", tracker_path="trackers/2026-03-01-missing.md",
                                 target_status="Applied")
    assert "trackers/2026-03-01-missing.md" in message
    await server.error("FILE_NOT_FOUND", tracker_path="nowhere/at/all.md", target_status="Rejected")
    assert snapshot(vault) == before


async def test_messages_never_contain_the_absolute_workspace_path(server: Quire, vault: Path):
    """Every message (top-level errors and blocked reasons) is checked by the
    helper for the workspace's absolute path; this runs one of each kind."""
    roots = {str(vault), str(vault.resolve()), str(vault.parent), str(vault.parent.resolve())}
    messages = [
        await server.error("FILE_NOT_FOUND", tracker_path="trackers/missing.md", target_status="Applied"),
        await server.error("VALIDATION_ERROR", tracker_path="../x.md", target_status="Applied"),
        await server.error("FILE_NOT_FOUND", tracker_path="trackers", target_status="Applied"),
        await server.error("VALIDATION_ERROR", tracker_path=AMAZON, target_status="Nope"),
        await server.error("VALIDATION_ERROR", tracker_path=AMAZON, target_status="Applied", extra=1),
        (await server.ok(tracker_path=STRIPE, target_status="Resume Written"))["error"],
        (await server.ok(tracker_path=AMAZON, target_status="Offer"))["error"],
    ]
    (vault / "applications" / "amazon-sde" / "resume" / "resume.pdf").unlink()
    messages.append((await server.ok(tracker_path=AMAZON, target_status="Resume Written"))["error"])
    for message in messages:
        assert message
        for root in roots:
            assert root not in message, message


async def test_unknown_tool_is_a_json_rpc_error(server: Quire):
    with pytest.raises(MCPError) as raised:
        await server.session.call_tool("no_such_tool", {"tracker_path": AMAZON})
    assert raised.value.code == -32602, raised.value.error  # INVALID_PARAMS, as the MCP spec prescribes
    # The session is still usable afterwards.
    value = await server.ok(tracker_path=GLOBEX, target_status="Applied")
    assert value["action"] == "noop"


# --- the process -------------------------------------------------------------------


def test_exits_cleanly_when_stdin_closes_with_only_json_rpc_on_stdout(quire: Path, vault: Path):
    requests = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "quire-e2e", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    before = snapshot(vault)
    stdin = "".join(json.dumps(request) + "\n" for request in requests).encode()
    process = subprocess.Popen(
        [str(quire), "serve", "--root", str(vault), "--tools", "tracker"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env={"RUST_LOG": "debug", "PATH": "/usr/bin:/bin"},
    )
    try:
        # communicate() writes everything, closes stdin, and reads to EOF.
        stdout, stderr = process.communicate(stdin, timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr.decode(errors="replace")
    lines = stdout.decode().splitlines()
    assert lines, "no output on stdout"
    messages = []
    for line in lines:
        message = json.loads(line)  # every stdout line is one JSON-RPC message
        assert message.get("jsonrpc") == "2.0", line
        assert "id" in message or "method" in message, line
        messages.append(message)
    responses = {message["id"]: message for message in messages if "id" in message and "method" not in message}
    assert responses[1]["result"]["serverInfo"]["name"] == "quire"
    assert [tool["name"] for tool in responses[2]["result"]["tools"]] == [TOOL]
    assert snapshot(vault) == before


# --- issue 8: the tracker to the letter of its design and its users' templates ----


async def test_any_bullet_point_placeholder_blocks_naming_it_and_its_line(server: Quire, vault: Path):
    """The original project's template writes `PROJECT-BULLET-POINT-1`, which none of the
    spec's three tokens matches; it passed. It is blocked, named with its 1-based line."""
    tex = vault / "applications" / "amazon-sde" / "resume" / "resume.tex"
    lines = tex.read_text().splitlines(keepends=True)
    lines.insert(5, "  \\item PROJECT-BULLET-POINT-1\n")  # becomes line 6
    tex.write_text("".join(lines))
    before = snapshot(vault)
    for dry_run in (True, False):
        value = await server.ok(tracker_path=AMAZON, target_status="Resume Written", dry_run=dry_run)
        assert_response(value, tracker_path=AMAZON, previous="Reviewed", target="Resume Written",
                        action="blocked", success=False, dry_run=dry_run)
        assert value["guardrail_check_passed"] is False
        assert value["error"] == (
            "resume.tex (applications/amazon-sde/resume/resume.tex) still contains template placeholders: "
            "`PROJECT-BULLET-POINT-1` (line 6); replace them with real content"
        ), value
    assert snapshot(vault) == before


@pytest.mark.parametrize(
    ("tracker", "old", "new", "target"),
    [
        pytest.param(AMAZON, b"status: >- # board column\n  Reviewed\n",
                     b"status: Resume Written # board column\n", "Resume Written", id="folded block"),
        pytest.param(AMAZON, b"status: |-\n  Reviewed\n # kept\n",
                     b"status: Resume Written\n # kept\n", "Resume Written", id="literal block"),
        pytest.param(GLOBEX, b"status: !!str Applied # tagged\r\n",
                     b"status: Rejected # tagged\r\n", "Rejected", id="tagged, CRLF"),
        pytest.param(GLOBEX, b"status: !!str 'Applied'\r\n",
                     b"status: Rejected\r\n", "Rejected", id="tagged single-quoted"),
        pytest.param(INITECH, b"status: Resume\n  Written\n",
                     b"status: Applied\n", "Applied", id="plain over two lines"),
    ],
)
async def test_block_tagged_and_multi_line_statuses_are_rewritten_in_place(
    server: Quire, vault: Path, tracker: str, old: bytes, new: bytes, target: str
):
    """Such a status was a top-level VALIDATION_ERROR even in a dry run. The whole old
    value becomes `status: <new>` on one line; comments and every other byte stay."""
    path = vault / tracker
    original = path.read_bytes()
    previous = re.search(rb"(?m)^status: ([^\r\n]*)", original).group(1).strip(b"'\"").decode()
    written = re.sub(rb"(?m)^status: [^\r\n]*\r?\n", lambda _: old, original, count=1)
    assert written != original
    path.write_bytes(written)
    before = snapshot(vault)
    value = await server.ok(tracker_path=tracker, target_status=target, dry_run=True)
    assert_response(value, tracker_path=tracker, previous=previous, target=target,
                    action="would_update", success=True, dry_run=True)
    assert any(f"would be written `status: {target}`" in warning for warning in value["warnings"]), value
    assert snapshot(vault) == before

    value = await server.ok(tracker_path=tracker, target_status=target)
    assert_response(value, tracker_path=tracker, previous=previous, target=target,
                    action="updated", success=True, dry_run=False)
    assert any(f"is now written `status: {target}`" in warning for warning in value["warnings"]), value
    assert path.read_bytes() == written.replace(old, new, 1)
    assert changed(before, snapshot(vault)) == {tracker}


async def test_a_status_that_cannot_be_rewritten_in_place_is_blocked(server: Quire, vault: Path):
    """An anchored status (another value may use it) is a write precondition: `blocked`,
    saying why and what to do, never a top-level error."""
    path = vault / GLOBEX
    path.write_bytes(path.read_bytes().replace(b"status: Applied\r\n", b"status: &s Applied\r\nwas: *s\r\n"))
    before = snapshot(vault)
    for dry_run in (True, False):
        value = await server.ok(tracker_path=GLOBEX, target_status="Rejected", dry_run=dry_run)
        assert_response(value, tracker_path=GLOBEX, previous="Applied", target="Rejected",
                        action="blocked", success=False, dry_run=dry_run)
        assert value["error"] == (
            f"the status of `{GLOBEX}` cannot be rewritten in place: it carries an anchor (`&name`) that "
            "other values may use; write it on one line as `status: Applied` and try again"
        ), value
    assert snapshot(vault) == before


async def test_a_folder_as_the_tracker_is_file_not_found(server: Quire, vault: Path):
    """The design's "tracker path unreadable" is FILE_NOT_FOUND (it was VALIDATION_ERROR);
    the message says what is there and what to give."""
    before = snapshot(vault)
    for path in ("trackers", "trackers/", "."):
        for dry_run in (False, True):
            message = await server.error("FILE_NOT_FOUND", tracker_path=path, target_status="Rejected",
                                         dry_run=dry_run)
            assert message == f"`{path}` is a folder, not a regular file; give the path of a file"
    assert snapshot(vault) == before


def unprivileged_vault() -> tuple[Path, Path]:
    """A copy of examples/vault that user 65534 can reach, in a folder of its own
    (pytest's tmp_path is private to root): (the folder to remove, the vault)."""
    holder = Path(tempfile.mkdtemp(prefix="quire-e2e-"))
    holder.chmod(0o755)
    vault = holder / "vault"
    shutil.copytree(EXAMPLE_VAULT, vault)
    for folder, _, _ in os.walk(vault):
        Path(folder).chmod(0o755)
    return holder, vault


async def test_a_tracker_the_server_cannot_read_is_file_not_found(quire: Path, tmp_path: Path):
    """Permission denied was VALIDATION_ERROR; it is FILE_NOT_FOUND, saying so and what
    to grant. Root reads every file, so as root the server runs as user 65534."""
    holder, vault = unprivileged_vault()
    try:
        command = quire
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if setpriv is None:
                pytest.skip("running as root without setpriv to become another user")
            # The build's folder may be private to root (a checkout in
            # `mktemp -d`): user 65534 runs it from a folder it can reach, as a
            # hard link where the file system allows (a debug build is large).
            reachable = holder / "quire"
            try:
                os.link(quire, reachable)
            except OSError:
                shutil.copy2(quire, reachable)
            reachable.chmod(0o755)
            command = holder / "quire-as-65534"
            command.write_text(f'#!/bin/sh\nexec {setpriv} --reuid=65534 --regid=65534 --clear-groups {reachable} "$@"\n')
            command.chmod(0o755)
        (vault / AMAZON).chmod(0)
        before = snapshot_without(vault, AMAZON)
        async with stdio_session(command, vault, tmp_path / "server.stderr") as server:
            message = await server.error("FILE_NOT_FOUND", tracker_path=AMAZON, target_status="Rejected")
        assert message == (
            f"cannot open `{AMAZON}`: permission denied, so the tracker cannot be read. Give the user this "
            "server runs as read permission on the file and search (x) permission on every folder above it"
        )
        assert stat.S_IMODE((vault / AMAZON).stat().st_mode) == 0
        assert snapshot_without(vault, AMAZON) == before
    finally:
        (vault / AMAZON).chmod(0o644)
        shutil.rmtree(holder)


def snapshot_without(root: Path, unreadable: str) -> dict[str, str]:
    """`snapshot` of everything but one file this process may not read."""
    mode = (root / unreadable).stat().st_mode
    (root / unreadable).chmod(0o600)
    try:
        return snapshot(root)
    finally:
        (root / unreadable).chmod(stat.S_IMODE(mode))


async def test_tracker_path_is_echoed_as_given(server: Quire, vault: Path):
    """The response's tracker_path was the resolved path (`./` and `//` collapsed, links
    followed); the design and the original echo what was given, in every result shape."""
    (vault / "trackers" / "amazon-link.md").symlink_to("2026-02-05-amazon.md")
    for given in ("./trackers//2026-02-05-amazon.md", "trackers/../trackers/2026-02-05-amazon.md",
                  "trackers/amazon-link.md"):
        value = await server.ok(tracker_path=given, target_status="Resume Written", dry_run=True)
        assert value["action"] == "would_update" and value["tracker_path"] == given, value
        value = await server.ok(tracker_path=given, target_status="Reviewed")
        assert value["action"] == "noop" and value["tracker_path"] == given, value
        value = await server.ok(tracker_path=given, target_status="Offer")
        assert value["action"] == "blocked" and value["tracker_path"] == given, value
    value = await server.ok(tracker_path="./trackers/amazon-link.md", target_status="Resume Written")
    assert value["action"] == "updated" and value["tracker_path"] == "./trackers/amazon-link.md", value
    assert (vault / "trackers" / "amazon-link.md").is_symlink()
    assert b"\nstatus: Resume Written\n" in read(vault, AMAZON)
    # An absolute path is echoed too (the caller sent it), never in messages.
    absolute = str(vault / GLOBEX)
    value = await server.ok(tracker_path=absolute, target_status="Reviewed")
    assert value["action"] == "blocked" and value["tracker_path"] == absolute, value
    assert str(vault) not in value["error"]


async def test_control_characters_in_the_tracker_path_are_escaped_in_messages(server: Quire, vault: Path):
    """tracker_path is echoed as given (JSON escapes it); a message naming the path shows
    its control characters escaped, so a terminal printing it is not steered."""
    name = "trackers/\x1b[2Jcleared\n.md"
    shutil.copyfile(vault / GLOBEX, vault / name)
    value = await server.ok(tracker_path=name, target_status="Reviewed")
    assert value["tracker_path"] == name
    assert value["action"] == "blocked", value
    (vault / name).chmod(0o444)
    value = await server.ok(tracker_path=name, target_status="Rejected")
    assert value["action"] == "blocked" and value["tracker_path"] == name, value
    assert value["error"].startswith("`trackers/\\u{1b}[2Jcleared\\n.md` is read-only"), value
    message = await server.error("FILE_NOT_FOUND", tracker_path="trackers/\x1b]0;title\x07.md",
                                 target_status="Rejected")
    assert message == "`trackers/\\u{1b}]0;title\\u{7}.md` does not exist in the workspace"
    for text in (value["error"], message):
        assert not any(ord(c) < 0x20 or ord(c) == 0x7F for c in text), text


async def test_an_unparsable_resume_path_is_shown_without_its_absolute_path(server: Quire, vault: Path):
    """It was repeated raw (`[[/home/user/private/resume.pdf`); absolute paths in it are
    shortened as for a parseable one: `.../name`."""
    path = vault / AMAZON
    path.write_bytes(re.sub(rb'(?m)^resume_path: .*$', b'resume_path: "[[/home/user/private/resume.pdf"',
                            path.read_bytes(), count=1))
    before = snapshot(vault)
    for dry_run in (True, False):
        message = await server.error("VALIDATION_ERROR", tracker_path=AMAZON, target_status="Resume Written",
                                     dry_run=dry_run)
        assert message == (
            "the tracker's `resume_path` (`[[.../resume.pdf`) is not a path or a wiki-link; write it as "
            "`[[folder/resume/resume.pdf]]` or `folder/resume/resume.pdf`"
        )
        assert "/home/user" not in message and "private" not in message
    assert snapshot(vault) == before
