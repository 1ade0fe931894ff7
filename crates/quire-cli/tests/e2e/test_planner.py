"""The `planner` toolset end to end: `quire serve --tools planner` over stdio,
driven by the official Python MCP client, with the plan kept in each of its
three stores (a plain file, the git directory, the Jujutsu change
description). Every step checks the answer and what the store holds."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

from conftest import TOOL, Quire, changed, snapshot, stdio_session

pytestmark = pytest.mark.anyio

TOOLS = ["gather_requirements", "set_overarching_goal", "set_detailed_goal", "set_plan", "mark_task", "finish_job"]
RESPONSE_FIELDS = {"stage", "stage_name", "store", "document", "rendered", "summary", "guidance", "errors", "warnings"}
COMMIT_TYPES = ["feat", "fix", "refactor", "build", "chore", "docs", "lint", "infra", "spec"]
JJ_VERSION = "0.45.1"

# --- the plan the workflow builds --------------------------------------------------

GOAL = {"type": "feat", "scope": "planner", "breaking": True, "title": "Keep the plan with the change"}
HEADER = "feat(planner)!: Keep the plan with the change"
DESCRIPTION = (
    "Agents lose track of multi-step work, so the plan lives in the change description "
    "and every step is checked off there."
)
CONSTRAINTS = "- Never: store the plan in the work tree\n- Avoid: network access"
PLAN = [
    [False, "Parse the plan", [
        [False, "Read headers", []],
        [False, "Read tasks", [
            [False, "Handle indentation", []],
        ]],
    ]],
    [False, "Write the docs", []],
]
# Leaves before their parents: a parent is done only when its subtasks are.
MARKS = [
    ("Read headers", "1.1"),
    ("Handle indentation", "1.2.1"),
    ("Read tasks", "1.2"),
    ("Parse the plan", "1"),
    ("Write the docs", "2"),
]


def tasks_text(done: set[str]) -> str:
    """The task block with the tasks in `done` checked."""
    def box(text: str) -> str:
        return "x" if text in done else " "
    return (
        f"- [{box('Parse the plan')}]: Parse the plan\n"
        f"  - [{box('Read headers')}]: Read headers\n"
        f"  - [{box('Read tasks')}]: Read tasks\n"
        f"    - [{box('Handle indentation')}]: Handle indentation\n"
        f"- [{box('Write the docs')}]: Write the docs\n"
    )


# What stage 6's guidance says about starting the next piece of work.
FRESH_START = {"file": "start_new: true", "git": "post-commit hook", "jj": "`jj new`"}

STAGE_1 = f"{HEADER}\n"
STAGE_2 = f"{HEADER}\n\n{DESCRIPTION}\n"
STAGE_4 = f"{HEADER}\n\n{DESCRIPTION}\n\n{CONSTRAINTS}\n"
ALL_DONE = {text for text, _ in MARKS}
STAGE_6 = f"{STAGE_4}\n{tasks_text(ALL_DONE)}\n~~~ COMPLETE ~~~\n"
FINAL_DOCUMENT = {
    "header": {"type": "feat", "scope": "planner", "breaking": True, "title": "Keep the plan with the change"},
    "description": DESCRIPTION,
    "constraints": [["Never", "store the plan in the work tree"], ["Avoid", "network access"]],
    "tasks": [
        [True, "Parse the plan", [
            [True, "Read headers", []],
            [True, "Read tasks", [[True, "Handle indentation", []]]],
        ]],
        [True, "Write the docs", []],
    ],
    "direction": "~~~ COMPLETE ~~~",
}

# --- jj ------------------------------------------------------------------------------


def find_jj() -> Path | None:
    """`jj` on PATH, else in ~/.cargo/bin (where `.ci/test` installs it)."""
    found = shutil.which("jj")
    if found:
        return Path(found)
    cargo_home = Path(os.environ.get("CARGO_HOME") or Path.home() / ".cargo")
    candidate = cargo_home / "bin" / "jj"
    if candidate.is_file() and os.access(candidate, os.X_OK):
        return candidate
    return None


JJ = find_jj()
JJ_MISSING = (
    "jj is not installed (not on PATH and not in ~/.cargo/bin), so the Jujutsu plan store "
    f"is NOT tested end to end; install it with `cargo install --locked jj-cli --version {JJ_VERSION}` "
    "(`.ci/test` does)"
)


def require_jj(test: str) -> Path:
    if JJ is None:
        pytest.skip(f"{test}: {JJ_MISSING}")
    return JJ


# The lock files the server keeps to serialize read-modify-write across
# processes: beside the plan file, or in the repository's metadata.
LOCK_FILES = {".PLAN.md.lock", ".jj/quire-plan.lock", ".git/QUIRE_PLAN.lock"}


def without_locks(entries: dict[str, str]) -> dict[str, str]:
    return {path: digest for path, digest in entries.items() if path not in LOCK_FILES}


def hermetic_env(tmp_path: Path) -> dict[str, str]:
    """The environment of the server and of the jj/git commands the tests run:
    a private HOME, a jj config with a user, no system git config, no git
    repository above the test folder, and PATH (with jj's folder)."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    config = home / "jj-config.toml"
    config.write_text(
        '[user]\nname = "Quire Test"\nemail = "quire-test@example.invalid"\n\n'
        '[ui]\npaginate = "never"\ncolor = "never"\n',
        encoding="utf-8",
    )
    path = os.environ.get("PATH", os.defpath)
    if JJ is not None:
        path = f"{JJ.parent}{os.pathsep}{path}"
    return {
        "PATH": path,
        "HOME": str(home),
        "JJ_CONFIG": str(config),
        "JJ_USER": "Quire Test",
        "JJ_EMAIL": "quire-test@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
        "LC_ALL": "C.UTF-8",
    }


def run(command: list[str], cwd: Path, env: dict[str, str]) -> str:
    completed = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert completed.returncode == 0, f"{command} failed:\n{completed.stderr}"
    return completed.stdout


# --- the three stores -----------------------------------------------------------------


@dataclass
class Store:
    """A workspace whose plan lives in `kind`, the server arguments that
    choose it, and a way to read what it holds (None: nothing stored yet)."""

    kind: str
    root: Path
    env: dict[str, str]
    args: list[str] = field(default_factory=list)

    def stored(self) -> str | None:
        if self.kind == "file":
            path = self.root / "PLAN.md"
            return path.read_text(encoding="utf-8") if path.exists() else None
        if self.kind == "git":
            path = self.root / ".git" / "QUIRE_PLAN"
            return path.read_text(encoding="utf-8") if path.exists() else None
        return run(["jj", "log", "-r", "@", "--no-graph", "-T", "description"], self.root, self.env)

    def empty(self) -> str | None:
        """What `stored()` gives before anything is stored."""
        return "" if self.kind == "jj" else None

    def changes(self) -> dict[str, Any] | None:
        """The `changes` the server should report by default for the work
        tree's new README.md: the file with its one line, no diff."""
        if self.kind not in ("git", "jj"):
            return None
        return listing(added("README.md", 1))


def added(path: str, lines: int) -> dict[str, Any]:
    """A new file as `changes.files` lists it."""
    return {"path": path, "status": "added", "lines_added": lines, "lines_removed": 0}


def listing(*files: dict[str, Any]) -> dict[str, Any]:
    """`changes` listing every one of `files`, without the diff."""
    return {"files": list(files), "files_total": len(files), "files_shown": len(files)}


def new_file_diff(path: str, line: str, kind: str) -> str:
    """The diff of a new file of one line, as git and jj print it (without
    the `index` line)."""
    hunk = "@@ -0,0 +1 @@" if kind == "git" else "@@ -0,0 +1,1 @@"
    return f"diff --git a/{path} b/{path}\nnew file mode 100644\n--- /dev/null\n+++ b/{path}\n{hunk}\n+{line}"


def without_index_lines(text: str | None) -> str | None:
    """`text` without git's `index <blob>..<blob>` lines, whose abbreviated
    object names are not worth pinning."""
    if text is None:
        return None
    return "\n".join(line for line in text.split("\n") if not line.startswith("index "))


def make_store(kind: str, tmp_path: Path, test: str = "") -> Store:
    if kind == "jj":
        require_jj(test)
    env = hermetic_env(tmp_path)
    root = tmp_path / "repo"
    root.mkdir()
    if kind == "file":
        store = Store(kind, root, env, ["--plan-file", "PLAN.md"])
    elif kind == "git":
        run(["git", "init", "--quiet", "."], root, env)
        store = Store(kind, root, env)
    else:
        run(["jj", "git", "init"], root, env)
        assert (root / ".jj").is_dir()
        store = Store(kind, root, env)
    (root / "README.md").write_text("A project with a plan.\n", encoding="utf-8")
    return store


@pytest.fixture(params=["file", "git", "jj"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return make_store(request.param, tmp_path, request.node.name)


class Planner:
    """A session with `quire serve --tools planner`; every answer is checked
    for the planner's result shape (or error envelope)."""

    def __init__(self, quire: Quire, kind: str):
        self.quire = quire
        self.kind = kind
        self.session = quire.session

    async def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        value = await self.quire.ok_for(arguments, tool=tool)
        assert RESPONSE_FIELDS <= set(value), value
        assert value["store"] == self.kind, value
        # The stage is a number, or null when the stored text is no plan.
        assert isinstance(value["stage_name"], str), value
        assert isinstance(value["stage"], int) or (value["stage"] is None and value["stage_name"] == "unreadable"), value
        assert isinstance(value["document"], dict), value
        assert isinstance(value["rendered"], str) and isinstance(value["guidance"], str), value
        assert value["guidance"], value
        assert isinstance(value["warnings"], list) and isinstance(value["errors"], list), value
        return value

    async def error(self, code: str, tool: str, **arguments: Any) -> str:
        return await self.quire.error_for(code, arguments, tool=tool)


@asynccontextmanager
async def planner_session(quire: Path, store: Store, tmp_path: Path) -> AsyncIterator[Planner]:
    async with stdio_session(
        quire, store.root, tmp_path / "server.stderr",
        args=["--tools", "planner", *store.args], env=store.env,
    ) as session:
        yield Planner(session, store.kind)


@pytest.fixture
async def planner(quire: Path, store: Store, tmp_path: Path) -> AsyncIterator[Planner]:
    async with planner_session(quire, store, tmp_path) as session:
        yield session


async def plan_ready(planner: Planner) -> dict[str, Any]:
    """Goal, description with constraints, and the plan: stage 5."""
    await planner.ok("set_overarching_goal", goal=GOAL)
    await planner.ok("set_detailed_goal", description=f"{DESCRIPTION}\n{CONSTRAINTS}")
    value = await planner.ok("set_plan", plan=PLAN)
    assert value["stage"] == 5, value
    return value


# --- (a) the full workflow, in each store ------------------------------------------------


async def test_full_workflow(planner: Planner, store: Store):
    # Stage 0: nothing stored yet, and asking stores nothing.
    value = await planner.ok("gather_requirements")
    assert (value["stage"], value["stage_name"]) == (0, "empty"), value
    assert value["rendered"] == ""
    assert value["summary"] == ""
    assert "set_overarching_goal" in value["guidance"]
    assert all(kind in value["guidance"] for kind in COMMIT_TYPES), value["guidance"]
    assert value.get("changes") == store.changes(), value
    assert store.stored() == store.empty()

    # Stage 1: the goal.
    value = await planner.ok("set_overarching_goal", goal=GOAL)
    assert (value["stage"], value["stage_name"]) == (1, "goal"), value
    assert value["rendered"] == STAGE_1
    assert value["document"] == {"header": GOAL}
    assert value["summary"]
    assert "set_detailed_goal" in value["guidance"]
    assert value["warnings"] == []
    assert store.stored() == STAGE_1

    # Stage 2: the description alone.
    value = await planner.ok("set_detailed_goal", description=DESCRIPTION)
    assert (value["stage"], value["stage_name"]) == (2, "detailed_goal"), value
    assert value["rendered"] == STAGE_2
    assert value["document"]["description"] == DESCRIPTION
    assert "set_plan" in value["guidance"]
    assert store.stored() == STAGE_2

    # Stage 4: the description again, now ending in constraint lines.
    value = await planner.ok("set_detailed_goal", description=f"{DESCRIPTION}\n{CONSTRAINTS}")
    assert (value["stage"], value["stage_name"]) == (4, "constraints"), value
    assert value["rendered"] == STAGE_4
    assert value["document"]["constraints"] == FINAL_DOCUMENT["constraints"]
    assert "set_plan" in value["guidance"]
    assert store.stored() == STAGE_4

    # Stage 5: the plan, nested tuples.
    value = await planner.ok("set_plan", plan=PLAN)
    assert (value["stage"], value["stage_name"]) == (5, "plan"), value
    assert value["rendered"] == f"{STAGE_4}\n{tasks_text(set())}"
    assert value["document"]["tasks"] == PLAN
    assert "mark_task" in value["guidance"]
    assert "1.2.1 Handle indentation" in value["guidance"], value["guidance"]
    # The next task to do is the first open one without open subtasks.
    assert 'Next: work on task 1.1 "Read headers"' in value["guidance"], value["guidance"]
    assert store.stored() == value["rendered"]

    # Every task, leaves first; the stage stays 5 until finish_job.
    done: set[str] = set()
    for text, path in MARKS:
        value = await planner.ok("mark_task", task_id=text)
        done.add(text)
        assert (value["stage"], value["stage_name"]) == (5, "plan"), value
        assert f'Task {path} "{text}" is done.' in value["summary"], value["summary"]
        assert value["rendered"] == f"{STAGE_4}\n{tasks_text(done)}"
        assert store.stored() == value["rendered"]
    assert "finish_job" in value["guidance"], value["guidance"]
    assert "Every task is done" in value["guidance"], value["guidance"]

    # Stage 6: finished.
    value = await planner.ok("finish_job")
    assert (value["stage"], value["stage_name"]) == (6, "complete"), value
    assert value["rendered"] == STAGE_6
    assert value["document"] == FINAL_DOCUMENT
    assert value["summary"]
    assert FRESH_START[store.kind] in value["guidance"], value["guidance"]
    assert store.stored() == STAGE_6

    # Resuming reads the same state back from the store.
    value = await planner.ok("gather_requirements")
    assert (value["stage"], value["stage_name"]) == (6, "complete"), value
    assert value["rendered"] == STAGE_6
    assert value["document"] == FINAL_DOCUMENT
    assert value["summary"] == ""
    assert value.get("changes") == store.changes(), value
    assert store.stored() == STAGE_6


async def test_a_new_server_resumes_where_the_last_one_stopped(quire: Path, store: Store, tmp_path: Path):
    async with planner_session(quire, store, tmp_path) as planner:
        await plan_ready(planner)
        await planner.ok("mark_task", task_id="Write the docs")
    stored = store.stored()
    async with planner_session(quire, store, tmp_path) as planner:
        value = await planner.ok("gather_requirements")
        assert value["stage"] == 5, value
        assert value["rendered"] == stored == f"{STAGE_4}\n{tasks_text({'Write the docs'})}"
        assert "4 done" not in value["guidance"] and "1 done" in value["guidance"], value["guidance"]


@pytest.mark.parametrize("store", ["git", "jj"], indirect=True)
async def test_the_plan_stays_out_of_the_work_tree(planner: Planner, store: Store):
    """git and jj keep the plan in the repository's metadata: the work tree
    holds the same files before and after the whole workflow."""
    before = {path: digest for path, digest in snapshot(store.root).items()
              if not path.startswith((".git/", ".jj/")) and path not in {".git", ".jj"}}
    await plan_ready(planner)
    for text, _ in MARKS:
        await planner.ok("mark_task", task_id=text)
    await planner.ok("finish_job")
    after = {path: digest for path, digest in snapshot(store.root).items()
             if not path.startswith((".git/", ".jj/")) and path not in {".git", ".jj"}}
    assert after == before


async def test_parallel_mark_task_calls_lose_no_update(planner: Planner, store: Store):
    """Eight mark_task calls in flight at once on one session: each is a
    read-modify-write of the whole plan, and every one must survive."""
    names = [f"Step {number}" for number in range(1, 9)]
    await planner.ok("set_overarching_goal", goal=GOAL)
    await planner.ok("set_detailed_goal", description=DESCRIPTION)
    await planner.ok("set_plan", plan=[[False, name, []] for name in names])
    results = await asyncio.gather(*(planner.ok("mark_task", task_id=name) for name in names))
    assert all(value["stage"] == 5 for value in results), results
    expected = STAGE_2 + "\n" + "".join(f"- [x]: {name}\n" for name in names)
    assert store.stored() == expected
    value = await planner.ok("gather_requirements")
    assert value["rendered"] == expected
    assert (await planner.ok("finish_job"))["stage"] == 6


@pytest.mark.parametrize("store", ["git", "jj"], indirect=True)
async def test_a_root_inside_the_repository_uses_the_repository_store(quire: Path, store: Store, tmp_path: Path):
    sub = store.root / "src" / "deep"
    sub.mkdir(parents=True)
    inside = Store(store.kind, sub, store.env)
    async with planner_session(quire, inside, tmp_path) as planner:
        value = await planner.ok("set_overarching_goal", goal=GOAL)
        assert value["store"] == store.kind and value["stage"] == 1, value
    assert store.stored() == STAGE_1
    assert sorted(path.name for path in sub.iterdir()) == []


# --- (b) errors ----------------------------------------------------------------------------


async def test_ambiguous_mark_task_lists_the_candidates_and_changes_nothing(planner: Planner, store: Store):
    await plan_ready(planner)
    before = store.stored()
    message = await planner.error("VALIDATION_ERROR", "mark_task", task_id="Read")
    assert '1.1 "Read headers"' in message and '1.2 "Read tasks"' in message, message
    assert "nothing was changed" in message, message
    assert store.stored() == before
    value = await planner.ok("gather_requirements")
    assert value["stage"] == 5 and value["rendered"] == before


async def test_mark_task_refusals_change_nothing(planner: Planner, store: Store):
    await plan_ready(planner)
    before = store.stored()
    # No task matches: the open tasks are listed.
    message = await planner.error("VALIDATION_ERROR", "mark_task", task_id="Deploy")
    assert '"Deploy"' in message and "1.2.1 Handle indentation" in message and "2 Write the docs" in message, message
    # A parent with open subtasks.
    message = await planner.error("VALIDATION_ERROR", "mark_task", task_id="Parse the plan")
    assert "1.1 Read headers" in message and "subtasks" in message, message
    # Arguments the tool does not take.
    await planner.error("VALIDATION_ERROR", "mark_task", task_id="Write the docs", done=True)
    assert store.stored() == before


async def test_a_unique_part_of_the_text_marks_and_completed_false_reopens(planner: Planner, store: Store):
    await plan_ready(planner)
    value = await planner.ok("mark_task", task_id="docs")
    assert 'Task 2 "Write the docs" is done.' in value["summary"], value
    assert store.stored() == f"{STAGE_4}\n{tasks_text({'Write the docs'})}"
    value = await planner.ok("mark_task", task_id="Write the docs", completed=False)
    assert 'Task 2 "Write the docs" is open.' in value["summary"], value
    assert store.stored() == f"{STAGE_4}\n{tasks_text(set())}"


async def test_finish_job_refuses_while_tasks_are_open(planner: Planner, store: Store):
    await plan_ready(planner)
    await planner.ok("mark_task", task_id="Read headers")
    before = store.stored()
    message = await planner.error("VALIDATION_ERROR", "finish_job")
    assert "4 tasks are still open" in message, message
    for open_task in ("1 Parse the plan", "1.2 Read tasks", "1.2.1 Handle indentation", "2 Write the docs"):
        assert open_task in message, message
    assert "Read headers" not in message, message
    assert store.stored() == before
    assert "COMPLETE" not in before
    value = await planner.ok("gather_requirements")
    assert (value["stage"], value["stage_name"]) == (5, "plan"), value


async def test_reopening_a_task_after_finishing_returns_to_stage_5(planner: Planner, store: Store):
    await plan_ready(planner)
    for text, _ in MARKS:
        await planner.ok("mark_task", task_id=text)
    assert (await planner.ok("finish_job"))["stage"] == 6
    value = await planner.ok("mark_task", task_id="Handle indentation", completed=False)
    assert (value["stage"], value["stage_name"]) == (5, "plan"), value
    # Its parents reopen with it, and the completion mark goes.
    reopened = ALL_DONE - {"Handle indentation", "Read tasks", "Parse the plan"}
    assert value["rendered"] == f"{STAGE_4}\n{tasks_text(reopened)}"
    assert store.stored() == value["rendered"]


@pytest.mark.parametrize("store", ["file"], indirect=True)
@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        pytest.param({**GOAL, "type": "feature"}, COMMIT_TYPES, id="unknown type"),
        pytest.param({**GOAL, "type": "Feat"}, COMMIT_TYPES, id="uppercase type"),
        pytest.param({**GOAL, "title": "two\nlines"}, ["one line"], id="title of two lines"),
        pytest.param({**GOAL, "title": "x" * 121}, ["120"], id="title too long"),
        pytest.param({**GOAL, "scope": "Has Spaces"}, ["scope"], id="bad scope"),
        pytest.param({key: value for key, value in GOAL.items() if key != "type"}, ["type"], id="missing type"),
        pytest.param({**GOAL, "extra": 1}, ["extra"], id="unknown field"),
    ],
)
async def test_invalid_goal_is_refused_with_what_is_allowed(planner: Planner, store: Store, goal: dict,
                                                            expected: list[str]):
    await planner.ok("set_overarching_goal", goal=GOAL)
    before = store.stored()
    message = await planner.error("VALIDATION_ERROR", "set_overarching_goal", goal=goal)
    for word in expected:
        assert word in message, message
    assert store.stored() == before


@pytest.mark.parametrize("store", ["file"], indirect=True)
async def test_set_detailed_goal_replaces_the_constraints(planner: Planner, store: Store):
    await planner.ok("set_overarching_goal", goal=GOAL)
    assert (await planner.ok("set_detailed_goal", description=f"{DESCRIPTION}\n{CONSTRAINTS}"))["stage"] == 4
    value = await planner.ok("set_detailed_goal",
                             description=f"{DESCRIPTION}\n- Never: store the plan in the work tree")
    assert value["document"]["constraints"] == [["Never", "store the plan in the work tree"]]
    value = await planner.ok("set_detailed_goal", description=DESCRIPTION)
    assert (value["stage"], value["stage_name"]) == (2, "detailed_goal"), value
    assert value["rendered"] == STAGE_2 == store.stored()


@pytest.mark.parametrize("store", ["file"], indirect=True)
async def test_invalid_description_and_plan_are_refused(planner: Planner, store: Store):
    await planner.ok("set_overarching_goal", goal=GOAL)
    before = store.stored()
    await planner.error("VALIDATION_ERROR", "set_detailed_goal", description="   ")
    message = await planner.error("VALIDATION_ERROR", "set_detailed_goal",
                                  description="First paragraph.\n\nSecond paragraph.")
    assert "one paragraph" in message, message
    await planner.error("VALIDATION_ERROR", "set_plan", plan=[])
    await planner.error("VALIDATION_ERROR", "set_plan", plan=[[False, "", []]])
    deep = [False, "level 5", []]
    for level in (4, 3, 2, 1, 0):
        deep = [False, f"level {level}", [deep]]
    message = await planner.error("VALIDATION_ERROR", "set_plan", plan=[deep])
    assert "4" in message, message
    assert store.stored() == before


def plain_folder(tmp_path: Path) -> Store:
    root = tmp_path / "plain"
    root.mkdir()
    (root / "notes.md").write_text("Not a repository.\n", encoding="utf-8")
    return Store("none", root, hermetic_env(tmp_path))


async def test_a_root_that_is_no_repository_needs_plan_file(quire: Path, tmp_path: Path):
    store = plain_folder(tmp_path)
    before = snapshot(store.root)
    async with planner_session(quire, store, tmp_path) as planner:
        for tool, arguments in [("gather_requirements", {}), ("set_overarching_goal", {"goal": GOAL})]:
            message = await planner.error("STORE_ERROR", tool, **arguments)
            assert "jj git init" in message and "git init" in message and "--plan-file" in message, message
    assert snapshot(store.root) == before


async def test_jj_repository_without_jj_says_how_to_install_it(quire: Path, tmp_path: Path):
    """`.jj/` chooses the Jujutsu store; with no `jj` on PATH every tool
    answers with a store error saying how to get one (works without jj)."""
    store = plain_folder(tmp_path)
    (store.root / ".jj").mkdir()
    empty_bin = tmp_path / "empty-bin"
    empty_bin.mkdir()
    store.env["PATH"] = str(empty_bin)
    before = snapshot(store.root)
    async with planner_session(quire, store, tmp_path) as planner:
        message = await planner.error("STORE_ERROR", "gather_requirements")
        assert "`jj` is not installed" in message and "cargo install" in message and "--plan-file" in message, message
        await planner.error("STORE_ERROR", "set_overarching_goal", goal=GOAL)
    assert without_locks(snapshot(store.root)) == before


@pytest.mark.parametrize("store", ["file"], indirect=True)
async def test_a_stored_text_that_is_no_plan_is_left_alone(planner: Planner, store: Store):
    garbage = "just some notes\nwithout a header\n"
    (store.root / "PLAN.md").write_text(garbage, encoding="utf-8")
    # Reading is not refused: the stage is unreadable, with the parser's
    # reason on its line and the fix; only writes are refused.
    value = await planner.ok("gather_requirements")
    assert (value["stage"], value["stage_name"]) == (None, "unreadable"), value
    assert value["rendered"] == garbage, value
    assert value["errors"] and value["errors"][0].startswith("line 1: "), value
    assert "not a plan document" in value["guidance"] and "Fix it by hand" in value["guidance"], value
    message = await planner.error("VALIDATION_ERROR", "set_overarching_goal", goal=GOAL)
    assert "not a plan document" in message, message
    assert store.stored() == garbage


# --- (c) tools/list ----------------------------------------------------------------------


@pytest.mark.parametrize("store", ["file"], indirect=True)
async def test_lists_exactly_the_six_planner_tools(planner: Planner):
    tools = {tool.name: tool for tool in (await planner.session.list_tools()).tools}
    assert sorted(tools) == sorted(TOOLS)
    for name, tool in tools.items():
        assert tool.description, name
        assert tool.input_schema["type"] == "object", name
        assert tool.output_schema is not None, name
        assert tool.output_schema["type"] == "object", name
        assert RESPONSE_FIELDS <= set(tool.output_schema["required"]), (name, tool.output_schema)
        assert RESPONSE_FIELDS | {"changes"} <= set(tool.output_schema["properties"]), name
        annotations = tool.annotations
        assert annotations is not None, name
        assert annotations.title, name
        assert annotations.open_world_hint is False, name
        assert annotations.idempotent_hint is True, name
        if name == "gather_requirements":
            assert annotations.read_only_hint is True
            assert annotations.destructive_hint is False
        else:
            assert annotations.read_only_hint is False, name
            assert annotations.destructive_hint is True, name

    properties = {name: set(tool.input_schema.get("properties", {})) for name, tool in tools.items()}
    assert properties == {
        "gather_requirements": {"include_diff"},
        "set_overarching_goal": {"goal", "start_new", "include_diff"},
        "set_detailed_goal": {"description", "include_diff"},
        "set_plan": {"plan", "include_diff"},
        "mark_task": {"task_id", "completed", "include_diff"},
        "finish_job": {"include_diff"},
    }
    assert tools["mark_task"].input_schema["required"] == ["task_id"]
    # The diff is asked for, never sent by default.
    for name, tool in tools.items():
        include_diff = tool.input_schema["properties"]["include_diff"]
        assert (include_diff["type"], include_diff["default"]) == ("boolean", False), name
        assert "cut at 64 KiB" in include_diff["description"], name
        assert "include_diff" not in tool.input_schema.get("required", []), name
    goal_schema = tools["set_overarching_goal"].input_schema
    goal = goal_schema["properties"]["goal"]
    if "$ref" in goal:
        goal = goal_schema["$defs"][goal["$ref"].rsplit("/", 1)[-1]]
    assert goal["properties"]["type"]["enum"] == COMMIT_TYPES
    assert set(goal["required"]) >= {"type", "scope", "title"}


KILN_TOOLS = [
    "read_note", "read_metadata", "list_notes", "get_kiln_info", "text_search", "property_search",
    "semantic_search", "find_links",
    # Offered by `--writes ask`, the default.
    "create_note", "update_note", "edit_note", "move_note", "delete_note",
]


async def test_without_tools_every_toolset_is_served(quire: Path, tmp_path: Path):
    store = make_store("file", tmp_path)
    async with stdio_session(quire, store.root, tmp_path / "server.stderr",
                             args=store.args, env=store.env) as session:
        names = sorted(tool.name for tool in (await session.session.list_tools()).tools)
        assert names == sorted([*TOOLS, TOOL, *KILN_TOOLS])
        value = await session.ok_for({"goal": GOAL}, tool="set_overarching_goal")
        assert value["stage"] == 1
    assert store.stored() == STAGE_1
    assert changed({}, without_locks(snapshot(store.root))) == {"README.md", "PLAN.md"}


# --- (d) schemas a client can use ------------------------------------------------------------

# Arguments each input schema must accept, and arguments it must refuse.
SCHEMA_SAMPLES: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
    "gather_requirements": ([{}], [{"stage": 1}]),
    "set_overarching_goal": (
        [{"goal": GOAL}],
        [{}, {"goal": "feat: x"}, {"goal": {**GOAL, "type": "feature"}}],
    ),
    "set_detailed_goal": ([{"description": DESCRIPTION}], [{}, {"description": 7}]),
    "set_plan": (
        [{"plan": PLAN}, {"plan": [[True, "Done", []]]}],
        [
            {"plan": [[False, "Parse"]]},
            {"plan": [["no", "Parse", []]]},
            # Wrong only inside subtasks: only a resolved `Task` reference sees it.
            {"plan": [[False, "Parse", [[False, 3, []]]]]},
            {"plan": [[False, "Parse", [[False, "Read", [["x", "Deep", []]]]]]]},
        ],
    ),
    "mark_task": ([{"task_id": "1.2"}, {"task_id": "Read tasks", "completed": False}], [{}, {"task_id": 1}]),
    "finish_job": ([{}], [{"now": True}]),
    TOOL: (
        [{"tracker_path": "trackers/acme.md", "target_status": "Applied", "dry_run": True}],
        [{"tracker_path": "a.md"}, {"tracker_path": "a.md", "target_status": "applied"}],
    ),
    "read_note": ([{"path": "a"}, {"path": "a.md", "start_line": 2, "end_line": 4}], [{}, {"path": "a", "tail": -1}]),
    "read_metadata": ([{"path": "notes/a"}], [{}, {"path": 1}, {"path": "a", "head": 2}]),
    "list_notes": ([{}, {"folder": "notes", "limit": 10}], [{"limit": -1}, {"recursive": "no"}]),
    "get_kiln_info": ([{}, {"detailed": True}], [{"detailed": "yes"}, {"verbose": True}]),
    "text_search": (
        [{"query": "review"}, {"query": "a.b", "regex": True, "case": "sensitive", "folder": "notes", "limit": 5, "cursor": "s1.61.1"}],
        [{}, {"query": 1}, {"query": "x", "case": "upper"}, {"query": "x", "context_lines": -1}, {"query": "x", "cursor": 5}],
    ),
    "semantic_search": (
        [{"query": "how we chose the database"}, {"query": "x", "limit": 5, "properties": {"s": 1}, "folder": "notes", "min_score": 0.2, "mode": "hybrid"}],
        [{}, {"query": 1}, {"query": "x", "mode": "lexical"}, {"query": "x", "limit": -1}],
    ),
    "edit_note": (
        [{"path": "a", "operation": "append", "text": "x"},
         {"path": "a", "operation": "replace_text", "text": "y", "old_text": "x", "expected_sha256": "00", "confirmation": "t"}],
        [{}, {"path": "a", "text": "x"}, {"path": "a", "operation": "insert", "text": "x"}, {"path": "a", "operation": "append"}],
    ),
    "move_note": (
        [{"path": "a", "new_path": "b/c"}, {"path": "a", "new_path": "b", "expected_sha256": "00", "confirmation": "t"}],
        [{}, {"path": "a"}, {"new_path": "b"}, {"path": "a", "new_path": 1}, {"path": "a", "new_path": "b", "x": 1}],
    ),
    "find_links": (
        [{"kind": "broken"}, {"kind": "neighbours", "path": "[[a]]", "depth": 3, "folder": "notes", "limit": 5, "cursor": "x"}],
        [{}, {"kind": "all"}, {"kind": "orphans", "limit": 0}, {"kind": "neighbours", "path": "a", "depth": 4}, {"kind": "broken", "x": 1}],
    ),
    "property_search": (
        [{"properties": {"status": "active"}}, {"properties": {"tags": ["a", "b"], "n": None}, "folder": "notes", "limit": 5},
         {"properties": {"status": {"not": "done"}, "due": {"before": "2026-12-01"}, "x": {"exists": True}}}],
        [{}, {"properties": {"s": {"a": 1}}}, {"properties": {"s": [[1]]}}, {"properties": {"s": 1}, "limit": -1}],
    ),
    "create_note": (
        [{"path": "a", "content": "x"}, {"path": "a", "content": "x", "frontmatter": {"k": [1]}, "confirmation": "ab"}],
        [{}, {"path": "a"}, {"path": "a", "content": "x", "extra": 1}, {"path": "a", "content": "x", "confirmation": 5}],
    ),
    "update_note": (
        [{"path": "a", "content": "x"}, {"path": "a", "frontmatter": {}, "expected_sha256": "ab", "confirmation": None}],
        [{}, {"content": "x"}, {"path": "a", "frontmatter": []}],
    ),
    "delete_note": (
        [{"path": "a"}, {"path": "a", "permanent": True}],
        [{}, {"path": "a", "permanent": "yes"}, {"path": 1}],
    ),
}


