"""`--writes ask` (the default) through the official Python MCP client: every
write is put to the user first, and only an approval writes anything.

- over stdio on a handshake-era session, with an `elicitation_callback`
  that approves once, approves for the session, denies, declines, cancels,
  or answers something else;
- on a 2026-07-28 session (`Client(mode="2026-07-28")`), where the server
  answers with an input-required result and the client asks and retries;
- over Streamable HTTP, where the question travels on the call's stream;
- with a client that cannot elicit: a preview and a single-use
  `confirmation` token, and every way a token can be wrong.
"""

from __future__ import annotations

import os
import subprocess
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable

import pytest
from mcp import Client, ClientSession, StdioServerParameters, stdio_client, types
from mcp.client.streamable_http import streamable_http_client

from conftest import Quire, changed, snapshot
from test_tracker_http import serving_http

pytestmark = pytest.mark.anyio

NEW = {"path": "ideas/Asked", "content": "# Asked\n\nSee [[job-search]].\n"}
TARGET = "notes/job-search"


class User:
    """An elicitation callback that answers as told and records each
    question it was asked."""

    def __init__(self, answer: Callable[[], types.ElicitResult]):
        self.answer = answer
        self.questions: list[types.ElicitRequestParams] = []

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.questions.append(params)
        return self.answer()


def choosing(decision: str) -> User:
    return User(lambda: types.ElicitResult(action="accept", content={"decision": decision}))


def acting(action: str) -> User:
    return User(lambda: types.ElicitResult(action=action))


@asynccontextmanager
async def asking_session(quire: Path, vault: Path, tmp_path: Path, user: User | None) -> AsyncIterator[Quire]:
    """`quire serve --tools kiln` (writes: the default, ask) over stdio, with
    a handshake-era session whose client elicits through `user` (or cannot
    elicit at all)."""
    parameters = StdioServerParameters(
        command=str(quire),
        args=["serve", "--root", str(vault), "--tools", "kiln"],
        env={"RUST_LOG": os.environ.get("RUST_LOG", "info")},
    )
    with open(tmp_path / "server.stderr", "a", encoding="utf-8") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30, elicitation_callback=user) as session:
                await session.initialize()
                await session.list_tools()
                yield Quire(session, vault)


async def test_the_user_is_asked_exactly_what_will_change_and_approves_once(quire: Path, vault: Path, tmp_path: Path):
    user = choosing("once")
    async with asking_session(quire, vault, tmp_path, user) as server:
        created = await server.ok_for(NEW, tool="create_note")
        assert created["path"] == "ideas/Asked.md" and "declined" not in created
        assert (vault / "ideas" / "Asked.md").read_text(encoding="utf-8") == NEW["content"]
        [question] = user.questions
        assert question.message == (
            "An agent wants to change your notes. Create the note `ideas/Asked.md` (3 words, 29 bytes)."
        )
        choices = question.requested_schema["properties"]["decision"]["oneOf"]
        assert [choice["const"] for choice in choices] == ["once", "session", "deny"]

        # Approved once: the next write is asked about again.
        await server.ok_for({"path": "ideas/Asked", "frontmatter": {"status": "new"}}, tool="update_note")
        assert len(user.questions) == 2
        assert user.questions[1].message.endswith(
            "Replace the frontmatter of `ideas/Asked.md` (its content is kept); it will hold 3 words."
        )
        deleted = await server.ok_for({"path": TARGET}, tool="delete_note")
        assert deleted["deleted"] is True and deleted["backlink_count"] == 1
        assert user.questions[2].message.endswith(
            "Delete `notes/job-search.md` (moved into .trash/, recoverable). 1 note links to it, and its link "
            "will lead nowhere: ideas/Asked.md."
        )
        assert (vault / ".trash" / "job-search.md").exists()
        # A whole-block replace says which properties it removes (issue 25).
        replaced = await server.ok_for({"path": "ideas/Asked", "frontmatter": {"owner": "me"}}, tool="update_note")
        assert replaced["removed_properties"] == ["status"]
        assert user.questions[3].message.endswith(
            "it will hold 3 words. It removes 1 property: status. It changes 1 property: owner."
        )


