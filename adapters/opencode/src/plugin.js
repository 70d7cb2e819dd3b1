// acc (agents-can-communicate): OpenCode has no hook commands, so this plugin hands its
// events to acc-hook. `acc uninstall --adapter opencode` removes this file; edits are lost
// at the next `acc install`.
//
// Only ids, the directory, the tool's name and arguments reach acc-hook: never the
// prompt, the conversation or a tool's output. Any failure here lets OpenCode go on, as a
// failing hook command does in the other clients; acc-hook itself refuses a covered write
// when it cannot read its store.
import { spawnSync } from "node:child_process";

// acc-hook's command for each event, as `acc install` wrote it.
const ACC_HOOKS = __ACC_HOOKS__;
const TIMEOUT_MS = __ACC_TIMEOUT_MS__;
const HEARTBEAT_MS = 60000;

export const AccPlugin = async ({ directory }) => {
  const started = new Set();
  const ended = new Set();
  const parents = new Map();
  const startContext = new Map();
  // Whether the person set any rule for shell commands: a call acc rewrites would then be
  // matched against acc's runner line instead of their command, so acc-hook leaves it.
  let shellRules = false;

  const run = (event, sessionID, fields) => {
    const command = ACC_HOOKS[event];
    if (!command || !sessionID) return null;
    const payload = {
      hook_event_name: event,
      session_id: sessionID,
      cwd: directory,
      ...(parents.get(sessionID) ? { parent_session_id: parents.get(sessionID) } : {}),
      ...fields,
    };
    try {
      const out = spawnSync("/bin/sh", ["-c", command], {
        input: JSON.stringify(payload),
        encoding: "utf8",
        timeout: TIMEOUT_MS,
        stdio: ["pipe", "pipe", "ignore"],
      });
      const text = (out.stdout || "").trim();
      return text ? JSON.parse(text) : null;
    } catch {
      return null;
    }
  };

  const start = (sessionID, source) => {
    if (!sessionID || started.has(sessionID)) return;
    started.add(sessionID);
    const answer = run("SessionStart", sessionID, { source });
    if (answer && typeof answer.context === "string") startContext.set(sessionID, answer.context);
  };

  const end = (sessionID, reason) => {
    if (!started.has(sessionID) || ended.has(sessionID)) return;
    ended.add(sessionID);
    run("SessionEnd", sessionID, { reason });
  };

  const beat = setInterval(() => {
    for (const id of started) if (!ended.has(id)) run("Heartbeat", id, {});
  }, HEARTBEAT_MS);
  beat.unref?.();

  return {
    config: async (config) => {
      shellRules = hasShellRules(config?.permission) ||
        Object.values(config?.agent ?? {}).some((agent) => hasShellRules(agent?.permission));
    },
    event: async ({ event }) => {
      const info = event?.properties?.info;
      if (event?.type === "session.created" && info?.id) {
        if (info.parentID) parents.set(info.id, info.parentID);
        start(info.id, "startup");
      } else if (event?.type === "session.idle") {
        const id = event.properties?.sessionID;
        if (started.has(id) && !ended.has(id)) run("SessionIdle", id, {});
      } else if (event?.type === "session.deleted" && info?.id) {
        end(info.id, "deleted");
      }
    },
    "chat.message": async (input, output) => {
      const sessionID = input?.sessionID;
      // A session this process did not create is one it resumed (`--continue`, `--session`).
      start(sessionID, "resume");
      const answer = run("ChatMessage", sessionID, {
        agent: input?.agent ?? null,
        model: input?.model ? `${input.model.providerID}/${input.model.modelID}` : null,
      });
      const texts = [startContext.get(sessionID), answer?.context].filter(
        (t) => typeof t === "string" && t.length > 0,
      );
      startContext.delete(sessionID);
      for (const text of texts) {
        output.parts.push({
          id: partId(output.parts[output.parts.length - 1]?.id),
          messageID: output.message.id,
          sessionID: output.message.sessionID,
          type: "text",
          synthetic: true,
          text,
        });
      }
    },
    "tool.execute.before": async (input, output) => {
      const answer = run("ToolExecuteBefore", input?.sessionID, {
        tool_name: input?.tool,
        tool_input: output?.args ?? {},
        call_id: input?.callID ?? null,
        shell_rules: shellRules,
      });
      // OpenCode hands the model a thrown error's bare message, with no failure flag in Chat
      // Completions: the marker says the call was refused, as other clients' hook runners'
      // prefixes do.
      if (answer?.decision === "deny") throw new Error(`blocked by acc: ${String(answer.reason ?? "refused")}`);
      if (answer?.decision === "allow" && answer.args && typeof answer.args === "object") {
        for (const [key, value] of Object.entries(answer.args)) output.args[key] = value;
      }
    },
    "tool.execute.after": async (input, output) => {
      const answer = run("ToolExecuteAfter", input?.sessionID, {
        tool_name: input?.tool,
        tool_input: input?.args ?? {},
        call_id: input?.callID ?? null,
      });
      if (typeof answer?.context === "string" && answer.context && typeof output?.output === "string") {
        output.output = `${output.output}\n\n${answer.context}`;
      }
    },
    dispose: async () => {
      clearInterval(beat);
      for (const id of started) end(id, "exit");
    },
  };
};

function hasShellRules(permission) {
  if (permission === undefined || permission === null) return false;
  if (typeof permission === "string") return permission !== "allow";
  const shell = permission.bash;
  if (shell === undefined) return typeof permission["*"] === "string" && permission["*"] !== "allow";
  if (typeof shell === "string") return shell !== "allow";
  return Object.values(shell).some((rule) => rule !== "allow");
}

// Part ids sort by time inside a message; a later id than the prompt's keeps acc's text
// after it.
function partId(after) {
  const base = typeof after === "string" && after.startsWith("prt_") ? after : "prt_";
  return `${base}acc${Math.random().toString(36).slice(2, 10)}`;
}
