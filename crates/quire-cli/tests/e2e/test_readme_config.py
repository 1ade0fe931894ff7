"""The README's client configuration, run the way a client runs it: every
entry of its JSON is started with the entry's own arguments (only the example
paths are swapped: the root for a copy of examples/vault or a fresh git
repository, the command for the binary under test), and must serve exactly
its toolsets' tools and answer a call of each."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from conftest import EXAMPLE_VAULT, REPO

pytestmark = pytest.mark.anyio

TOOLSETS = {
    "tracker": {"update_tracker_status"},
    "planner": {
        "gather_requirements", "set_overarching_goal", "set_detailed_goal",
        "set_plan", "mark_task", "finish_job",
    },
    # The write tools too: `--writes ask`, the default, offers them (asking before each change).
    "kiln": {
        "read_note", "read_metadata", "list_notes", "get_kiln_info", "text_search", "property_search", "semantic_search",
        "find_links", "create_note", "update_note", "edit_note", "move_note", "delete_note",
    },
    # Served only when named; no call is made here (test_nova.py
    # drives them against a Task Manager).
    "nova": {"update_execution_session", "create_step", "update_step", "health_check"},
}


def client_configuration() -> dict[str, Any]:
    """The `mcpServers` of the JSON block under "## Client configuration"."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Client configuration\n", 1)[1]
    section = section.split("\n## ", 1)[0].split("\n### ", 1)[0]
    blocks = section.split("```json\n")[1:]
    assert len(blocks) == 1, "one JSON block in the README's client configuration"
    return json.loads(blocks[0].split("```", 1)[0])["mcpServers"]


def value_of(args: list[str], flag: str) -> str:
    assert args.count(flag) == 1, (flag, args)
    return args[args.index(flag) + 1]


def prepare_root(root: Path, toolsets: list[str], env: dict[str, str]) -> None:
    """What each toolset's root holds: tracker notes, or a repository."""
    if "tracker" in toolsets:
        shutil.copytree(EXAMPLE_VAULT, root)
    else:
        root.mkdir()
    if "planner" in toolsets:
        subprocess.run(["git", "init", "--quiet", "."], cwd=root, env=env, check=True, timeout=60)


async def test_each_readme_client_entry_serves_its_toolsets(quire: Path, tmp_path: Path):
    servers = client_configuration()
    assert len(servers) >= 2, servers
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CEILING_DIRECTORIES": str(tmp_path),
        "LC_ALL": "C.UTF-8",
    }
    served: set[str] = set()
    for name, entry in servers.items():
        assert Path(entry["command"]).is_absolute(), (name, entry["command"])
        args = list(entry["args"])
        assert args[0] == "serve", (name, args)
        assert Path(value_of(args, "--root")).is_absolute(), (name, args)
        toolsets = value_of(args, "--tools").split(",")
        assert set(toolsets) <= set(TOOLSETS), (name, toolsets)
        root = tmp_path / name
        prepare_root(root, toolsets, env)
        args[args.index("--root") + 1] = str(root)

        # An entry's own environment (the nova entry's TASK_MANAGER_*) too.
        parameters = StdioServerParameters(command=str(quire), args=args, env={**env, **entry.get("env", {})})
        with open(tmp_path / f"{name}.stderr", "a", encoding="utf-8") as errlog:
            async with stdio_client(parameters, errlog=errlog) as (read, write):
                async with ClientSession(read, write, read_timeout_seconds=30) as session:
                    await session.initialize()
                    names = {tool.name for tool in (await session.list_tools()).tools}
                    assert names == set().union(*(TOOLSETS[t] for t in toolsets)), (name, names)
                    if "tracker" in toolsets:
                        result = await session.call_tool("update_tracker_status", {
                            "tracker_path": "trackers/2026-01-12-globex.md",
                            "target_status": "Rejected",
                            "dry_run": True,
                        })
                        assert result.is_error is False, (name, result)
                        assert result.structured_content["success"] is True, (name, result)
                    if "kiln" in toolsets:
                        result = await session.call_tool("read_note", {"path": "README", "head": 1})
                        assert result.is_error is False, (name, result)
                        assert result.structured_content["lines_returned"] == 1, (name, result)
                    if "nova" in toolsets:
                        # Whether a Task Manager answers there or not, the
                        # entry's variables must be ones the server can use.
                        result = await session.call_tool("health_check", {})
                        assert result.is_error is False, (name, result)
                        content = result.structured_content
                        assert content["client"] == "http", (name, result)
                        assert content["base_url"] == "http://localhost:8080", (name, result)
                    if "planner" in toolsets:
                        result = await session.call_tool("gather_requirements", {})
                        assert result.is_error is False, (name, result)
                        assert result.structured_content["store"] == "git", (name, result)
                        assert result.structured_content["stage"] == 0, (name, result)
        served.update(toolsets)
    assert served == set(TOOLSETS), "the entries together serve every toolset"