async def test_approving_for_the_session_asks_no_more(quire: Path, vault: Path, tmp_path: Path):
    user = choosing("session")
    async with asking_session(quire, vault, tmp_path, user) as server:
        await server.ok_for(NEW, tool="create_note")
        await server.ok_for({"path": "ideas/Asked", "content": "changed\n"}, tool="update_note")
        await server.ok_for({"path": "ideas/Asked", "permanent": True}, tool="delete_note")
        assert len(user.questions) == 1
        assert not (vault / "ideas" / "Asked.md").exists()
    # A new session starts asking again.
    user = choosing("deny")
    async with asking_session(quire, vault, tmp_path, user) as server:
        declined = await server.ok_for(NEW, tool="create_note")
        assert declined["declined"] is True and len(user.questions) == 1


@pytest.mark.parametrize(
    "user, reason",
    [
        (choosing("deny"), "the user denied the change"),
        (acting("decline"), "the user declined the change"),
        (acting("cancel"), "the user dismissed the question without deciding"),
        (choosing("always"), "the answer was not one of the choices (once, session, deny)"),
    ],
    ids=["deny", "decline", "cancel", "unknown-choice"],
)
async def test_anything_but_an_approval_writes_nothing(quire: Path, vault: Path, tmp_path: Path, user: User,
                                                      reason: str):
    before = snapshot(vault)
    async with asking_session(quire, vault, tmp_path, user) as server:
        for tool, arguments in [
            ("create_note", NEW),
            ("update_note", {"path": TARGET, "content": "gone?\n"}),
            ("delete_note", {"path": TARGET}),
        ]:
            value = await server.ok_for(arguments, tool=tool)
            expected = {"path": value["path"], "declined": True, "reason": reason}
            if tool == "delete_note":
                expected["deleted"] = False
            assert value == expected
    assert changed(before, snapshot(vault)) == set()


async def test_a_refused_write_is_refused_before_anyone_is_asked(quire: Path, vault: Path, tmp_path: Path):
    user = choosing("once")
    async with asking_session(quire, vault, tmp_path, user) as server:
        message = await server.error_for("VALIDATION_ERROR", {"path": TARGET, "content": "x"}, tool="create_note")
        assert "update_note" in message
        await server.error_for("FILE_NOT_FOUND", {"path": "no/such note"}, tool="delete_note")
        await server.error_for("VALIDATION_ERROR", {"path": TARGET, "content": "x", "expected_sha256": "0" * 64},
                               tool="update_note")
    assert user.questions == []


# --- a client that cannot elicit: the confirmation token -----------------------------------------------------


async def test_without_elicitation_a_preview_and_a_token_confirm_the_write(quire: Path, vault: Path,
                                                                          tmp_path: Path):
    async with asking_session(quire, vault, tmp_path, None) as server:
        before = snapshot(vault)
        pending = await server.ok_for({"path": TARGET}, tool="delete_note")
        assert pending["pending"] is True and pending["deleted"] is False
        assert pending["change"] == (
            "Delete `notes/job-search.md` (moved into .trash/, recoverable). No note links to it."
        )
        assert pending["expires_in_seconds"] == 300
        assert "same call again" in pending["next"]
        token = pending["confirmation"]
        assert len(token) == 32
        assert changed(before, snapshot(vault)) == set()

        # A token for another call, then a made-up one, write nothing.
        other = await server.error_for("VALIDATION_ERROR", {"path": TARGET, "permanent": True, "confirmation": token},
                                       tool="delete_note")
        assert "other arguments" in other
        again = await server.error_for("VALIDATION_ERROR", {"path": TARGET, "confirmation": token}, tool="delete_note")
        assert "already used" in again
        assert changed(before, snapshot(vault)) == set()

        token = (await server.ok_for({"path": TARGET}, tool="delete_note"))["confirmation"]
        deleted = await server.ok_for({"path": TARGET, "confirmation": token}, tool="delete_note")
        assert deleted["deleted"] is True and deleted["trashed_to"] == ".trash/job-search.md"
        assert changed(before, snapshot(vault)) == {".trash", ".trash/job-search.md", "notes/job-search.md"}


