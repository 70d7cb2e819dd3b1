//! Codex's sub-agent tools, as the OpenAI Responses double drives them.
//!
//! Codex 0.171.0 offers its sub-agent tools only as a deferred namespace (`multi_agent_v1`,
//! named in a developer message), loaded through its client-executed `tool_search`: the
//! model emits a `tool_search_call`, Codex answers with a `tool_search_output` item that
//! carries the namespace's tool definitions, and from then on the model may call them as
//! `function_call`s naming the namespace. `spawn_agent` returns at once with the new
//! agent's id; the model then waits for it (`wait_agent`), whose result carries the
//! subagent's final status and closing text.
//!
//! The double stays stateless: which of these calls comes next is read from the request's
//! own history ([`pending_wait`], then [`next_call`]).

use serde_json::{Value, json};

use super::analysis::{array_field, str_field, text_of_content};

/// The deferred namespace that holds the sub-agent tools.
pub const NAMESPACE: &str = "multi_agent_v1";
pub const SPAWN_TOOL: &str = "spawn_agent";
/// Releases name the waiting tool differently; the first one the namespace defines is used.
const WAIT_TOOLS: [&str; 2] = ["wait_agent", "wait"];
/// What the double asks `tool_search` for: the namespace's own words.
const SEARCH_QUERY: &str = "spawn_agent wait_agent sub-agents multi_agent_v1";
const SEARCH_LIMIT: u64 = 20;
/// How long one wait may block, in milliseconds; a timed-out wait is simply asked again.
const WAIT_TIMEOUT_MS: u64 = 120_000;

/// The next sub-agent call of a parent that delegates `task`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// Load the namespace through `tool_search`.
    Search,
    /// Spawn the subagent with `task` as its first message.
    Spawn { task: String },
    /// Wait for the spawned agent, by its id.
    Wait {
        tool: String,
        targets_key: String,
        agent_id: String,
    },
}

impl Call {
    /// The output item and the double's log label for script step `step`; `index` (the
    /// request's history length) keeps call ids apart, as these calls share one step.
    pub fn item(&self, index: usize, step: usize) -> (Value, String) {
        let call_id = format!("call_acc_agent{index}");
        match self {
            Call::Search => (
                json!({
                    "type": "tool_search_call", "id": format!("ts_acc_{index}"),
                    "status": "completed", "call_id": call_id, "execution": "client",
                    "arguments": {"query": SEARCH_QUERY, "limit": SEARCH_LIMIT},
                }),
                format!("tool_search_call:{NAMESPACE} step={step}"),
            ),
            Call::Spawn { task } => (
                function_call(index, &call_id, SPAWN_TOOL, json!({"message": task})),
                format!("function_call:{SPAWN_TOOL} step={step}"),
            ),
            Call::Wait {
                tool,
                targets_key,
                agent_id,
            } => (
                function_call(
                    index,
                    &call_id,
                    tool,
                    json!({targets_key.as_str(): [agent_id], "timeout_ms": WAIT_TIMEOUT_MS}),
                ),
                format!("function_call:{tool} step={step}"),
            ),
        }
    }
}

fn function_call(index: usize, call_id: &str, name: &str, arguments: Value) -> Value {
    json!({
        "type": "function_call", "id": format!("fc_acc_agent{index}"), "status": "completed",
        "call_id": call_id, "namespace": NAMESPACE, "name": name,
        "arguments": arguments.to_string(),
    })
}

/// The call a parent that delegates `task` makes next, before it has spawned: load the
/// namespace, or spawn once it is loaded. `None` when the tools cannot be reached.
pub fn next_call(body: &Value, task: &str) -> Option<Call> {
    if loaded_tools(body).iter().any(|t| t.name == SPAWN_TOOL) {
        return Some(Call::Spawn {
            task: task.to_owned(),
        });
    }
    offers_tool_search(body).then_some(Call::Search)
}

/// The wait a parent that has spawned a subagent makes next, or `None` when it has spawned
/// none or a wait already returned the subagent's final status (its script then goes on).
/// Read before the script: the parent's history then shows the task in the spawn call's
/// arguments, which alone would look like the subagent's own conversation.
pub fn pending_wait(body: &Value) -> Option<Call> {
    let history = array_field(body, "input");
    let spawn = history.iter().find(|item| is_call(item, &[SPAWN_TOOL]))?;
    let agent_id = agent_id(&output_of(history, str_field(spawn, "call_id"))?)?;
    let finished = history.iter().any(|item| {
        is_call(item, &WAIT_TOOLS)
            && output_of(history, str_field(item, "call_id")).is_some_and(|out| wait_finished(&out))
    });
    if finished {
        return None;
    }
    let tools = loaded_tools(body);
    let wait = WAIT_TOOLS
        .iter()
        .find_map(|name| tools.iter().find(|t| t.name == *name))?;
    Some(Call::Wait {
        tool: wait.name.clone(),
        targets_key: wait.targets_key.clone(),
        agent_id,
    })
}

fn is_call(item: &Value, names: &[&str]) -> bool {
    str_field(item, "type") == "function_call" && names.contains(&str_field(item, "name"))
}

/// Whether a wait's output reports a final status rather than a timeout.
fn wait_finished(output: &str) -> bool {
    serde_json::from_str::<Value>(output)
        .ok()
        .is_some_and(|v| v.get("timed_out").and_then(Value::as_bool) == Some(false))
}

fn agent_id(spawn_output: &str) -> Option<String> {
    let value: Value = serde_json::from_str(spawn_output).ok()?;
    value
        .get("agent_id")
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn output_of(history: &[Value], call_id: &str) -> Option<String> {
    history
        .iter()
        .find(|item| {
            str_field(item, "type") == "function_call_output"
                && str_field(item, "call_id") == call_id
        })
        .map(|item| text_of_content(&item["output"]))
}

fn offers_tool_search(body: &Value) -> bool {
    array_field(body, "tools")
        .iter()
        .any(|tool| str_field(tool, "type") == "tool_search")
}

/// A sub-agent tool the request defines, with the argument its wait takes the ids in.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Loaded {
    name: String,
    targets_key: String,
}

/// The namespace's tools, whether offered upfront or loaded by an earlier `tool_search`.
fn loaded_tools(body: &Value) -> Vec<Loaded> {
    let mut found = Vec::new();
    let searched = array_field(body, "input")
        .iter()
        .filter(|item| str_field(item, "type") == "tool_search_output")
        .flat_map(|item| array_field(item, "tools"));
    for tool in array_field(body, "tools").iter().chain(searched) {
        collect(tool, false, &mut found);
    }
    found
}

fn collect(tool: &Value, inside: bool, found: &mut Vec<Loaded>) {
    let inside =
        inside || str_field(tool, "name") == NAMESPACE || str_field(tool, "namespace") == NAMESPACE;
    if str_field(tool, "type") == "namespace" {
        for inner in array_field(tool, "tools") {
            collect(inner, inside, found);
        }
        return;
    }
    let name = str_field(tool, "name");
    if inside && (name == SPAWN_TOOL || WAIT_TOOLS.contains(&name)) {
        let properties = &tool["parameters"]["properties"];
        let targets_key = ["targets", "ids"]
            .into_iter()
            .find(|key| properties.get(key).is_some())
            .unwrap_or("targets");
        found.push(Loaded {
            name: name.to_owned(),
            targets_key: targets_key.to_owned(),
        });
    }
}

#[cfg(test)]
mod tests;