def local_references(schema: Any) -> list[str]:
    """Every `$ref` in `schema`."""
    found: list[str] = []
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "$ref" and isinstance(value, str):
                found.append(value)
            else:
                found.extend(local_references(value))
    elif isinstance(schema, list):
        for item in schema:
            found.extend(local_references(item))
    return found


def check_schema(name: str, schema: dict[str, Any]) -> Any:
    """Checks `schema` as a Draft 2020-12 schema and resolves each of its
    references from its root, as a validator does (a reference to nowhere
    raises `PointerToNowhere`); returns a validator for it."""
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    assert schema.get("$schema") == "https://json-schema.org/draft/2020-12/schema", (name, schema)
    Draft202012Validator.check_schema(schema)
    uri = f"urn:quire:{name}"
    resolver = Registry().with_resource(uri, DRAFT202012.create_resource(schema)).resolver(uri)
    for reference in local_references(schema):
        assert reference.startswith("#"), (name, reference)
        resolver.lookup(reference)
    return Draft202012Validator(schema)


async def test_every_schema_is_draft_2020_12_and_every_reference_resolves(quire: Path, tmp_path: Path):
    """`set_plan`'s `#/$defs/Task` once pointed to nowhere: its `$defs` sat
    under `properties.plan`. Every input and output schema of every toolset
    passes the meta-schema, resolves every reference, accepts the sample
    arguments and refuses the bad ones."""
    from jsonschema.exceptions import ValidationError

    store = make_store("file", tmp_path)
    async with stdio_session(quire, store.root, tmp_path / "server.stderr",
                             args=store.args, env=store.env) as session:
        tools = {tool.name: tool for tool in (await session.session.list_tools()).tools}
    assert sorted(tools) == sorted(SCHEMA_SAMPLES)
    for name, tool in tools.items():
        inputs = check_schema(name, tool.input_schema)
        assert tool.output_schema is not None, name
        check_schema(f"{name}-output", tool.output_schema)
        valid, invalid = SCHEMA_SAMPLES[name]
        for arguments in valid:
            inputs.validate(arguments)
        for arguments in invalid:
            with pytest.raises(ValidationError):
                inputs.validate(arguments)