async def test_a_token_does_not_outlive_a_change_to_the_note(quire: Path, vault: Path, tmp_path: Path):
    async with asking_session(quire, vault, tmp_path, None) as server:
        arguments = {"path": TARGET, "content": "replaced\n"}
        token = (await server.ok_for(arguments, tool="update_note"))["confirmation"]
        note = vault / "notes" / "job-search.md"
        note.write_text(note.read_text(encoding="utf-8") + "\nedited meanwhile\n", encoding="utf-8")
        edited = note.read_bytes()
        message = await server.error_for("VALIDATION_ERROR", {**arguments, "confirmation": token}, tool="update_note")
        assert "changed since the change was shown for approval" in message
        assert note.read_bytes() == edited

        created = await server.ok_for(NEW, tool="create_note")
        (vault / "ideas").mkdir(exist_ok=True)
        (vault / "ideas" / "Asked.md").write_text("someone else's\n", encoding="utf-8")
        message = await server.error_for("VALIDATION_ERROR", {**NEW, "confirmation": created["confirmation"]},
                                         tool="create_note")
        assert "already exists" in message
        assert (vault / "ideas" / "Asked.md").read_text(encoding="utf-8") == "someone else's\n"


async def test_a_confirmation_of_the_wrong_type_is_refused(quire: Path, vault: Path, tmp_path: Path):
    async with asking_session(quire, vault, tmp_path, None) as server:
        message = await server.error_for("VALIDATION_ERROR", {**NEW, "confirmation": 7}, tool="create_note")
        assert "`confirmation` must be the token string" in message
    assert not (vault / "ideas").exists()


# --- a 2026-07-28 session: the input-required result ---------------------------------------------------------


async def modern_call(quire: Path, vault: Path, tmp_path: Path, user: User, calls: list[tuple[str, dict]]) -> list:
    parameters = StdioServerParameters(
        command=str(quire),
        args=["serve", "--root", str(vault), "--tools", "kiln"],
        env={"RUST_LOG": os.environ.get("RUST_LOG", "info")},
    )
    results = []
    with open(tmp_path / "server.stderr", "a", encoding="utf-8") as errlog:
        client = Client(parameters, mode="2026-07-28", elicitation_callback=user, read_timeout_seconds=30)
        async with client:
            assert client.protocol_version == "2026-07-28"
            for tool, arguments in calls:
                results.append(await client.call_tool(tool, arguments))
    return results


async def test_a_2026_07_28_client_is_asked_through_an_input_required_result(quire: Path, vault: Path,
                                                                            tmp_path: Path):
    user = choosing("once")
    [created] = await modern_call(quire, vault, tmp_path, user, [("create_note", NEW)])
    assert created.is_error is False, created
    assert created.structured_content["path"] == "ideas/Asked.md"
    assert (vault / "ideas" / "Asked.md").read_text(encoding="utf-8") == NEW["content"]
    [question] = user.questions
    assert question.message.endswith("Create the note `ideas/Asked.md` (3 words, 29 bytes).")

    before = snapshot(vault)
    user = choosing("deny")
    [declined] = await modern_call(quire, vault, tmp_path, user, [("delete_note", {"path": TARGET})])
    assert declined.is_error is False, declined
    assert declined.structured_content == {
        "path": "notes/job-search.md", "declined": True, "reason": "the user denied the change", "deleted": False,
    }
    assert changed(before, snapshot(vault)) == set()


# --- Streamable HTTP ----------------------------------------------------------------------------------------


async def test_over_http_the_question_travels_on_the_call_stream(quire: Path, vault: Path, tmp_path: Path):
    with serving_http(quire, vault, tmp_path / "server.stderr", "kiln") as (url, _process):
        user = choosing("session")
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30, elicitation_callback=user) as session:
                await session.initialize()
                created = await session.call_tool("create_note", NEW)
                assert created.is_error is False, created
                updated = await session.call_tool("update_note", {"path": "ideas/Asked", "content": "again\n"})
                assert updated.is_error is False, updated
        assert len(user.questions) == 1
        assert (vault / "ideas" / "Asked.md").read_text(encoding="utf-8") == "again\n"

        # Another session's approval is its own: this one is asked.
        user = choosing("deny")
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30, elicitation_callback=user) as session:
                await session.initialize()
                declined = await session.call_tool("delete_note", {"path": "ideas/Asked"})
                assert declined.structured_content["declined"] is True, declined
        assert len(user.questions) == 1
        assert (vault / "ideas" / "Asked.md").exists()


# --- directory scope expansion: one folder outside the root, approved for the session ----------------------


