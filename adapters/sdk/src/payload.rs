//! Reading client hook payloads and writing the answer shapes several clients share.
//!
//! Adapters whitelist: they pick the few fields they need out of a payload with these
//! readers and never copy the payload itself. Every reader takes a non-blank string or
//! nothing, so a client that sends `""` or a number where a name belongs is treated as
//! having sent nothing rather than as having named an empty session.

use serde_json::{Map, Value, json};

use crate::adapter::ToolGuard;
use crate::event::{NamedPath, NormalizeError, Targets, ToolCall, ToolClass};
use crate::outcome::HookOutcome;
use crate::patch_targets::read_apply_patch;
use crate::shell_targets::{ShellContext, ShellTarget, read_shell_command_whole};

/// The longest client session id accepted. Real ids are UUID-sized; anything far longer is
/// not a session id, and it would end up in file names and logs.
pub const MAX_SESSION_ID_BYTES: usize = 512;

/// The payload as a JSON object, or a refusal naming what it was instead.
pub fn object(payload: &Value) -> Result<&Map<String, Value>, NormalizeError> {
    payload.as_object().ok_or_else(|| {
        let what = match payload {
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Array(_) => "an array",
            Value::Object(_) => "an object",
        };
        NormalizeError::ForeignShape(format!("the payload is {what}, not a JSON object"))
    })
}

/// `obj[key]` when it is a string with something other than whitespace in it.
pub fn text<'a>(obj: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    obj.get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// The first of `keys` that holds a non-blank string (clients have renamed fields between
/// versions, so some adapters accept several spellings of one field).
pub fn first_text<'a>(obj: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| text(obj, k))
}

/// The first non-blank string among `keys`, owned.
pub fn optional_text(obj: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    first_text(obj, keys).map(str::to_owned)
}

/// The client's session id from the first of `keys` that holds one. A missing or blank id
/// is refused (inventing one would attach a new session on every hook); so is one that
/// cannot be an id at all.
pub fn session_id(obj: &Map<String, Value>, keys: &[&str]) -> Result<String, NormalizeError> {
    let id = first_text(obj, keys).ok_or(NormalizeError::MissingSessionId)?;
    if id.len() > MAX_SESSION_ID_BYTES {
        return Err(NormalizeError::InvalidField {
            field: "sessionId",
            reason: format!("longer than {MAX_SESSION_ID_BYTES} bytes"),
        });
    }
    if id.chars().any(char::is_control) {
        return Err(NormalizeError::InvalidField {
            field: "sessionId",
            reason: "contains control characters".into(),
        });
    }
    Ok(id.to_owned())
}

/// The session's working directory from the first of `keys` that holds one.
pub fn cwd(obj: &Map<String, Value>, keys: &[&str]) -> Result<String, NormalizeError> {
    first_text(obj, keys)
        .map(str::to_owned)
        .ok_or(NormalizeError::MissingCwd)
}

/// A shell command as text. Some clients send an argument vector instead of a command
/// line; its words are single-quoted so the target reader sees exactly those words.
pub fn command_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Array(words) if !words.is_empty() => words
            .iter()
            .map(|w| w.as_str().map(shell_quote))
            .collect::<Option<Vec<_>>>()
            .map(|words| words.join(" ")),
        _ => None,
    }
}

/// Leaves plain words bare (a quoted `-c` is an operand, not an option, to a shell reader)
/// and single-quotes the rest.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// `Targets` for a list of paths: an empty list is a call that writes nothing.
pub fn targets_of(paths: Vec<String>) -> Targets {
    if paths.is_empty() {
        Targets::None
    } else {
        Targets::Paths(paths)
    }
}

/// Why a write tool's call is unreadable when it names no file.
const NO_PATH: &str =
    "acc cannot tell which file this write names; name the file in the tool's path field";

/// Why a shell tool's call is unreadable when it carries no command.
const NO_COMMAND: &str = "acc cannot find the command this shell call runs; send it as text";

/// The file a write tool names under `keys`; a write whose path cannot be read is
/// `Unreadable`, never harmless. Every key the client could act on is read: a call naming
/// different files under two of them (`notebook_path` inside a claim, `file_path` outside)
/// is `Unreadable`, since acc cannot tell which one the client writes.
pub fn path_targets(input: &Value, keys: &[&str]) -> Targets {
    let Some(obj) = input.as_object() else {
        return Targets::unreadable(NO_PATH);
    };
    let mut named: Vec<(&str, &str)> = Vec::new();
    for key in keys {
        if let Some(path) = first_text(obj, &[key]) {
            named.push((key, path));
        }
    }
    match named.as_slice() {
        [] => Targets::unreadable(NO_PATH),
        [(_, path), rest @ ..] => match rest.iter().find(|(_, other)| other != path) {
            None => Targets::Paths(vec![(*path).to_owned()]),
            Some((other_key, _)) => Targets::unreadable(format!(
                "acc cannot tell which file this write names: its `{}` and `{other_key}` \
                 fields name different files; send the path in one field",
                named[0].0
            )),
        },
    }
}