@pytest.mark.parametrize("store", ["git"], indirect=True)
async def test_every_planner_result_matches_its_output_schema(planner: Planner, store: Store):
    """Each stage's result, checked against the output schema the tool
    declares (beyond the client's own check)."""
    from jsonschema import Draft202012Validator

    schemas = {tool.name: tool.output_schema for tool in (await planner.session.list_tools()).tools}
    calls = [
        ("gather_requirements", {}),
        ("set_overarching_goal", {"goal": GOAL}),
        ("set_detailed_goal", {"description": DESCRIPTION}),
        ("set_detailed_goal", {"description": f"{DESCRIPTION}\n{CONSTRAINTS}"}),
        ("set_plan", {"plan": PLAN}),
        *[("mark_task", {"task_id": text}) for text, _ in MARKS],
        ("finish_job", {}),
        ("gather_requirements", {}),
    ]
    stages = []
    for tool, arguments in calls:
        value = await planner.ok(tool, **arguments)
        Draft202012Validator(schemas[tool]).validate(value)
        assert value["changes"] == store.changes(), value
        stages.append(value["stage"])
    assert stages == [0, 1, 2, 4, 5, 5, 5, 5, 5, 5, 6, 6]


# --- (e) instructions, plan file folders, changes -------------------------------------------


