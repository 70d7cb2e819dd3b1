//! acc's entries in Claude-shaped hook JSON, the layout Claude Code, Codex, Gemini CLI and
//! Grok share:
//!
//! ```json
//! {"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": "...", "timeout": 10}]}]}}
//! ```
//!
//! An entry is acc's when it is this install's ([`HookOwner`]): the install record names it,
//! or its command runs exactly this install's `acc-hook` with this install's data home. An
//! install replaces exactly those, and leaves every other entry, key and value where the user
//! put it, another acc install's entries and a user's own program called `acc-hook`
//! included. acc's groups go after the user's own in each event, one group per handler.
//!
//! Installing strips acc's handlers and appends the current ones without pruning the
//! containers it emptied, so installing twice gives the same document as installing once.
//! Uninstalling strips them and prunes the groups, event arrays and `hooks` object that
//! only acc's handlers filled.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

use crate::adapter::{AdapterError, AdapterErrorKind};
use crate::hook_command::{HookCommand, runs_acc_hook};
use crate::hook_owner::HookOwner;
use crate::install::{
    ChangeAction, Diagnostic, DiagnosticLevel, DoctorReport, FileChange, InstallContext,
};
use crate::install_files::read_json;

/// The top-level key holding the events.
pub const HOOKS_KEY: &str = "hooks";

/// What doctor says of an entry that looks like acc's but is not this install's.
pub const LOOK_ALIKE: &str =
    "looks like acc's but belongs to no install recorded in this data home";

/// Picks this install's handlers: given the event, the group's matcher and the command.
pub type Ours<'a> = &'a dyn Fn(&str, Option<&str>, &str) -> bool;

/// [`Ours`] for the file at `path`, as `owner` decides.
pub fn owned_in<'a>(
    owner: &'a HookOwner,
    path: &'a Path,
) -> impl Fn(&str, Option<&str>, &str) -> bool + 'a {
    move |event, matcher, command| owner.owns(path, event, matcher, command)
}

/// One handler acc registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookHandler {
    /// The client's event name.
    pub event: String,
    /// Which tools (or sources) the group applies to; `None` writes no matcher.
    pub matcher: Option<String>,
    pub command: String,
    /// In the client's own unit (seconds or milliseconds).
    pub timeout: u64,
    /// A display name, for clients that name handlers (Gemini CLI).
    pub name: Option<String>,
}

impl HookHandler {
    /// The handler for `adapter_id`'s `event`, running the hook command install writes.
    pub fn new(ctx: &InstallContext, adapter_id: &str, event: &str, timeout: u64) -> Self {
        HookHandler {
            event: event.to_owned(),
            matcher: None,
            command: HookCommand::for_context(ctx, adapter_id, event).render(),
            timeout,
            name: None,
        }
    }

    pub fn with_matcher(mut self, matcher: &str) -> Self {
        self.matcher = Some(matcher.to_owned());
        self
    }

    pub fn with_name(mut self, name: String) -> Self {
        self.name = Some(name);
        self
    }

    fn group(&self) -> Value {
        let mut handler = Map::new();
        if let Some(name) = &self.name {
            handler.insert("name".into(), json!(name));
        }
        handler.insert("type".into(), json!("command"));
        handler.insert("command".into(), json!(self.command));
        handler.insert("timeout".into(), json!(self.timeout));
        let mut group = Map::new();
        if let Some(matcher) = &self.matcher {
            group.insert("matcher".into(), json!(matcher));
        }
        group.insert(HOOKS_KEY.into(), json!([Value::Object(handler)]));
        Value::Object(group)
    }
}

/// A part of the document that is not the shape acc needs, named by JSON pointer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShapeError {
    pub pointer: String,
    pub message: String,
}

impl ShapeError {
    /// The adapter error for this problem in `path`: a conflict, since the file is valid
    /// JSON that the client may well accept, just not in a form acc can add to.
    pub fn in_file(&self, path: &Path) -> AdapterError {
        AdapterError::new(
            AdapterErrorKind::Conflict,
            format!(
                "{}: `{}` {}; acc will not rewrite it, fix it by hand and run the command again",
                path.display(),
                self.pointer,
                self.message
            ),
        )
        .at(path)
    }
}