/// The files a shell command writes, read with no context (no directory, home or file
/// system: see [`shell_targets_at`]); `Unreadable`, with the reason, when the command
/// cannot be read. A path the command removes or restores whole is given as `<path>/**`
/// (see [`Targets::Paths`]).
pub fn shell_targets(command: Option<&str>) -> Targets {
    shell_targets_at(command, &ShellContext::DETACHED)
}

/// Like [`shell_targets`], read where the command runs: globs are matched, `~`, `$HOME`
/// and `$PWD` expanded, against `at`.
pub fn shell_targets_at(command: Option<&str>, at: &ShellContext<'_>) -> Targets {
    shell_reading_at(command, at).0
}

/// Like [`shell_targets_at`], with whether the targets are all the command can write
/// ([`ShellReading::writes_only_targets`]; false when it cannot be read).
pub fn shell_reading_at(command: Option<&str>, at: &ShellContext<'_>) -> (Targets, bool) {
    let Some(command) = command else {
        return (Targets::unreadable(NO_COMMAND), false);
    };
    match read_shell_command_whole(command, at) {
        Ok(reading) => (shell_found(reading.targets), reading.writes_only_targets),
        Err(why) => (Targets::unreadable(why), false),
    }
}

/// What the reader found, as targets: `Named` when a program it cannot bound names a path.
fn shell_found(found: Vec<ShellTarget>) -> Targets {
    if found.iter().all(|t| t.named_by.is_none()) {
        return targets_of(found.into_iter().map(reach_path).collect());
    }
    let mut paths = Vec::new();
    let mut named = Vec::new();
    for target in found {
        match target.named_by.clone() {
            None => paths.push(reach_path(target)),
            Some(by) => named.push(NamedPath {
                program: by.program,
                path: reach_path(target),
                into: by.into,
            }),
        }
    }
    Targets::Named { paths, named }
}

fn reach_path(target: ShellTarget) -> String {
    if target.whole {
        whole_path(&target.path)
    } else {
        target.path
    }
}

/// `src` -> `src/**`, `src/` -> `src/**`, `/` -> `/**`.
fn whole_path(path: &str) -> String {
    format!("{}/**", path.trim_end_matches('/'))
}

/// The files an `apply_patch` body writes; `Unreadable`, with the reason, when Codex could
/// not parse it either.
pub fn patch_targets(patch: Option<&str>) -> Targets {
    match patch.map(read_apply_patch) {
        Some(Ok(paths)) => targets_of(paths),
        Some(Err(why)) => Targets::unreadable(why),
        None => Targets::unreadable(NO_COMMAND),
    }
}

/// The command a shell tool runs, from the first of `keys` in its input.
pub fn tool_command(input: &Value, keys: &[&str]) -> Option<String> {
    let obj = input.as_object()?;
    keys.iter().find_map(|k| obj.get(*k).and_then(command_text))
}

/// A client's file-writing tools, by name, and the input key(s) naming the file.
#[derive(Debug, Clone, Copy)]
pub struct WriteTools {
    pub names: &'static [&'static str],
    pub path_keys: &'static [&'static str],
}

impl ToolGuard for WriteTools {
    fn targets(&self, tool_name: &str, tool_input: &Value) -> Option<Targets> {
        self.names
            .contains(&tool_name)
            .then(|| path_targets(tool_input, self.path_keys))
    }
}

/// A client's shell tools, by name, and the input key(s) holding the command.
#[derive(Debug, Clone, Copy)]
pub struct ShellTools {
    pub names: &'static [&'static str],
    pub command_keys: &'static [&'static str],
}

impl ToolGuard for ShellTools {
    fn targets(&self, tool_name: &str, tool_input: &Value) -> Option<Targets> {
        self.targets_at(tool_name, tool_input, &ShellContext::DETACHED)
    }

    fn targets_at(
        &self,
        tool_name: &str,
        tool_input: &Value,
        at: &ShellContext<'_>,
    ) -> Option<Targets> {
        self.reading_at(tool_name, tool_input, at).map(|(t, _)| t)
    }