@asynccontextmanager
async def initialized(quire: Path, root: Path, args: list[str], env: dict[str, str], tmp_path: Path):
    """An MCP session with `quire serve --root ROOT ARGS`; yields the
    initialize result (server info, instructions)."""
    from mcp import ClientSession, StdioServerParameters, stdio_client

    parameters = StdioServerParameters(command=str(quire), args=["serve", "--root", str(root), *args], env=env)
    with open(tmp_path / "server.stderr", "a", encoding="utf-8") as errlog:
        async with stdio_client(parameters, errlog=errlog) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30) as session:
                yield await session.initialize()


@pytest.mark.parametrize(
    ("tools", "says", "never_says"),
    [
        pytest.param("tracker", ["update_tracker_status"], ["gather_requirements", "planner", "plan"], id="tracker"),
        pytest.param("planner", ["call gather_requirements first"], ["update_tracker_status", "tracker"], id="planner"),
        pytest.param("tracker,planner", ["update_tracker_status", "call gather_requirements first"], [], id="both"),
    ],
)
async def test_the_instructions_speak_of_the_toolsets_served(quire: Path, tmp_path: Path, tools: str,
                                                            says: list[str], never_says: list[str]):
    store = make_store("file", tmp_path)
    async with initialized(quire, store.root, ["--tools", tools, *store.args], store.env, tmp_path) as result:
        instructions = result.instructions or ""
    for words in says:
        assert words in instructions, instructions
    for words in never_says:
        assert words not in instructions, instructions