/// One acc-owned handler found in a document.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FoundHandler {
    pub event: String,
    /// Its group's index in the event's array, and its index in that group.
    pub group: usize,
    pub index: usize,
    pub command: String,
    pub matcher: Option<String>,
    pub timeout: Option<u64>,
}

/// A document holding only `handlers`, for hook files acc owns whole.
pub fn document(handlers: &[HookHandler]) -> Value {
    merge(&json!({}), handlers, &|_, _, _| false).expect("an empty document has the expected shape")
}

/// `doc` with every handler `ours` picks replaced by `handlers`. Idempotent when `ours`
/// picks `handlers`.
pub fn merge(doc: &Value, handlers: &[HookHandler], ours: Ours) -> Result<Value, ShapeError> {
    let mut out = doc.clone();
    strip(&mut out, false, ours)?;
    let root = out.as_object_mut().ok_or_else(|| not_object(""))?;
    let hooks = root
        .entry(HOOKS_KEY)
        .or_insert_with(|| Value::Object(Map::new()))
        .as_object_mut()
        .ok_or_else(|| not_object("/hooks"))?;
    for handler in handlers {
        let pointer = format!("/hooks/{}", handler.event);
        hooks
            .entry(handler.event.clone())
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
            .ok_or_else(|| ShapeError {
                pointer,
                message: "is not an array of hook groups".to_owned(),
            })?
            .push(handler.group());
    }
    Ok(out)
}

/// `doc` without the handlers `ours` picks, and without the groups, event arrays and
/// `hooks` object that held nothing else. `None` when `doc` holds none.
pub fn remove(doc: &Value, ours: Ours) -> Result<Option<Value>, ShapeError> {
    let mut out = doc.clone();
    Ok(strip(&mut out, true, ours)?.then_some(out))
}

/// The handlers `ours` picks in `doc`, in document order.
pub fn find(doc: &Value, ours: Ours) -> Vec<FoundHandler> {
    find_all(doc)
        .into_iter()
        .filter(|f| ours(&f.event, f.matcher.as_deref(), &f.command))
        .collect()
}

/// Every handler in `doc` that looks like acc's (its program is an `acc-hook`), whoever
/// wrote it, in document order.
pub fn find_all(doc: &Value) -> Vec<FoundHandler> {
    let mut found = Vec::new();
    let Some(hooks) = doc.get(HOOKS_KEY).and_then(Value::as_object) else {
        return found;
    };
    for (event, groups) in hooks {
        let Some(groups) = groups.as_array() else {
            continue;
        };
        for (g, group) in groups.iter().enumerate() {
            let Some(handlers) = group.get(HOOKS_KEY).and_then(Value::as_array) else {
                continue;
            };
            for (h, handler) in handlers.iter().enumerate() {
                if let Some(command) = acc_command(handler) {
                    found.push(FoundHandler {
                        event: event.clone(),
                        group: g,
                        index: h,
                        command: command.to_owned(),
                        matcher: group
                            .get("matcher")
                            .and_then(Value::as_str)
                            .map(str::to_owned),
                        timeout: handler.get("timeout").and_then(Value::as_u64),
                    });
                }
            }
        }
    }
    found
}

fn acc_command(handler: &Value) -> Option<&str> {
    handler
        .get("command")
        .and_then(Value::as_str)
        .filter(|c| runs_acc_hook(c))
}

fn not_object(pointer: &str) -> ShapeError {
    ShapeError {
        pointer: if pointer.is_empty() {
            "/".to_owned()
        } else {
            pointer.to_owned()
        },
        message: "is not a JSON object".to_owned(),
    }
}

