"""The planner's traps and spec fidelity as an agent meets them (issue 8,
parts 1 and 2): `quire serve --tools planner --plan-file PLAN.md` driven by
the official Python MCP client. Each test is one trap an agent walked into,
or one place the planner differed from planner.md."""

from __future__ import annotations

from pathlib import Path
from typing import Any, AsyncIterator

import pytest

from conftest import Quire, stdio_session

pytestmark = pytest.mark.anyio

RELEASE = (
    "chore(release): Cut v1.2\n\nThe release is due.\n\n"
    "- [ ]: Write the changelog\n  - [ ]: Check the links\n- [ ]: Tag the release\n- [ ]: Bump to v1.2\n"
)


class PlanFile:
    def __init__(self, quire: Quire, root: Path):
        self.quire = quire
        self.path = root / "PLAN.md"

    def write(self, text: str) -> None:
        self.path.write_text(text, encoding="utf-8")

    def stored(self) -> str:
        return self.path.read_text(encoding="utf-8") if self.path.exists() else ""

    async def ok(self, tool: str, **arguments: Any) -> dict[str, Any]:
        return await self.quire.ok_for(arguments, tool=tool)

    async def refused(self, tool: str, *expected: str, **arguments: Any) -> str:
        before = self.stored()
        message = await self.quire.error_for("VALIDATION_ERROR", arguments, tool=tool)
        for part in expected:
            assert part in message, (part, message)
        assert self.stored() == before, "a refused call changed the plan"
        return message


@pytest.fixture
async def plan(quire: Path, tmp_path: Path) -> AsyncIterator[PlanFile]:
    root = tmp_path / "work"
    root.mkdir()
    async with stdio_session(
        quire, root, tmp_path / "server.stderr", args=("--tools", "planner", "--plan-file", "PLAN.md")
    ) as session:
        yield PlanFile(session, root)


async def test_a_tree_path_names_exactly_its_task(plan: PlanFile):
    plan.write(RELEASE)
    value = await plan.ok("mark_task", task_id="2")
    assert value["summary"].startswith('Task 2 "Tag the release" is done.'), value["summary"]
    assert "- [x]: Tag the release\n- [ ]: Bump to v1.2\n" in plan.stored()
    value = await plan.ok("mark_task", task_id=" 1.1 ")
    assert value["summary"].startswith('Task 1.1 "Check the links" is done.'), value["summary"]
    await plan.refused("mark_task", "there is no task 4", task_id="4")


async def test_set_plan_refuses_repeated_texts_and_paths_still_reach_them(plan: PlanFile):
    plan.write("fix(cli): Flags\n\nWhy.\n")
    await plan.refused(
        "set_plan", "repeats a task text", '"Ship" (tasks 1 and 2)', plan=[[False, "Ship", []], [False, "Ship", []]]
    )
    plan.write("fix(cli): Flags\n\nWhy.\n\n- [ ]: Ship\n- [ ]: Ship\n")
    await plan.ok("mark_task", task_id="1")
    await plan.ok("mark_task", task_id="2")
    assert (await plan.ok("finish_job"))["stage"] == 6


async def test_a_finished_plan_needs_start_new_for_a_new_goal(plan: PlanFile):
    finished = "fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\n~~~ COMPLETE ~~~\n"
    plan.write(finished)
    goal = {"type": "docs", "scope": "readme", "breaking": False, "title": "Describe the flag"}
    await plan.refused("set_overarching_goal", "the plan is finished (stage 6)", "start_new: true", goal=goal)
    value = await plan.ok("set_overarching_goal", goal=goal, start_new=True)
    assert value["stage"] == 1, value
    assert value["previous_plan"] == finished, value
    assert plan.stored() == "docs(readme): Describe the flag\n"


async def test_text_that_is_no_plan_is_read_as_unreadable(plan: PlanFile):
    plan.write("WIP\n")
    value = await plan.ok("gather_requirements")
    assert (value["stage"], value["stage_name"]) == (None, "unreadable"), value
    assert value["errors"][0].startswith("line 1: "), value
    await plan.refused("set_plan", "not a plan document", plan=[[False, "A", []]])
    assert plan.stored() == "WIP\n"


async def test_guidance_counts_one_task(plan: PlanFile):
    plan.write("fix(cli): Flags\n\nWhy.\n\n- [ ]: Add the flag\n")
    value = await plan.ok("gather_requirements")
    assert "1 task, 0 done" in value["guidance"], value["guidance"]
    await plan.refused("finish_job", "1 task is still open")


async def test_an_edit_never_drops_what_the_parser_ignored(plan: PlanFile):
    stored = "feat(cli): Flags\n\nWhy.\n- Never: Skip the tests\n\n- [ ]: Add the flag\n"
    plan.write(stored)
    await plan.refused("mark_task", 'line 4: "- Never: Skip the tests"', "this edit would drop", task_id="1")
    assert plan.stored() == stored
    plan.write("feat: Some title\n\nWhy.\n")
    await plan.refused("set_detailed_goal", 'line 1: "Some title"', description="Why not.")


async def test_every_finding_is_reported_with_the_stage(plan: PlanFile):
    plan.write("feature(Core): Title\n")
    value = await plan.ok("gather_requirements")
    assert value["stage"] == 1, value
    errors = "\n".join(value["errors"])
    assert "plan::unknown_type" in errors and "plan::invalid_scope" in errors, value
    # One mistake, one finding: the scope's error says how to write it, and
    # the uppercase scope is not reported a second time as a warning.
    assert "(write `core`)" in errors, value
    assert not any("header.scope" in warning for warning in value["warnings"]), value
    assert value["guidance"].startswith("First fix"), value["guidance"]


async def test_finish_job_keeps_the_direction(plan: PlanFile):
    plan.write("fix(cli): Flags\n\nWhy.\n\n- [x]: Add the flag\n\nShip it on Friday\n")
    value = await plan.ok("finish_job")
    assert value["stage"] == 6, value
    assert plan.stored().endswith("\n\nShip it on Friday\n~~~ COMPLETE ~~~\n"), plan.stored()
    assert "Ship it on Friday" in value["summary"], value["summary"]


async def test_a_plan_without_a_description_is_at_stage_1(plan: PlanFile):
    plan.write("fix(cli): Flags\n\n- [ ]: Add the flag\n")
    value = await plan.ok("gather_requirements")
    assert value["stage"] == 1, value
    assert "set_detailed_goal" in value["guidance"], value["guidance"]


async def test_set_plan_accepts_the_specs_complete_document_plan(plan: PlanFile):
    plan.write("feat(parser): Add hierarchical task support\n\nWhy.\n")
    value = await plan.ok(
        "set_plan",
        plan=[
            [True, "Implement basic task parsing", [
                [True, "Add checkbox recognition", []],
                [False, "Add nesting support", [[True, "Parse indentation levels", []], [False, "Build task hierarchy", []]]],
            ]],
            [False, "Add validation rules", []],
        ],
    )
    assert value["stage"] == 5, value
    await plan.refused("mark_task", "has open subtasks", task_id="1.2")