async def test_a_plan_file_in_a_missing_folder_names_the_folder_and_the_fix(quire: Path, tmp_path: Path):
    store = make_store("file", tmp_path)
    fix = ("the plan file `sub/dir/P.txt` cannot be kept: its folder `sub/dir` does not exist in the workspace; "
           "create the folder (`mkdir -p sub/dir` in the workspace root), or choose a --plan-file in a folder that exists")
    # At the start: the server says so and does not start.
    started = subprocess.run(
        [str(quire), "serve", "--root", str(store.root), "--tools", "planner", "--plan-file", "sub/dir/P.txt"],
        env=store.env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )
    assert started.returncode == 2, started
    assert started.stderr == f"error: --plan-file: {fix}\n", started.stderr
    # The folder removed while the server runs: every call says so.
    (store.root / "sub" / "dir").mkdir(parents=True)
    moved = Store("file", store.root, store.env, ["--plan-file", "sub/dir/P.txt"])
    async with planner_session(quire, moved, tmp_path) as planner:
        assert (await planner.ok("gather_requirements"))["stage"] == 0
        shutil.rmtree(store.root / "sub")
        for tool, arguments in [("gather_requirements", {}), ("set_overarching_goal", {"goal": GOAL})]:
            message = await planner.error("STORE_ERROR", tool, **arguments)
            assert message == fix, message
    assert not (store.root / "sub").exists()


