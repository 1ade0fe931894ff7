"""`quire serve --http` as the official Python client's Streamable HTTP
transport sees it at the end of a session: closing the client sends
`DELETE`, which the server must accept (200, as the README says) so that
the client logs no "Session termination failed", and after which the
session is gone (404)."""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request

import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import TOOL
from test_tracker_http import http_server  # noqa: F401  (the fixture)

pytestmark = pytest.mark.anyio


def post_in_session(url: str, session_id: str) -> int:
    """The HTTP status of a `tools/list` POST in `session_id`."""
    request = urllib.request.Request(
        url,
        data=json.dumps({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}).encode(),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "Mcp-Session-Id": session_id,
            "MCP-Protocol-Version": "2025-06-18",
        },
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


async def test_closing_the_client_ends_its_session_without_a_warning(http_server, caplog):  # noqa: F811
    url, _process = http_server
    caplog.set_level(logging.DEBUG)
    exchanges: list[tuple[str, int, str | None]] = []

    async def record(response: httpx2.Response) -> None:
        session_id = response.request.headers.get("mcp-session-id") or response.headers.get("mcp-session-id")
        exchanges.append((response.request.method, response.status_code, session_id))

    async with httpx2.AsyncClient(event_hooks={"response": [record]}, timeout=30) as client:
        async with streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=30) as session:
                await session.initialize()
                assert [tool.name for tool in (await session.list_tools()).tools] == [TOOL]

    deletes = [exchange for exchange in exchanges if exchange[0] == "DELETE"]
    assert len(deletes) == 1, exchanges
    method, status, session_id = deletes[0]
    assert status == 200, exchanges
    assert session_id, exchanges
    failures = [record.getMessage() for record in caplog.records if "Session termination failed" in record.getMessage()]
    assert failures == []
    assert post_in_session(url, session_id) == 404


async def test_a_forged_session_id_is_not_found(http_server):  # noqa: F811
    url, _process = http_server
    assert post_in_session(url, "forged-0123456789") == 404
    request = urllib.request.Request(url, headers={"Mcp-Session-Id": "forged-0123456789"}, method="DELETE")
    with pytest.raises(urllib.error.HTTPError) as raised:
        urllib.request.urlopen(request, timeout=30)
    assert raised.value.code == 404
    assert json.loads(raised.value.read())["error"]["message"].startswith("Not Found")