class Answering(User):
    def __init__(self, folder: str, write: str):
        super().__init__(lambda: types.ElicitResult(action="cancel"))
        self.folder, self.write = folder, write

    async def __call__(self, context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        self.questions.append(params)
        decision = self.folder if "outside the kiln root" in params.message else self.write
        return types.ElicitResult(action="accept", content={"decision": decision})


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the vault, with one note."""
    folder = tmp_path / "elsewhere"
    folder.mkdir()
    (folder / "Far note.md").write_text("# Far\n\nfrom elsewhere\n", encoding="utf-8")
    return folder


async def test_a_folder_outside_the_root_is_used_only_once_the_user_allows_it(quire: Path, vault: Path,
                                                                             tmp_path: Path, outside: Path):
    user = Answering("allow", "once")
    far = str(outside / "Far note.md")
    async with asking_session(quire, vault, tmp_path, user) as server:
        read = await server.ok_for({"path": far}, tool="read_note")
        assert read["content"] == "# Far\n\nfrom elsewhere\n"
        assert read["path"] == far
        [question] = user.questions
        assert question.message == (
            f"An agent asks to use the folder `{outside}`, outside the kiln root `{vault}`, for read_note of "
            "`Far note.md`. Allow this session to read notes there (each write is still asked about)?"
        )
        # Approved for the session: the same folder is not asked about again,
        # by absolute path or by one that climbs out of the root.
        metadata = await server.ok_for({"path": "../elsewhere/Far note"}, tool="read_metadata")
        assert metadata["path"] == far and metadata["stats"]["word_count"] == 3, metadata["stats"]
        assert len(user.questions) == 1

        # A write there is still asked about, showing where it goes.
        created = await server.ok_for({"path": str(outside / "New.md"), "content": "new\n"}, tool="create_note")
        assert created["path"] == str(outside / "New.md")
        assert (outside / "New.md").read_text(encoding="utf-8") == "new\n"
        assert user.questions[1].message.endswith(f"Create the note `{outside / 'New.md'}` (1 word, 4 bytes).")
        # The root's notes are untouched and still answer by their own paths.
        assert not (vault / "New.md").exists()
        await server.ok_for({"path": TARGET}, tool="read_note")

        # One extra folder per session: another is refused, nothing read.
        other = tmp_path / "another"
        other.mkdir()
        (other / "x.md").write_text("x\n", encoding="utf-8")
        message = await server.error_for("VALIDATION_ERROR", {"path": str(other / "x.md")}, tool="read_note")
        assert "the one other folder this session may use" in message
        assert len(user.questions) == 2


async def test_a_folder_the_user_denies_is_not_read(quire: Path, vault: Path, tmp_path: Path, outside: Path):
    user = Answering("deny", "once")
    async with asking_session(quire, vault, tmp_path, user) as server:
        message = await server.error_for("VALIDATION_ERROR", {"path": str(outside / "Far note.md")},
                                         tool="read_note")
        assert "did not let this session use" in message and "from elsewhere" not in message
        before = snapshot(outside)
        await server.error_for("VALIDATION_ERROR", {"path": str(outside / "Far note.md")}, tool="delete_note")
        assert changed(before, snapshot(outside)) == set()
        assert len(user.questions) == 2  # asked each time, never remembered as a yes


async def test_a_folder_outside_is_refused_without_a_way_to_ask(quire: Path, vault: Path, tmp_path: Path,
                                                               outside: Path):
    async with asking_session(quire, vault, tmp_path, None) as server:
        message = await server.error_for("VALIDATION_ERROR", {"path": str(outside / "Far note.md")},
                                         tool="read_note")
        assert "is outside the kiln root" in message and "cannot ask the user" in message
        # Whether the folder exists is not told.
        missing = await server.error_for("VALIDATION_ERROR", {"path": str(tmp_path / "nowhere" / "x.md")},
                                         tool="read_note")
        assert missing.replace(str(tmp_path / "nowhere" / "x.md"), "P") == message.replace(
            str(outside / "Far note.md"), "P")
    args = ("--tools", "kiln", "--writes", "allow")
    from conftest import stdio_session
    async with stdio_session(quire, vault, tmp_path / "allow.stderr", args=args) as server:
        message = await server.error_for("VALIDATION_ERROR", {"path": "../elsewhere/Far note.md"},
                                         tool="read_note")
        assert "climbs above the kiln root" in message, message


async def test_a_2026_07_28_client_is_asked_about_the_folder_then_the_write(quire: Path, vault: Path,
                                                                           tmp_path: Path, outside: Path):
    user = Answering("allow", "once")
    calls = [
        ("read_note", {"path": str(outside / "Far note.md")}),
        ("update_note", {"path": str(outside / "Far note.md"), "content": "changed\n"}),
    ]
    read, updated = await modern_call(quire, vault, tmp_path, user, calls)
    assert read.is_error is False, read
    assert read.structured_content["content"] == "# Far\n\nfrom elsewhere\n"
    assert updated.is_error is False, updated
    assert updated.structured_content["path"] == str(outside / "Far note.md")
    assert (outside / "Far note.md").read_text(encoding="utf-8") == "changed\n"
    # The folder once (a 2026-07-28 connection is one session), then the write.
    assert ["outside the kiln root" in q.message for q in user.questions] == [True, False]


# --- issue 23: what an attack on the approval model found ------------------------------------------------------


async def test_a_token_of_one_http_session_is_refused_in_another(quire: Path, vault: Path, tmp_path: Path):
    """Tokens are bound to the session that asked: a second HTTP session
    (another agent on the same server) cannot spend a first one's token."""
    with serving_http(quire, vault, tmp_path / "server.stderr", "kiln") as (url, _process):
        before = snapshot(vault)
        async with streamable_http_client(url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30) as first:
                await first.initialize()
                pending = await first.call_tool("delete_note", {"path": TARGET})
                assert pending.structured_content["pending"] is True, pending
                token = pending.structured_content["confirmation"]
                async with streamable_http_client(url) as (read2, write2):
                    async with ClientSession(read2, write2, read_timeout_seconds=30) as second:
                        await second.initialize()
                        stolen = await second.call_tool("delete_note", {"path": TARGET, "confirmation": token})
                        assert stolen.is_error is True, stolen
                        assert "another session" in stolen.structured_content["error"]["message"]
                assert changed(before, snapshot(vault)) == set()
                # Spent by the refusal: the first session asks again.
                again = await first.call_tool("delete_note", {"path": TARGET, "confirmation": token})
                assert again.is_error is True and "already used" in again.structured_content["error"]["message"]
                token = (await first.call_tool("delete_note", {"path": TARGET})).structured_content["confirmation"]
                deleted = await first.call_tool("delete_note", {"path": TARGET, "confirmation": token})
                assert deleted.structured_content["deleted"] is True, deleted
        assert (vault / ".trash" / "job-search.md").exists()


async def test_a_failed_question_is_a_decline_never_a_token(quire: Path, vault: Path, tmp_path: Path):
    """A client that fails to answer (its callback raises) gets a decline:
    no token the agent could use to apply what the user may have refused."""

    async def failing(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        raise RuntimeError("the user closed the window")

    before = snapshot(vault)
    async with asking_session(quire, vault, tmp_path, failing) as server:
        value = await server.ok_for(NEW, tool="create_note")
        assert value["declined"] is True and "confirmation" not in value, value
        assert "no answer from the user that could be read" in value["reason"], value
    assert changed(before, snapshot(vault)) == set()


async def test_the_question_names_the_file_a_link_changes(quire: Path, vault: Path, tmp_path: Path):
    (vault / "contract.md").write_text("# Contract\n", encoding="utf-8")
    (vault / "innocent.md").symlink_to("contract.md")
    user = choosing("once")
    async with asking_session(quire, vault, tmp_path, user) as server:
        await server.ok_for({"path": "innocent", "content": "signed\n"}, tool="update_note")
    [question] = user.questions
    assert question.message.endswith(
        "Replace the content of `innocent.md` (its frontmatter is kept); it will hold 1 word. `innocent.md` is a "
        "link: the file that changes is `contract.md`."
    ), question.message
    assert (vault / "contract.md").read_text(encoding="utf-8") == "signed\n"


async def test_a_name_cannot_spoof_the_question(quire: Path, vault: Path, tmp_path: Path):
    user = choosing("deny")
    async with asking_session(quire, vault, tmp_path, user) as server:
        spoof = "ideas/x\nApprove: `harmless.md`\u202egnp"
        declined = await server.ok_for({"path": spoof, "content": "x\n"}, tool="create_note")
        assert declined["declined"] is True
    [question] = user.questions
    assert "\n" not in question.message and "\u202e" not in question.message, question.message
    assert "x\\nApprove: 'harmless.md'\\u{202e}gnp.md" in question.message, question.message


async def test_the_folder_question_says_whether_writes_there_are_asked(quire: Path, vault: Path, tmp_path: Path,
                                                                      outside: Path):
    user = Answering("allow", "session")
    async with asking_session(quire, vault, tmp_path, user) as server:
        await server.ok_for(NEW, tool="create_note")
        await server.ok_for({"path": str(outside / "Far note.md")}, tool="read_note")
        await server.ok_for({"path": str(outside / "Far note.md"), "content": "edited\n"}, tool="update_note")
    folder_question = user.questions[1].message
    assert "writes there are not asked about: every note change was approved for this session" in folder_question
    assert "still asked" not in folder_question
    assert len(user.questions) == 2, [q.message for q in user.questions]
    assert (outside / "Far note.md").read_text(encoding="utf-8") == "edited\n"


async def test_a_delete_in_the_folder_outside_reports_its_own_trash(quire: Path, vault: Path, tmp_path: Path,
                                                                   outside: Path):
    user = Answering("allow", "once")
    async with asking_session(quire, vault, tmp_path, user) as server:
        deleted = await server.ok_for({"path": str(outside / "Far note.md")}, tool="delete_note")
    assert deleted["trashed_to"] == str(outside / ".trash" / "Far note.md"), deleted
    assert (outside / ".trash" / "Far note.md").exists()
    assert not (vault / ".trash").exists()


async def test_a_trash_that_is_a_link_and_a_link_out(quire: Path, vault: Path, tmp_path: Path):
    """A `.trash` that leads back among the notes is refused; a note that is a
    link out of the root can be trashed (the link moves, its target stays)."""
    from conftest import stdio_session
    secret = tmp_path / "secret.md"
    secret.write_text("secret\n", encoding="utf-8")
    (vault / "Out.md").symlink_to(secret)
    args = ("--tools", "kiln", "--writes", "allow")
    async with stdio_session(quire, vault, tmp_path / "allow.stderr", args=args) as server:
        trashed = await server.ok_for({"path": "Out"}, tool="delete_note")
        assert trashed["trashed_to"] == ".trash/Out.md", trashed
        assert (vault / ".trash" / "Out.md").is_symlink() and secret.read_text(encoding="utf-8") == "secret\n"
        (vault / ".trash").rename(vault / "old-trash")
        (vault / ".trash").symlink_to("notes")
        message = await server.error_for("VALIDATION_ERROR", {"path": TARGET}, tool="delete_note")
        assert "the trash folder `.trash` is a symbolic link (it leads to `notes`)" in message, message
        assert (vault / "notes" / "job-search.md").exists()


async def test_a_note_is_created_in_the_folder_written_nfd(quire: Path, vault: Path, tmp_path: Path):
    from conftest import stdio_session
    nfd = "re\u0301sume\u0301"
    (vault / nfd).mkdir()
    (vault / nfd / "old.md").write_text("old\n", encoding="utf-8")
    args = ("--tools", "kiln", "--writes", "allow")
    async with stdio_session(quire, vault, tmp_path / "allow.stderr", args=args) as server:
        created = await server.ok_for({"path": "résumé/cv", "content": "# CV\n"}, tool="create_note")
        assert created["path"] == "résumé/cv.md"
        listed = await server.ok_for({"folder": "résumé"}, tool="list_notes")
        assert [note["path"] for note in listed["notes"]] == ["résumé/cv.md", "résumé/old.md"], listed
    assert sorted(p.name for p in vault.iterdir() if "sum" in p.name) == [nfd]
    assert (vault / nfd / "cv.md").read_text(encoding="utf-8") == "# CV\n"


async def test_a_move_asks_naming_the_notes_whose_links_change(quire: Path, vault: Path, tmp_path: Path):
    """Issue 28: move_note's question names every note whose links are
    rewritten; a denial moves nothing, an approval moves the note and
    rewrites its links, and the result and the files agree."""
    linking = vault / "ideas" / "Linking.md"
    linking.parent.mkdir(exist_ok=True)
    linking.write_bytes(b"---\r\nup: \"[[job-search]]\"\r\n---\r\nSee [[job-search#Plan|the plan]].\r\n")
    user = choosing("deny")
    async with asking_session(quire, vault, tmp_path, user) as server:
        before = snapshot(vault)
        arguments = {"path": TARGET, "new_path": "archive/Job hunt"}
        declined = await server.ok_for(arguments, tool="move_note")
        assert declined["declined"] is True
        [question] = user.questions
        assert question.message == (
            "An agent wants to change your notes. Move `notes/job-search.md` to `archive/Job hunt.md`. 2 links in 1 "
            "note will be rewritten to keep leading where they led: ideas/Linking.md (2 links)."
        )
        assert changed(before, snapshot(vault)) == set()
        user.answer = choosing("once").answer
        moved = await server.ok_for(arguments, tool="move_note")
        assert moved["moved"] is True and moved["new_path"] == "archive/Job hunt.md"
        assert moved["links_changed"] == 2
        assert moved["relinked"] == [{"path": "ideas/Linking.md", "links": 2, "lines": [2, 4]}]
        assert linking.read_bytes() == (
            b"---\r\nup: \"[[Job hunt]]\"\r\n---\r\nSee [[Job hunt#Plan|the plan]].\r\n"
        )
        assert not (vault / "notes" / "job-search.md").exists()
        assert changed(before, snapshot(vault)) == {
            "archive", "archive/Job hunt.md", "notes/job-search.md", "ideas/Linking.md"}
        # The index saw it: the note's backlinks are where they were.
        metadata = await server.ok_for({"path": "archive/Job hunt"}, tool="read_metadata")
        assert metadata["backlinks"] == ["ideas/Linking.md"]


async def test_a_move_confirmed_by_token_is_refused_once_its_links_changed(quire: Path, vault: Path,
                                                                           tmp_path: Path):
    async with asking_session(quire, vault, tmp_path, None) as server:
        arguments = {"path": TARGET, "new_path": "archive/Job hunt"}
        pending = await server.ok_for(arguments, tool="move_note")
        assert pending["pending"] is True
        assert pending["change"].endswith("No link needs to change.")
        # A note linking to it appears before the user answers: the token
        # no longer fits what would change.
        (vault / "Fresh.md").write_text("[[job-search]]\n", encoding="utf-8")
        refused = await server.error_for("VALIDATION_ERROR", {**arguments, "confirmation": pending["confirmation"]},
                                         tool="move_note")
        assert "changed since the change was shown" in refused
        assert (vault / "notes" / "job-search.md").exists()
        pending = await server.ok_for(arguments, tool="move_note")
        assert "Fresh.md" in pending["change"]
        moved = await server.ok_for({**arguments, "confirmation": pending["confirmation"]}, tool="move_note")
        assert moved["relinked"] == [{"path": "Fresh.md", "links": 1, "lines": [1]}]
        assert (vault / "Fresh.md").read_text(encoding="utf-8") == "[[Job hunt]]\n"


async def test_a_move_in_the_folder_outside_stays_there_and_says_so(quire: Path, vault: Path, tmp_path: Path,
                                                                   outside: Path):
    """A move in the session's extra folder: `new_path` absolute in it (or
    relative to it), the question and the result name both paths as the
    agent gave them, and nothing lands in the root."""
    (outside / "Linking.md").write_text("See [[Far note]].\n", encoding="utf-8")
    user = Answering("allow", "once")
    async with asking_session(quire, vault, tmp_path, user) as server:
        moved = await server.ok_for(
            {"path": str(outside / "Far note.md"), "new_path": str(outside / "archive" / "Far away.md")},
            tool="move_note")
    assert moved["path"] == str(outside / "Far note.md"), moved
    assert moved["new_path"] == str(outside / "archive" / "Far away.md"), moved
    assert (outside / "archive" / "Far away.md").exists() and not (outside / "Far note.md").exists()
    assert (outside / "Linking.md").read_text(encoding="utf-8") == "See [[Far away]].\n"
    assert not (vault / "archive").exists()
    question = user.questions[-1].message
    assert f"Move `{outside / 'Far note.md'}` to `{outside / 'archive' / 'Far away.md'}`." in question, question
    assert str(outside / "Linking.md") in question, question
    assert moved["relinked"] == [{"path": str(outside / "Linking.md"), "links": 1, "lines": [1]}], moved
