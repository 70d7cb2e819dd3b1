#!/usr/bin/env python3
"""acc-mcp driven by a real MCP client: the official MCP Python SDK over stdio.

Usage: test_acc_mcp.py /abs/path/to/acc-mcp [path/to/docs/MCP.md]

The server is started with the generic registration documented in docs/MCP.md (read from the
file, with the placeholders filled in). One client lists the tools and resources; two clients
with different ACC_MCP_PARTICIPANT values share one workspace, call every tool, read every
resource, and see each other's claim and messages. Exits non-zero on the first failure.

Everything happens in temporary directories: HOME points at a fresh one so acc's default data
home is isolated, and the workspace is another. Nothing reaches the network.
"""

import asyncio
import json
import os
import re
import sys
import tempfile
from contextlib import AsyncExitStack
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

try:  # SDK 2.x
    from mcp import MCPError as ProtocolError
except ImportError:  # SDK 1.x
    from mcp.shared.exceptions import McpError as ProtocolError

EXPECTED_TOOLS = {
    "acc_status", "acc_sync", "acc_work", "acc_claim", "acc_release", "acc_message",
    "acc_request", "acc_inbox", "acc_reply", "acc_ack", "acc_finish",
}
EXPECTED_RESOURCES = {"acc://snapshot", "acc://roster", "acc://inbox"}
SUPPORTED_VERSIONS = {"2025-06-18", "2025-11-25"}

checks = 0
NEGOTIATED = {}


def check(condition, what):
    global checks
    if not condition:
        raise AssertionError(what)
    checks += 1