@pytest.mark.parametrize("kind", ["git", "jj"])
async def test_a_plan_file_in_a_working_copy_reports_its_changes(quire: Path, tmp_path: Path, kind: str):
    repository = make_store(kind, tmp_path, f"test_a_plan_file_in_a_working_copy_reports_its_changes[{kind}]")
    store = Store("file", repository.root, repository.env, ["--plan-file", "PLAN.md"])
    async with planner_session(quire, store, tmp_path) as planner:
        value = await planner.ok("gather_requirements")
        assert value.get("changes") == repository.changes(), value
        await planner.ok("set_overarching_goal", goal=GOAL)
        # The plan file, once written, is a change of the working copy too.
        value = await planner.ok("gather_requirements")
        assert value.get("changes") == listing(added("PLAN.md", 1), added("README.md", 1)), value
        value = await planner.ok("gather_requirements", include_diff=True)
        diff = without_index_lines(value["changes"]["diff"])
        assert diff is not None and diff.startswith("diff --git a/PLAN.md b/PLAN.md\n"), diff
        assert new_file_diff("README.md", "A project with a plan.", kind) in diff, diff
    assert store.stored() == STAGE_1


@pytest.mark.parametrize("store", ["git", "jj"], indirect=True)
async def test_a_long_diff_is_cut_at_64_kib_saying_how_much_was_left_out(planner: Planner, store: Store):
    big = "".join(f"line {number:05}\n" for number in range(10_000))
    (store.root / "big.txt").write_text(big, encoding="utf-8")
    value = await planner.ok("gather_requirements", include_diff=True)
    changes = value["changes"]
    # Every line is counted, whatever the diff's cap.
    assert {key: changes[key] for key in ("files", "files_total", "files_shown")} == listing(
        added("README.md", 1), added("big.txt", 10_000)), changes["files"]
    assert changes["diff"].startswith("diff --git a/README.md b/README.md\n"), changes["diff"][:300]
    head, _, cut = changes["diff"].rstrip("\n").rpartition("\n")
    prefix = "[the diff is cut at 64 KiB: "
    assert cut.startswith(prefix) and cut.endswith(" more bytes not shown]"), cut
    left_out = int(cut[len(prefix):].split(" ")[0])
    diff = head + "\n"
    assert 64 * 1024 - 20 < len(diff.encode()) <= 64 * 1024, len(diff.encode())
    assert diff.endswith("\n+line " + diff.rsplit("\n+line ", 1)[1]), "cut at the end of a line"
    # What was left out is exactly the rest of the full diff.
    if store.kind == "jj":
        full = run(["jj", "diff", "--git", "."], store.root, store.env)
    else:
        full = subprocess.run(["git", "diff", "--no-index", "--", "/dev/null", "README.md"], cwd=store.root,
                              env=store.env, capture_output=True, text=True).stdout
        full += subprocess.run(["git", "diff", "--no-index", "--", "/dev/null", "big.txt"], cwd=store.root,
                               env=store.env, capture_output=True, text=True).stdout
    assert full.startswith(diff)
    assert len(full.encode()) - len(diff.encode()) == left_out