/// Removes acc's handlers in place; with `prune`, also the containers they alone filled.
/// Says whether anything was removed. Values that are not hook arrays (Gemini keeps
/// settings such as `hooks.enabled` beside the events) are left alone.
fn strip(doc: &mut Value, prune: bool, ours: Ours) -> Result<bool, ShapeError> {
    let root = doc.as_object_mut().ok_or_else(|| not_object(""))?;
    let Some(hooks) = root.get_mut(HOOKS_KEY) else {
        return Ok(false);
    };
    let hooks = hooks.as_object_mut().ok_or_else(|| not_object("/hooks"))?;
    let mut removed_any = false;
    let mut emptied_events = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        let before = groups.len();
        let mut removed_here = false;
        groups.retain_mut(|group| {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_owned);
            let Some(handlers) = group.get_mut(HOOKS_KEY).and_then(Value::as_array_mut) else {
                return true;
            };
            let count = handlers.len();
            handlers.retain(|h| {
                !h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| ours(event, matcher.as_deref(), c))
            });
            if handlers.len() == count {
                return true;
            }
            removed_here = true;
            !handlers.is_empty()
        });
        removed_any |= removed_here;
        if prune && removed_here && groups.is_empty() && before > 0 {
            emptied_events.push(event.clone());
        }
    }
    for event in &emptied_events {
        hooks.shift_remove(event);
    }
    if prune && removed_any && hooks.is_empty() {
        root.shift_remove(HOOKS_KEY);
    }
    Ok(removed_any)
}

/// Adds (or refreshes) acc's handlers in the JSON file at `path`, keeping its style.
/// A missing file is created.
pub fn install_file(
    path: &Path,
    handlers: &[HookHandler],
    owner: &HookOwner,
) -> Result<FileChange, AdapterError> {
    let doc = read_json(path)?;
    let merged =
        merge(&doc.value, handlers, &owned_in(owner, path)).map_err(|e| e.in_file(path))?;
    let action = doc.save(&merged)?;
    Ok(FileChange {
        path: path.to_path_buf(),
        action,
    })
}

/// Checks that `path` can take acc's handlers, writing nothing.
pub fn check_file(
    path: &Path,
    handlers: &[HookHandler],
    owner: &HookOwner,
) -> Result<(), AdapterError> {
    let doc = read_json(path)?;
    merge(&doc.value, handlers, &owned_in(owner, path)).map_err(|e| e.in_file(path))?;
    Ok(())
}

/// Refuses (`Conflict`) when a hook file acc owns whole exists but is not acc's: not JSON,
/// or holding a handler that does not run `acc-hook`.
pub fn check_owned_file(path: &Path) -> Result<(), AdapterError> {
    let foreign = || {
        AdapterError::new(
            AdapterErrorKind::Conflict,
            format!(
                "{} exists and was not written by acc; move it aside and run the command again",
                path.display()
            ),
        )
        .at(path)
    };
    let doc = read_json(path).map_err(|_| foreign())?;
    if !doc.existed {
        return Ok(());
    }
    let all_handlers = doc
        .value
        .get(HOOKS_KEY)
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|events| events.values())
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|group| group.get(HOOKS_KEY).and_then(Value::as_array))
        .flatten()
        .count();
    let accs = find_all(&doc.value).len();
    if accs > 0 && accs == all_handlers {
        Ok(())
    } else {
        Err(foreign())
    }
}

/// Removes this install's handlers from the JSON file at `path`; the file itself always
/// stays (it is the user's). `None` when the file is absent or holds none of them.
pub fn uninstall_file(path: &Path, owner: &HookOwner) -> Result<Option<FileChange>, AdapterError> {
    let doc = read_json(path)?;
    if !doc.existed {
        return Ok(None);
    }
    let Some(stripped) = remove(&doc.value, &owned_in(owner, path)).map_err(|e| e.in_file(path))?
    else {
        return Ok(None);
    };
    let action = doc.save(&stripped)?;
    Ok((action != ChangeAction::Unchanged).then(|| FileChange {
        path: path.to_path_buf(),
        action,
    }))
}

/// What doctor says about acc's handlers in `path` compared with what install would write.
pub fn diagnose_file(path: &Path, expected: &[HookHandler], owner: &HookOwner) -> Vec<Diagnostic> {
    let doc = match read_json(path) {
        Ok(doc) if doc.existed => doc,
        Ok(_) => {
            return vec![error(format!(
                "{} does not exist, so no acc hook runs",
                path.display()
            ))];
        }
        Err(e) => return vec![error(e.message)],
    };
    diagnose_handlers(path, &find_all(&doc.value), expected, owner)
}