    fn reading_at(
        &self,
        tool_name: &str,
        tool_input: &Value,
        at: &ShellContext<'_>,
    ) -> Option<(Targets, bool)> {
        self.names
            .contains(&tool_name)
            .then(|| shell_reading_at(tool_command(tool_input, self.command_keys).as_deref(), at))
    }
}

/// The tool call in a payload, classed by the first family that claims it. A tool no family
/// claims is `Other` and writes nothing as far as the guard knows.
pub fn classify_tool(
    name: &str,
    input: &Value,
    families: &[(ToolClass, &dyn ToolGuard)],
) -> ToolCall {
    classify_tool_at(name, input, families, &ShellContext::DETACHED)
}

/// Like [`classify_tool`], with shell commands read where they run (`at`).
pub fn classify_tool_at(
    name: &str,
    input: &Value,
    families: &[(ToolClass, &dyn ToolGuard)],
    at: &ShellContext<'_>,
) -> ToolCall {
    let (class, (targets, writes_only_targets)) = families
        .iter()
        .find_map(|(class, guard)| guard.reading_at(name, input, at).map(|t| (*class, t)))
        .unwrap_or((ToolClass::Other, (Targets::None, false)));
    ToolCall {
        name: name.to_owned(),
        class,
        targets,
        call_id: None,
        writes_only_targets,
    }
}

/// The tool call of a payload whose name and input sit under `name_keys` and `input_key`;
/// `None` when the payload names no tool.
pub fn payload_tool(
    obj: &Map<String, Value>,
    name_keys: &[&str],
    input_key: &str,
    families: &[(ToolClass, &dyn ToolGuard)],
) -> Option<ToolCall> {
    payload_tool_at(obj, name_keys, input_key, families, &ShellContext::DETACHED)
}

/// Like [`payload_tool`], with shell commands read where they run (`at`).
pub fn payload_tool_at(
    obj: &Map<String, Value>,
    name_keys: &[&str],
    input_key: &str,
    families: &[(ToolClass, &dyn ToolGuard)],
    at: &ShellContext<'_>,
) -> Option<ToolCall> {
    let name = first_text(obj, name_keys)?;
    let input = obj.get(input_key).unwrap_or(&Value::Null);
    Some(classify_tool_at(name, input, families, at))
}

/// One JSON value on one line, newline-terminated, as hook stdout.
pub fn json_line(value: &Value) -> String {
    let mut line = value.to_string();
    line.push('\n');
    line
}

/// A JSON answer on stdout with exit 0.
pub fn json_outcome(value: &Value) -> HookOutcome {
    HookOutcome::stdout(json_line(value))
}

/// The Claude-shaped tool refusal (also read by Codex and Kimi Code):
/// `hookSpecificOutput.permissionDecision = "deny"` on `PreToolUse`, exit 0.
pub fn permission_deny(reason: &str) -> HookOutcome {
    json_outcome(&json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }))
}

/// The Claude-shaped tool rewrite (`PreToolUse` `updatedInput`): allow the call, with
/// `updated_input` replacing the tool's whole input, exit 0.
pub fn permission_rewrite(updated_input: &Value, reason: &str) -> HookOutcome {
    json_outcome(&json!({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": reason,
            "updatedInput": updated_input,
        }
    }))
}

/// The Claude-shaped context envelope: `hookSpecificOutput.additionalContext` under the
/// client's own name for the event. Empty context is silence, not an empty envelope.
pub fn additional_context(client_event: &str, context: &str) -> HookOutcome {
    if context.is_empty() {
        return HookOutcome::silent();
    }
    json_outcome(&json!({
        "hookSpecificOutput": {
            "hookEventName": client_event,
            "additionalContext": context,
        }
    }))
}

/// Context as plain stdout, for clients that hand a hook's stdout to the model as is.
pub fn plain_context(context: &str) -> HookOutcome {
    if context.is_empty() {
        HookOutcome::silent()
    } else {
        HookOutcome::stdout(context)
    }
}