@pytest.mark.parametrize("store", ["git"], indirect=True)
async def test_a_100_kb_untracked_file_keeps_every_default_result_under_16_kb(planner: Planner, store: Store):
    """Issue 27: with one untracked 100 KB file, each of these tools returned
    the whole diff (71.7 KB) on every call. By default each result is under
    16 KB and lists the file with its lines; `include_diff` adds the diff,
    cut at 64 KiB."""
    big = "".join(f"{number:05} {'x' * 57}\n" for number in range(1_600))
    assert len(big.encode()) == 100 * 1024
    (store.root / "big.txt").write_text(big, encoding="utf-8")
    calls = [
        ("set_overarching_goal", {"goal": GOAL}),
        ("set_detailed_goal", {"description": DESCRIPTION}),
        ("set_plan", {"plan": PLAN}),
        ("mark_task", {"task_id": "1.1"}),
    ]
    for tool, arguments in calls:
        value = await planner.ok(tool, **arguments)
        size = len(json.dumps(value, separators=(",", ":")).encode())
        assert size < 16 * 1024, (tool, size)
        assert value["changes"] == listing(added("README.md", 1), added("big.txt", 1_600)), (tool, value["changes"])
    for tool, arguments in calls:
        value = await planner.ok(tool, **arguments, include_diff=True)
        diff = value["changes"]["diff"]
        assert f"+++ b/big.txt\n@@ -0,0 +1,1600 @@\n+00000 {'x' * 57}\n" in diff, (tool, diff[:500])
        kept, _, cut = diff.rstrip("\n").rpartition("\n")
        assert cut.startswith("[the diff is cut at 64 KiB: ") and cut.endswith(" more bytes not shown]"), (tool, cut)
        assert len(kept.encode()) < 64 * 1024, tool