/// Compares the found handlers that are this install's with the expected ones, event by
/// event, and names every other one that looks like acc's for what it is.
pub fn diagnose_handlers(
    path: &Path,
    all: &[FoundHandler],
    expected: &[HookHandler],
    owner: &HookOwner,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut found = Vec::new();
    for f in all {
        match owner.stranger(path, &f.event, f.matcher.as_deref(), &f.command) {
            Some(what) => out.push(warn(format!(
                "{}: the {} hook `{}` {LOOK_ALIKE}: {what}; install and uninstall leave it",
                path.display(),
                f.event,
                f.command
            ))),
            None => found.push(f.clone()),
        }
    }
    let found = found.as_slice();
    let mut matching = 0;
    for want in expected {
        let here: Vec<&FoundHandler> = found.iter().filter(|f| f.event == want.event).collect();
        match here.as_slice() {
            [] => out.push(error(format!(
                "{}: no acc hook for {}",
                path.display(),
                want.event
            ))),
            [one] if one.command == want.command => {
                matching += 1;
                out.extend(diagnose_command(&one.command));
            }
            [one] => {
                out.push(warn(format!(
                    "{}: the {} hook runs `{}`, not `{}`",
                    path.display(),
                    want.event,
                    one.command,
                    want.command
                )));
                out.extend(diagnose_command(&one.command));
            }
            many => out.push(warn(format!(
                "{}: {} acc hooks for {}; each runs once per event",
                path.display(),
                many.len(),
                want.event
            ))),
        }
    }
    for stray in found
        .iter()
        .filter(|f| !expected.iter().any(|e| e.event == f.event))
    {
        out.push(warn(format!(
            "{}: an acc hook for {}, an event acc does not use for this client",
            path.display(),
            stray.event
        )));
    }
    if matching == expected.len() && !expected.is_empty() {
        out.push(ok(format!(
            "{}: {} acc hook(s) as install writes them",
            path.display(),
            matching
        )));
    }
    dedup(out)
}