/// The Claude-shaped turn continuation (also read by Codex): the Stop hook's
/// `{"decision":"block","reason"}`, which the client answers with another model request of
/// the same turn carrying the reason. Only while the payload's `stop_hook_active` is false,
/// so at most once per turn (the continuation's own Stop says true); nothing to show lets
/// the turn end.
pub fn stop_block(reason: &str, raw: &Value) -> Option<HookOutcome> {
    if raw.get("stop_hook_active").and_then(Value::as_bool) != Some(false) || reason.is_empty() {
        return None;
    }
    Some(HookOutcome::stdout(
        json!({"decision": "block", "reason": reason}).to_string(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stop_block_holds_a_turn_open_once_with_the_reason() {
        let out = stop_block(
            "```acc-peer-message\nbody\n```",
            &json!({"stop_hook_active": false}),
        )
        .unwrap();
        assert_eq!(out.exit_code, 0);
        let v: Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(
            v,
            json!({"decision": "block", "reason": "```acc-peer-message\nbody\n```"})
        );
        // The continuation's own Stop, a payload without the flag, or nothing to show.
        assert!(stop_block("x", &json!({"stop_hook_active": true})).is_none());
        assert!(stop_block("x", &json!({})).is_none());
        assert!(stop_block("", &json!({"stop_hook_active": false})).is_none());
    }

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn non_objects_are_refused_by_what_they_are() {
        for (v, what) in [
            (json!(null), "null"),
            (json!([1]), "an array"),
            (json!("x"), "a string"),
            (json!(3), "a number"),
            (json!(true), "a boolean"),
        ] {
            assert_eq!(
                object(&v).unwrap_err(),
                NormalizeError::ForeignShape(format!("the payload is {what}, not a JSON object"))
            );
        }
        assert!(object(&json!({})).is_ok());
    }

    #[test]
    fn first_text_skips_blank_and_non_string_candidates() {
        let o = obj(json!({"a": "", "b": "  ", "c": 7, "d": "x", "e": "y"}));
        assert_eq!(first_text(&o, &["a", "b", "c", "d", "e"]), Some("x"));
        assert_eq!(first_text(&o, &["a", "b", "c", "missing"]), None);
    }

    #[test]
    fn session_ids_must_be_present_sane_and_not_blank() {
        let keys = ["session_id", "sessionId"];
        assert_eq!(
            session_id(&obj(json!({"sessionId": "s-1"})), &keys),
            Ok("s-1".into())
        );
        for missing in [
            json!({}),
            json!({"session_id": " "}),
            json!({"session_id": 5}),
        ] {
            assert_eq!(
                session_id(&obj(missing), &keys),
                Err(NormalizeError::MissingSessionId)
            );
        }
        let long = "x".repeat(MAX_SESSION_ID_BYTES + 1);
        assert!(matches!(
            session_id(&obj(json!({ "session_id": long })), &keys),
            Err(NormalizeError::InvalidField {
                field: "sessionId",
                ..
            })
        ));
        assert!(matches!(
            session_id(&obj(json!({"session_id": "a\nb"})), &keys),
            Err(NormalizeError::InvalidField {
                field: "sessionId",
                ..
            })
        ));
    }

    #[test]
    fn cwd_is_required() {
        assert_eq!(
            cwd(&obj(json!({"cwd": ""})), &["cwd"]),
            Err(NormalizeError::MissingCwd)
        );
        assert_eq!(cwd(&obj(json!({"cwd": "/w"})), &["cwd"]), Ok("/w".into()));
    }

    #[test]
    fn argv_commands_are_quoted_word_by_word() {
        let argv = json!(["bash", "-lc", "echo hi > 'my file.txt'"]);
        let command = command_text(&argv).unwrap();
        assert_eq!(command, r"bash -lc 'echo hi > '\''my file.txt'\'''");
        assert_eq!(
            shell_targets(Some(&command)),
            Targets::Paths(vec!["my file.txt".into()])
        );
        let argv = json!(["tee", "-a", "$HOME/x y"]);
        assert_eq!(
            shell_targets(command_text(&argv).as_deref()),
            Targets::Paths(vec!["$HOME/x y".into()])
        );
        assert_eq!(command_text(&json!(["ok", 1])), None);
        assert_eq!(command_text(&json!("  ")), None);
    }

    #[test]
    fn paths_written_whole_are_marked_as_trees() {
        let paths = |c: &str| match shell_targets(Some(c)) {
            Targets::Paths(p) => p,
            other => panic!("{c:?}: {other:?}"),
        };
        assert_eq!(paths("rm -rf src/ build"), ["src/**", "build/**"]);
        assert_eq!(paths("rm -rf /"), ["/**"]);
        assert_eq!(paths("mv src old"), ["src/**", "old", "old/src"]);
        assert_eq!(
            paths("mv -t dest a b"),
            ["dest", "dest/a", "dest/b", "a/**", "b/**"]
        );
        assert_eq!(paths("git restore ."), ["./**"]);
        assert_eq!(paths("git -C sub checkout -- lib"), ["sub/lib/**"]);
        assert_eq!(
            paths("git mv a b dest"),
            ["a/**", "b/**", "dest", "dest/a", "dest/b"]
        );
        assert_eq!(paths("cp f dir/ && mkdir -p dir"), ["dir/", "dir/f", "dir"]);
        // A path both added to and removed whole is removed whole.
        assert_eq!(paths("cp f dir && rm -r dir"), ["dir/**", "dir/f"]);
    }

    #[test]
    fn targets_distinguish_nothing_written_from_unreadable() {
        let unreadable = |t: Targets| matches!(t, Targets::Unreadable { reason } if reason.starts_with("acc cannot"));
        assert_eq!(shell_targets(Some("ls -la")), Targets::None);
        assert!(unreadable(shell_targets(Some("echo 'open"))));
        assert!(unreadable(shell_targets(None)));
        assert!(unreadable(path_targets(
            &json!({"file_path": ""}),
            &["file_path"]
        )));
        assert_eq!(
            path_targets(&json!({"path": "a.txt"}), &["file_path", "path"]),
            Targets::Paths(vec!["a.txt".into()])
        );
        // Every path field is judged: the same file twice is that file, two files are
        // unreadable (acc cannot tell which one the client writes).
        let keys = ["file_path", "notebook_path"];
        assert_eq!(
            path_targets(&json!({"file_path": "a", "notebook_path": "a"}), &keys),
            Targets::Paths(vec!["a".into()])
        );
        let split = path_targets(&json!({"notebook_path": "src/x", "file_path": "a"}), &keys);
        assert!(
            matches!(&split, Targets::Unreadable { reason } if reason.contains("`file_path` and `notebook_path` fields name different files")),
            "{split:?}"
        );
        // A command naming a path through a program acc cannot bound.
        assert_eq!(
            shell_targets(Some("chmod 000 src/lib.rs > log")),
            Targets::Named {
                paths: vec!["log".into()],
                named: ["000", "src/lib.rs"]
                    .map(|p| NamedPath {
                        program: "chmod".into(),
                        path: format!("{p}/**"),
                        into: false,
                    })
                    .to_vec(),
            }
        );
        assert_eq!(
            patch_targets(Some(
                "*** Begin Patch\n*** Delete File: old.rs\n*** End Patch\n"
            )),
            Targets::Paths(vec!["old.rs".into()])
        );
        assert!(unreadable(patch_targets(Some("echo hi"))));
    }

    #[test]
    fn the_first_family_that_claims_a_tool_classes_it() {
        let write = WriteTools {
            names: &["Write"],
            path_keys: &["file_path"],
        };
        let shell = ShellTools {
            names: &["Bash"],
            command_keys: &["command"],
        };
        let families: [(ToolClass, &dyn ToolGuard); 2] =
            [(ToolClass::Write, &write), (ToolClass::Shell, &shell)];
        let call = classify_tool("Bash", &json!({"command": "echo x >> log"}), &families);
        assert_eq!(call.class, ToolClass::Shell);
        assert_eq!(call.targets, Targets::Paths(vec!["log".into()]));
        let call = classify_tool("Read", &json!({"file_path": "a"}), &families);
        assert_eq!(
            (call.class, call.targets),
            (ToolClass::Other, Targets::None)
        );
        let o = obj(json!({"tool_name": "Write", "tool_input": {"file_path": "/w/a"}}));
        let call = payload_tool(&o, &["tool_name"], "tool_input", &families).unwrap();
        assert_eq!(call.targets, Targets::Paths(vec!["/w/a".into()]));
        assert_eq!(
            payload_tool(&obj(json!({})), &["tool_name"], "tool_input", &families),
            None
        );
    }

    #[test]
    fn answer_shapes_are_one_json_line_or_plain_text() {
        assert_eq!(
            permission_deny("taken").stdout,
            "{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"taken\"}}\n"
        );
        assert_eq!(
            additional_context("UserPromptSubmit", "hi").stdout,
            "{\"hookSpecificOutput\":{\"hookEventName\":\"UserPromptSubmit\",\"additionalContext\":\"hi\"}}\n"
        );
        assert_eq!(
            additional_context("UserPromptSubmit", ""),
            HookOutcome::silent()
        );
        assert_eq!(plain_context(""), HookOutcome::silent());
        assert_eq!(plain_context("a\nb").stdout, "a\nb");
    }
}