def field(obj, snake, camel):
    """Reads a result attribute under its SDK 2.x (snake) or 1.x (camel) name."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


def documented_registration(doc_path):
    """The first ```json block of docs/MCP.md: the generic registration."""
    text = Path(doc_path).read_text(encoding="utf-8")
    for block in re.findall(r"```json\n(.*?)```", text, flags=re.S):
        reg = json.loads(block)
        if "command" in reg and "env" in reg:
            return reg
    raise AssertionError(f"{doc_path} has no generic registration block")


def server_params(registration, binary, participant, workspace):
    env = dict(registration["env"])
    check(set(env) == {"ACC_MCP_PARTICIPANT", "ACC_MCP_WORKSPACE"},
          f"the documented env names exactly the two identity variables: {env}")
    check(registration["command"] == "/abs/path/acc-mcp", "the documented command placeholder")
    env["ACC_MCP_PARTICIPANT"] = participant
    env["ACC_MCP_WORKSPACE"] = workspace
    return StdioServerParameters(command=binary, args=registration.get("args", []), env=env)


async def connect(stack, params):
    read, write = await stack.enter_async_context(stdio_client(params))
    session = await stack.enter_async_context(ClientSession(read, write))
    init = await session.initialize()
    version = field(init, "protocol_version", "protocolVersion")
    check(version in SUPPORTED_VERSIONS, f"negotiated a supported version, got {version}")
    check(field(init, "server_info", "serverInfo").name == "acc-mcp", "server name")
    NEGOTIATED[id(session)] = version
    return session


async def call(session, tool, args=None, expect_error=False):
    result = await session.call_tool(tool, args or {})
    is_error = field(result, "is_error", "isError")
    structured = field(result, "structured_content", "structuredContent")
    text = json.loads(result.content[0].text)
    check(text == structured, f"{tool}: text content and structuredContent carry one object")
    if expect_error:
        check(is_error, f"{tool} {args} should fail, got {structured}")
    else:
        check(not is_error, f"{tool} {args} failed: {structured}")
    return structured


async def read(session, uri):
    result = await session.read_resource(uri)
    content = result.contents[0]
    check(str(content.uri) == uri, f"{uri}: the content names its uri")
    check(field(content, "mime_type", "mimeType") == "application/json", f"{uri}: JSON")
    return json.loads(content.text)


async def argument_error(session, tool, args, what):
    """Arguments that break a tool's schema: under 2025-11-25 a tool execution error the model
    can read and correct (SEP-1303), under 2025-06-18 the JSON-RPC error -32602."""
    if NEGOTIATED[id(session)] == "2025-06-18":
        return await protocol_error(session.call_tool(tool, args), -32602, what)
    error = (await call(session, tool, args, expect_error=True))["error"]
    check(error["code"] == 2 and error["reason"] == "invalid_argument",
          f"{what}: a usage error the model reads, got {error}")
    check(error["message"].startswith(f"invalid arguments for {tool}: ")
          and error["details"]["violations"], f"{what}: names the violations: {error}")
    return error


async def protocol_error(coro, code, what):
    try:
        await coro
    except ProtocolError as e:
        got = e.error.code
        check(got == code, f"{what}: expected JSON-RPC error {code}, got {got} ({e})")
        return e
    raise AssertionError(f"{what}: expected JSON-RPC error {code}, got a result")


async def list_surface(session):
    tools = (await session.list_tools()).tools
    names = {t.name for t in tools}
    check(names == EXPECTED_TOOLS, f"the eleven tools, got {sorted(names)}")
    try:
        from jsonschema import Draft202012Validator
    except ImportError:
        Draft202012Validator = None
    for t in tools:
        schema = field(t, "input_schema", "inputSchema")
        check(schema.get("additionalProperties") is False, f"{t.name}: closed schema")
        check(isinstance(schema.get("required"), list), f"{t.name}: required list")
        if Draft202012Validator is not None:
            Draft202012Validator.check_schema(schema)
    resources = (await session.list_resources()).resources
    uris = {str(r.uri) for r in resources}
    check(uris == EXPECTED_RESOURCES, f"the three resources, got {sorted(uris)}")


async def scenario(binary, doc_path):
    registration = documented_registration(doc_path)
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as project:
        # stdio_client passes HOME through; a fresh one keeps acc's default data home here.
        os.environ["HOME"] = home
        workspace = str(Path(project).resolve())
        async with AsyncExitStack() as stack:
            alice = await connect(stack, server_params(registration, binary, "alice", workspace))
            await list_surface(alice)
            bob = await connect(stack, server_params(registration, binary, "bob", workspace))

            status = await call(alice, "acc_status")
            check([s["participantId"] for s in status["sessions"]] == ["alice"],
                  "the first call attached alice's session")
            me = status["sessions"][0]
            check((me["harness"], me["enforcement"], me["lifecycle"]) == ("mcp", "advisory", "manual"),
                  f"an MCP session is advisory and manual: {me}")

            work = await call(alice, "acc_work", {
                "summary": "refactor the parser", "mode": "edit",
                "resourceHints": ["file:src/parser.rs"]})
            check(work["intent"]["summary"] == "refactor the parser", "intent published")

            claim = await call(alice, "acc_claim", {
                "action": "acquire", "resource": "file:src/parser.rs", "reason": "refactor"})
            claim_id = claim["claim"]["claimId"]
            renewed = await call(alice, "acc_claim", {
                "action": "renew", "claimId": claim_id, "leaseSeconds": 600})
            check(renewed["renewed"] and renewed["claim"]["claimId"] == claim_id, "claim renewed")

            # Bob sees alice: her session, her intent and her claim.
            seen = await call(bob, "acc_status")
            holders = {(c["ownerParticipantId"], c["resource"]) for c in seen["claims"]}
            check(("alice", "file:src/parser.rs") in holders, f"bob sees alice's claim: {holders}")
            check({s["participantId"] for s in seen["sessions"]} == {"alice", "bob"},
                  "both sessions are in the room")
            conflict = await call(bob, "acc_claim",
                                  {"action": "acquire", "resource": "file:src/parser.rs"},
                                  expect_error=True)
            check(conflict["error"]["code"] == 5 and conflict["error"]["reason"] == "claim_conflict",
                  f"bob's claim conflicts: {conflict}")

            # Bob asks; alice reads, may not just acknowledge, and answers.
            asked = await call(bob, "acc_message", {
                "to": ["alice"], "kind": "question", "subject": "which port?",
                "body": "the parser server listens where?"})
            question = asked["message"]["messageId"]
            inbox = await call(alice, "acc_inbox")
            check([i["messageId"] for i in inbox["items"]] == [question], f"alice's inbox: {inbox}")
            full = await call(alice, "acc_inbox", {"messageId": question})
            check(full["message"]["body"] == "the parser server listens where?", "full message")
            owed = await call(alice, "acc_ack", {"messageId": question}, expect_error=True)
            check(owed["error"]["reason"] == "reply_required" and owed["error"]["code"] == 5,
                  f"ack refused while a reply is owed: {owed}")
            await call(alice, "acc_reply", {"messageId": question, "body": "8080"})
            answers = await call(bob, "acc_inbox")
            check([i["kind"] for i in answers["items"]] == ["answer"], f"bob got the answer: {answers}")
            await call(bob, "acc_ack", {"messageId": answers["items"][0]["messageId"]})

            # Alice asks for work; bob answers it.
            req = await call(alice, "acc_request", {
                "toParticipantId": "bob", "title": "review the parser", "detail": "after lunch"})
            bob_box = await read(bob, "acc://inbox")
            check(req["message"]["messageId"] in [i["messageId"] for i in bob_box["items"]],
                  "bob's inbox resource lists the request")
            await call(bob, "acc_reply", {"messageId": req["message"]["messageId"], "body": "will do"})

            # A room decision by alice, replaced by bob: the replacement names it, both show
            # where they stand, and only the replacement is still on alice's inbox page.
            first = await call(alice, "acc_message", {
                "to": [], "kind": "decision", "subject": "one crate", "body": "simpler"})
            root = first["message"]["messageId"]
            check(first["message"]["decisionStatus"]["state"] == "current",
                  f"a new decision is current: {first}")
            second = await call(bob, "acc_message", {
                "to": [], "kind": "decision", "subject": "two crates", "body": "faster builds",
                "supersedes": [root]})
            replacement = second["message"]["messageId"]
            check(second["message"]["decisionChange"] == {"action": "replace", "messageIds": [root]},
                  f"the replacement records its change: {second}")
            status = second["message"]["decisionStatus"]
            check(status["groupId"] == root and status["currentMessageId"] == replacement
                  and not status["conflicted"], f"the replacement is the group's head: {status}")
            old = await call(bob, "acc_inbox", {"messageId": root})
            old_status = old["message"]["decisionStatus"]
            check(old_status["state"] == "superseded" and old_status["currentMessageId"] == replacement,
                  f"the original reads as superseded: {old_status}")
            box = await call(alice, "acc_inbox")
            listed = {i["messageId"]: i for i in box["items"]}
            check(replacement in listed and root not in listed,
                  f"alice's page lists the replacement only: {box}")
            check(listed[replacement]["decisionStatus"]["state"] == "current",
                  "the page shows the decision's status")
            await call(alice, "acc_inbox", {"messageId": replacement})
            full = await call(alice, "acc_sync", {"scope": "full"})
            check([d["messageId"] for d in full["snapshot"]["decisions"]] == [replacement],
                  f"the full sync lists the decision in force: {full['snapshot']['decisions']}")
            await argument_error(bob, "acc_message", {
                "to": [], "kind": "decision", "subject": "s", "body": "b",
                "supersedes": [root], "withdraws": [root]}, "supersedes with withdraws")
            gone = await call(bob, "acc_message", {
                "to": [], "kind": "decision", "subject": "s", "body": "b",
                "withdraws": ["message_missing"]}, expect_error=True)
            check(gone["error"]["code"] == 4 and gone["error"]["reason"] == "not_found",
                  f"an unknown decision is a data error: {gone}")

            sync = await call(alice, "acc_sync")
            check(re.fullmatch(r"\d{16}", sync["cursor"]) is not None, "sync returns a cursor")
            kinds = {e["type"] for e in sync["events"]}
            check("message.recorded" in kinds, f"alice's sync shows bob's messages: {kinds}")
            later = await call(alice, "acc_sync", {"cursor": sync["cursor"], "scope": "delta"})
            check(later["events"] == [], "nothing new after the cursor")

            for who in (alice, bob):
                snap = await read(who, "acc://snapshot")
                check(any(c["claimId"] == claim_id for c in snap["claims"]), "snapshot shows the claim")
                roster = await read(who, "acc://roster")
                check({s["participantId"] for s in roster["sessions"]} == {"alice", "bob"},
                      "roster shows both")
                await read(who, "acc://inbox")

            # Arguments that break a schema are for the model to correct; protocol faults
            # stay JSON-RPC errors.
            await argument_error(alice, "acc_claim", {
                "action": "acquire", "resource": "file:x", "color": "red"},
                "an additional property")
            await argument_error(alice, "acc_release", {}, "a missing claimId")
            await protocol_error(alice.call_tool("acc_teleport", {}), -32602, "an unknown tool")
            await protocol_error(alice.read_resource("acc://nowhere"), -32002, "an unknown resource")

            released = await call(alice, "acc_release", {"claimId": claim_id})
            check(released["claimId"] == claim_id, "claim released")
            await call(alice, "acc_work", {"clear": True})
            await call(alice, "acc_claim", {"action": "acquire", "resource": "file:docs/**"})
            finished = await call(alice, "acc_finish", {
                "goal": "parser refactor", "status": "partial", "toParticipantId": "bob",
                "completed": ["lexer"], "remaining": ["errors"]})
            check([r["resource"] for r in finished["released"]] == ["file:docs/**"],
                  "finish released alice's claims")
            handoff = await call(bob, "acc_inbox")
            check([i["kind"] for i in handoff["items"]] == ["handoff"], f"bob got the handoff: {handoff}")
            await call(bob, "acc_ack", {"messageId": handoff["items"][0]["messageId"]})
            after = await call(bob, "acc_status")
            check([s["participantId"] for s in after["sessions"]] == ["bob"],
                  "alice's session is closed after finish")

        await high_level_client(registration, binary, workspace)


async def high_level_client(registration, binary, workspace):
    """SDK 2.x's `Client` defaults to probing the 2026 `server/discover` first; acc-mcp speaks
    the 2025 handshake, so the probe must fail cleanly and the client fall back to it."""
    try:
        from mcp import Client
    except ImportError:  # SDK 1.x has only ClientSession, exercised above
        return
    params = server_params(registration, binary, "carol", workspace)
    async with Client(params) as client:
        check(client.protocol_version in SUPPORTED_VERSIONS,
              f"the high-level client fell back to the handshake: {client.protocol_version}")
        result = await client.call_tool("acc_status", {})
        status = field(result, "structured_content", "structuredContent")
        check("carol" in {s["participantId"] for s in status["sessions"]},
              f"carol attached through the high-level client: {status}")


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    binary = os.path.abspath(sys.argv[1])
    default_doc = Path(__file__).resolve().parents[2] / "docs" / "MCP.md"
    doc_path = sys.argv[2] if len(sys.argv) == 3 else str(default_doc)
    if not os.access(binary, os.X_OK):
        print(f"not an executable: {binary}", file=sys.stderr)
        return 2
    # A deadline so a hung server fails the run instead of stalling CI.
    asyncio.run(asyncio.wait_for(scenario(binary, doc_path), timeout=180))
    print(f"acc-mcp real-client test: {checks} checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