/// Whether a hook command can run at all: its executable absolute, present and executable.
pub fn diagnose_command(command: &str) -> Vec<Diagnostic> {
    let Some(parsed) = HookCommand::parse(command) else {
        return vec![warn(format!(
            "`{command}` runs acc-hook in a shape acc does not write"
        ))];
    };
    let exe: &PathBuf = &parsed.executable;
    if !exe.is_absolute() {
        return vec![error(format!(
            "`{command}` names acc-hook by a relative path; hooks run without PATH"
        ))];
    }
    if !is_executable(exe) {
        return vec![error(format!(
            "{} does not exist or is not executable; every acc hook fails",
            exe.display()
        ))];
    }
    Vec::new()
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// A doctor report over `diagnostics`: ok while none is an error.
pub fn doctor_report(diagnostics: Vec<Diagnostic>) -> DoctorReport {
    DoctorReport {
        ok: !diagnostics
            .iter()
            .any(|d| d.level == DiagnosticLevel::Error),
        diagnostics,
    }
}

fn dedup(items: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

pub fn ok(message: String) -> Diagnostic {
    Diagnostic {
        level: DiagnosticLevel::Ok,
        message,
    }
}

pub fn warn(message: String) -> Diagnostic {
    Diagnostic {
        level: DiagnosticLevel::Warn,
        message,
    }
}

pub fn error(message: String) -> Diagnostic {
    Diagnostic {
        level: DiagnosticLevel::Error,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This install's: `/opt/acc/acc-hook`, default data home, `claude-code`.
    fn owner() -> HookOwner {
        let mut ctx = crate::testing::install::context(Path::new("/h"), &[]);
        ctx.hook_executable = PathBuf::from("/opt/acc/acc-hook");
        HookOwner::new(&ctx, "claude-code")
    }

    fn ours(event: &str, matcher: Option<&str>, command: &str) -> bool {
        owner().owns(Path::new("/h/settings.json"), event, matcher, command)
    }

    fn handler(event: &str, matcher: Option<&str>) -> HookHandler {
        HookHandler {
            event: event.to_owned(),
            matcher: matcher.map(str::to_owned),
            command: format!("\"/opt/acc/acc-hook\" claude-code {event}"),
            timeout: 10,
            name: None,
        }
    }

    fn acc_handlers() -> Vec<HookHandler> {
        vec![
            handler("SessionStart", None),
            handler("PreToolUse", Some("Write|Edit")),
        ]
    }

    fn user_doc() -> Value {
        json!({
            "model": "opus",
            "hooks": {
                "PreToolUse": [
                    {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/bin/audit", "timeout": 5}]}
                ],
                "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}]
            },
            "theme": "dark"
        })
    }

    #[test]
    fn merge_appends_after_the_users_groups_and_keeps_everything_else() {
        let merged = merge(&user_doc(), &acc_handlers(), &ours).unwrap();
        assert_eq!(
            merged,
            json!({
                "model": "opus",
                "hooks": {
                    "PreToolUse": [
                        {"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/bin/audit", "timeout": 5}]},
                        {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "\"/opt/acc/acc-hook\" claude-code PreToolUse", "timeout": 10}]}
                    ],
                    "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
                    "SessionStart": [
                        {"hooks": [{"type": "command", "command": "\"/opt/acc/acc-hook\" claude-code SessionStart", "timeout": 10}]}
                    ]
                },
                "theme": "dark"
            })
        );
        let keys: Vec<&String> = merged["hooks"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["PreToolUse", "Notification", "SessionStart"]);
    }

    #[test]
    fn merging_twice_is_merging_once_even_around_empty_containers() {
        for doc in [
            user_doc(),
            json!({}),
            json!({"hooks": {}}),
            json!({"hooks": {"Stop": [], "SessionStart": []}, "x": 1}),
        ] {
            let once = merge(&doc, &acc_handlers(), &ours).unwrap();
            let twice = merge(&once, &acc_handlers(), &ours).unwrap();
            assert_eq!(
                serde_json::to_string(&once).unwrap(),
                serde_json::to_string(&twice).unwrap()
            );
        }
    }

    #[test]
    fn merge_replaces_only_this_installs_handlers() {
        let others = [
            "/home/me/acc-hook claude-code SessionStart",
            r#""/opt/acc/acc-hook" --data-home "/other/data" claude-code SessionStart"#,
            "/opt/tools/acc-hook-audit.sh",
            "logger acc-hook ran",
        ];
        let group = |c: &str| json!({"hooks": [{"type": "command", "command": c}]});
        let mut groups: Vec<Value> = others.iter().map(|c| group(c)).collect();
        groups.push(group("/opt/acc/acc-hook claude-code SessionStart"));
        let old = json!({"hooks": {"SessionStart": groups}});
        let merged = merge(&old, &[handler("SessionStart", None)], &ours).unwrap();
        let mut expected: Vec<Value> = others.iter().map(|c| group(c)).collect();
        expected.push(json!({"hooks": [{"type": "command", "command": "\"/opt/acc/acc-hook\" claude-code SessionStart", "timeout": 10}]}));
        assert_eq!(merged["hooks"]["SessionStart"], json!(expected));
        let removed = remove(&merged, &ours).unwrap().unwrap();
        let kept: Vec<Value> = others.iter().map(|c| group(c)).collect();
        assert_eq!(removed, json!({"hooks": {"SessionStart": kept}}));
    }

    #[test]
    fn diagnosis_names_strangers_and_counts_only_this_installs() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let mut doc = document(&acc_handlers());
        doc["hooks"]["SessionStart"]
            .as_array_mut()
            .unwrap()
            .push(json!({"hooks": [{"type": "command", "command": "\"/usr/local/bin/acc-hook\" --data-home \"/other/data\" claude-code SessionStart"}]}));
        std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
        let diags = diagnose_file(&path, &acc_handlers(), &owner());
        let strangers: Vec<&Diagnostic> = diags
            .iter()
            .filter(|d| d.message.contains("belongs to no install recorded"))
            .collect();
        assert_eq!(strangers.len(), 1, "{diags:?}");
        assert_eq!(strangers[0].level, DiagnosticLevel::Warn);
        assert!(strangers[0].message.contains("data home /other/data"));
        assert!(!diags.iter().any(|d| d.message.contains("acc hooks for")));
    }

    #[test]
    fn remove_undoes_merge_and_prunes_only_what_acc_filled() {
        for doc in [user_doc(), json!({}), json!({"a": {"b": [1, 2]}})] {
            let merged = merge(&doc, &acc_handlers(), &ours).unwrap();
            assert_eq!(remove(&merged, &ours).unwrap(), Some(doc.clone()));
            assert_eq!(remove(&doc, &ours).unwrap(), None);
        }
    }

    #[test]
    fn names_and_non_event_settings_are_respected() {
        let gemini = json!({"hooks": {"enabled": true, "disabled": ["x"]}});
        let h = handler("BeforeAgent", None).with_name("acc-BeforeAgent".to_owned());
        let merged = merge(&gemini, std::slice::from_ref(&h), &ours).unwrap();
        assert_eq!(
            merged["hooks"]["BeforeAgent"][0]["hooks"][0],
            json!({"name": "acc-BeforeAgent", "type": "command", "command": h.command, "timeout": 10})
        );
        assert_eq!(merged["hooks"]["enabled"], json!(true));
        assert_eq!(remove(&merged, &ours).unwrap(), Some(gemini));
    }

    #[test]
    fn shapes_acc_cannot_extend_are_refused_by_pointer() {
        let err = merge(&json!({"hooks": []}), &acc_handlers(), &ours).unwrap_err();
        assert_eq!(err.pointer, "/hooks");
        let err = merge(
            &json!({"hooks": {"SessionStart": {}}}),
            &acc_handlers(),
            &ours,
        )
        .unwrap_err();
        assert_eq!(err.pointer, "/hooks/SessionStart");
        let err = err.in_file(Path::new("/h/settings.json"));
        assert_eq!(err.kind, AdapterErrorKind::Conflict);
        assert!(
            err.message
                .starts_with("/h/settings.json: `/hooks/SessionStart`")
        );
    }

    #[test]
    fn an_owned_file_must_hold_only_acc_handlers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acc.json");
        check_owned_file(&path).unwrap();
        std::fs::write(
            &path,
            serde_json::to_string(&document(&acc_handlers())).unwrap(),
        )
        .unwrap();
        check_owned_file(&path).unwrap();
        std::fs::write(&path, serde_json::to_string(&user_doc()).unwrap()).unwrap();
        assert_eq!(
            check_owned_file(&path).unwrap_err().kind,
            AdapterErrorKind::Conflict
        );
        std::fs::write(&path, "{not json").unwrap();
        assert_eq!(
            check_owned_file(&path).unwrap_err().kind,
            AdapterErrorKind::Conflict
        );
    }

    #[test]
    fn find_reports_positions_for_trust_keys() {
        let merged = merge(&user_doc(), &acc_handlers(), &ours).unwrap();
        let found = find(&merged, &ours);
        assert_eq!(found.len(), 2);
        assert_eq!(
            (found[0].event.as_str(), found[0].group, found[0].index),
            ("PreToolUse", 1, 0)
        );
        assert_eq!(found[0].matcher.as_deref(), Some("Write|Edit"));
        assert_eq!(
            (found[1].event.as_str(), found[1].group, found[1].timeout),
            ("SessionStart", 0, Some(10))
        );
    }

    #[test]
    fn diagnosis_names_missing_and_foreign_commands() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        let expected = acc_handlers();
        let diags = diagnose_file(&path, &expected, &owner());
        assert_eq!(diags.len(), 1);
        assert_eq!(diags[0].level, DiagnosticLevel::Error);
        std::fs::write(
            &path,
            serde_json::to_string(&document(&expected[..1])).unwrap(),
        )
        .unwrap();
        let diags = diagnose_file(&path, &expected, &owner());
        assert!(diags.iter().any(|d| d.level == DiagnosticLevel::Error
            && d.message.ends_with("no acc hook for PreToolUse")));
        assert!(
            diags
                .iter()
                .any(|d| d.message.contains("/opt/acc/acc-hook does not exist"))
        );
    }
}
