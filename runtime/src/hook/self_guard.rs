//! acc defends itself: an agent's tool call that would write acc's own files
//! ([`super::own_files`]), name acc's state directory in a shell command, run an `acc`
//! command that changes acc for everyone (`install`, `uninstall`, `prune`, `config init`),
//! run `acc-hook` by hand, or run a program named by a variable with acc's words after it,
//! is refused before anything else is judged, whether or not a peer holds a claim: a
//! store an agent deleted or edited, or hooks it switched off, would open every guard at
//! once and tell nobody.
//!
//! The refusal says what a person can do instead. This is the reader's part of the defence;
//! what the reader cannot see (an interpreter's own writes) is the threat model's business
//! (docs/ARCHITECTURE.md, "Threat model").

use super::call::Call;
use super::own_files::{OwnFiles, OwnKind, OwnTarget};
use super::shell_words::{command_words, payload_texts, program, words};
use acc_sdk::event::{Targets, ToolClass};
use acc_sdk::peer_text::escape_line;
use std::path::Path;

/// `acc` subcommands that change acc for every agent on the machine, and what they do.
const ADMIN: [(&str, &str); 3] = [
    ("install", "wires acc's hooks into the clients"),
    ("uninstall", "takes acc's hooks out of the clients"),
    ("prune", "deletes acc's history"),
];

/// Options of `acc` and `acc-hook` that take a value, skipped while looking for the
/// subcommand.
const VALUED: [&str; 8] = [
    "--cwd",
    "--home",
    "--data-home",
    "--session",
    "--generation",
    "--participant",
    "--adapter",
    "--format",
];

/// Words that, after a program named by a variable, show it may be `acc`.
const ACC_VERBS: [&str; 16] = [
    "attach",
    "detach",
    "release",
    "claim",
    "install",
    "uninstall",
    "prune",
    "config",
    "heartbeat",
    "finish",
    "reply",
    "ack",
    "message",
    "request",
    "--authority",
    "--session",
];

/// Programs that start a command outside the caller's process tree (a new session, a
/// daemon, a scheduler, a service manager), which is how an agent's `acc` command would hide
/// whose it is ([`crate::cli::agent`]).
const REPARENTING: [&str; 11] = [
    "setsid",
    "nohup",
    "disown",
    "script",
    "at",
    "batch",
    "systemd-run",
    "daemonize",
    "start-stop-daemon",
    "tmux",
    "screen",
];

/// The store's file name, refused wherever a shell command names it as a word.
const STORE_NAMES: [&str; 3] = ["acc.db", "acc.db-wal", "acc.db-shm"];

/// The refusal for `call`, when it reaches acc's own files or commands.
pub fn deny_reason(call: &Call) -> Option<String> {
    let tool = call.event.tool.as_ref()?;
    let env = call.settings.env.env();
    let own = own_files(call);
    let cwd = Path::new(&call.event.cwd);
    let hit = match &tool.targets {
        Targets::Paths(paths) => paths.iter().find_map(|raw| own.reached(cwd, raw, env)),
        // What a program acc cannot bound names is judged as the path itself: naming the
        // home directory (`tool ~`) is not taken for writing all of it.
        Targets::Named { paths, named } => paths
            .iter()
            .map(String::as_str)
            .chain(named.iter().map(|n| n.path.trim_end_matches("/**")))
            .find_map(|raw| own.reached(cwd, raw, env)),
        _ => None,
    };
    if let Some(hit) = hit {
        return Some(refusal(&hit));
    }
    if tool.class != ToolClass::Shell {
        return None;
    }
    let spellings = Spellings {
        state: own.state_spellings(),
        data_home: own.data_home_spellings(),
    };
    let unreadable = matches!(tool.targets, Targets::Unreadable { .. });
    payload_texts(call.payload)
        .iter()
        .find_map(|text| judge_text(text, &spellings, &own.state, unreadable))
}

/// acc's own files, as this call's hook sees them.
pub fn own_files(call: &Call) -> OwnFiles {
    let hook_control: Vec<&'static str> = crate::registry::HOOK_CONTROL_FILES
        .iter()
        .flat_map(|files| files.iter().copied())
        .collect();
    let program = std::env::current_exe().ok();
    OwnFiles::new(
        &call.data_home,
        program.as_deref(),
        &hook_control,
        call.settings.env.env(),
    )
}

/// How a shell command could spell acc's state directory, and the data home that holds it.
struct Spellings {
    state: Vec<String>,
    data_home: Vec<String>,
}

/// Whether a word other than the `acc` program itself has a path component `acc`
/// (`acc`, `./acc`, `data/acc/`, `acc/workspaces`).
fn names_acc_entry(text: &str, words: &[String]) -> bool {
    let entries = words
        .iter()
        .filter(|w| w.split('/').any(|c| c == "acc"))
        .count();
    let programs = command_words(text)
        .iter()
        .filter(|w| program(w) == "acc")
        .count();
    entries > programs
}

/// The refusal for one shell text, if it names acc's state or runs an acc command an agent
/// may not.
fn judge_text(text: &str, spelt: &Spellings, state: &Path, unreadable: bool) -> Option<String> {
    if spelt.state.iter().any(|s| names_path(text, s)) {
        return Some(names_state(state));
    }
    let words: Vec<String> = words(text).collect();
    // Where the command's directory or targets cannot be read (`cd ~/.. && rm -rf data/acc`),
    // or it names the data home, an `acc` path it names may be the state directory.
    let near = unreadable || spelt.data_home.iter().any(|s| names_path(text, s));
    if near && names_acc_entry(text, &words) {
        return Some(names_state(state));
    }
    let runs_acc = words.iter().any(|w| program(w) == "acc");
    if let Some(tool) = command_words(text)
        .iter()
        .find(|w| runs_acc && REPARENTING.contains(&program(w)))
    {
        return Some(format!(
            "acc: this command runs `acc` under `{}`, which moves it out of this agent's process tree, where acc tells whose command it is. Run the `acc` command directly",
            escape_line(program(tool))
        ));
    }
    if runs_acc && backgrounds(text) {
        return Some(
            "acc: this command runs `acc` in the background (`&`), which can move it out of this agent's process tree, where acc tells whose command it is. Run the `acc` command in the foreground".to_string(),
        );
    }
    for (i, word) in words.iter().enumerate() {
        let rest = &words[i + 1..];
        if STORE_NAMES.contains(&program(word)) {
            return Some(names_state(state));
        }
        match program(word) {
            "acc" => {
                if let Some(reason) = acc_command(rest) {
                    return Some(reason);
                }
            }
            "acc-hook" => {
                if let Some(sub) = subcommand(rest)
                    && sub != crate::guard_exec::SUBCOMMAND
                {
                    return Some(HOOK_BY_HAND.to_string());
                }
            }
            _ if word.starts_with('$') => {
                if let Some(verb) = rest.first().filter(|w| ACC_VERBS.contains(&w.as_str())) {
                    return Some(format!(
                        "acc: this command runs a program named by a variable ({}) with `{}` after it, so acc cannot tell whether it is acc. Spell the program out",
                        escape_line(word),
                        escape_line(verb)
                    ));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `text` has a lone `&` (a command sent to the background), not `&&`, `&>`, `>&`
/// or `|&`.
fn backgrounds(text: &str) -> bool {
    let b = text.as_bytes();
    (0..b.len()).any(|i| {
        b[i] == b'&'
            && !matches!(b.get(i + 1), Some(b'&' | b'>'))
            && !matches!(
                i.checked_sub(1).map(|j| b[j]),
                Some(b'&' | b'>' | b'|' | b'<')
            )
    })
}

/// The refusal for `acc <rest…>`, when its subcommand is one an agent may not run.
fn acc_command(rest: &[String]) -> Option<String> {
    let sub = subcommand(rest)?;
    let what = if sub == "config" {
        let after = rest.iter().skip_while(|w| w.as_str() != "config").nth(1);
        after
            .filter(|w| w.as_str() == "init")
            .map(|_| "writes acc.workspace.json, which decides which sessions share a workspace")?
    } else {
        ADMIN
            .iter()
            .find(|(name, _)| *name == sub)
            .map(|(_, w)| *w)?
    };
    let shown = if sub == "config" { "config init" } else { sub };
    Some(format!(
        "acc: `acc {shown}` {what}, for every agent on this machine; an agent may not run it. Ask the user to run it from their own terminal (`acc doctor` says what is installed)"
    ))
}

/// The first word of `rest` that is not an option or an option's value.
fn subcommand(rest: &[String]) -> Option<&str> {
    let mut skip = false;
    for w in rest {
        if skip {
            skip = false;
            continue;
        }
        if w.starts_with('-') {
            skip = VALUED.contains(&w.as_str());
            continue;
        }
        return Some(w);
    }
    None
}

/// Whether `text` names `path`: it appears, and the character after it ends a path
/// component (so `/d/acc` is not found in `/d/accounts`).
fn names_path(text: &str, path: &str) -> bool {
    if path.is_empty() {
        return false;
    }
    text.match_indices(path).any(|(at, _)| {
        let after = text[at + path.len()..].chars().next();
        let before = text[..at].chars().next_back();
        let ends = after.is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '.' | '-' | '_')));
        // A relative spelling must start a path component too.
        let starts = path.starts_with('/')
            || before.is_none_or(|c| !(c.is_alphanumeric() || matches!(c, '.' | '-' | '_')));
        ends && starts
    })
}

const HOOK_BY_HAND: &str = "acc: `acc-hook` is run by the clients' hooks, never by an agent: a payload made by hand could act as another session. Use `acc` commands instead (`acc status`, `acc inbox`)";

fn names_state(state: &Path) -> String {
    format!(
        "acc: this command names acc's own state ({}); no agent's tool may read or write it: it holds every session's claims and credentials. Use acc's commands instead (`acc status`, `acc inbox`); a person can check it with `acc doctor` from their own terminal",
        escape_line(&state.display().to_string())
    )
}

fn refusal(hit: &OwnTarget) -> String {
    let path = escape_line(&hit.path.display().to_string());
    match hit.kind {
        OwnKind::State => format!(
            "acc: {path} is acc's own state; no agent's tool may write it: it holds every session's claims. Use acc's commands instead (`acc status`, `acc release`); a person can check it with `acc doctor` from their own terminal"
        ),
        OwnKind::Wiring => format!(
            "acc: {path} is where acc's hooks and skill are installed; an agent may not change it. Ask the user: `acc doctor` shows what is installed, and `acc uninstall`, run from their own terminal, takes it out"
        ),
        OwnKind::Program => format!(
            "acc: {path} is one of acc's installed programs; an agent may not change it. Ask the user to reinstall or remove acc from their own terminal"
        ),
        OwnKind::HookControl => format!(
            "acc: {path} holds a client's hook settings, which can switch acc's guard off; an agent may not change it while acc is installed. Ask the user to edit it, then run `acc doctor`"
        ),
        OwnKind::WorkspaceConfig => format!(
            "acc: {path} decides which sessions share a workspace; only a person writes it (`acc config init` from their own terminal). Ask the user"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(cmd: &str) -> Option<String> {
        let spelt = Spellings {
            state: vec!["/d/acc".to_string(), ".local/share/acc".to_string()],
            data_home: vec!["/d".to_string(), ".local/share".to_string()],
        };
        judge_text(cmd, &spelt, Path::new("/d/acc"), false)
    }

    #[test]
    fn an_acc_entry_under_a_directory_acc_cannot_read_is_refused() {
        let spelt = Spellings {
            state: vec!["/d/acc".to_string()],
            data_home: vec!["/d".to_string()],
        };
        let unreadable = |cmd: &str| judge_text(cmd, &spelt, Path::new("/d/acc"), true);
        assert!(unreadable("cd ~/.. && cd data && rm -rf acc").is_some());
        assert!(unreadable("cd \"$D\" && mv data/acc /tmp").is_some());
        assert!(unreadable("cd \"$D\" && acc status").is_none());
        assert!(unreadable("cd \"$D\" && make").is_none());
    }

    #[test]
    fn acc_state_named_any_way_is_refused() {
        for cmd in [
            "rm -f /d/acc/workspaces/w/acc.db",
            "sqlite3 -readonly /d/acc/workspaces/w/acc.db 'select 1'",
            "cd ~/.local/share/acc && ls",
            "python3 -c \"import os; os.remove('/d/acc/x')\"",
            "cd /d/acc/workspaces/w; sqlite3 acc.db 'delete from claims'",
            "cp x acc.db-wal",
            "rm -rf $HOME/.local/share/acc",
            "tar cf - /d/acc | cat",
            "cd ~/.local/share && rm -rf acc",
            "cd /d; sqlite3 ./acc/workspaces/w/x 'select 1'",
            "(cd $HOME/.local/share/ && mv acc/ /tmp/away)",
        ] {
            assert!(judged(cmd).is_some(), "{cmd}");
        }
    }

    #[test]
    fn admin_commands_and_hooks_by_hand_are_refused_however_spelt() {
        for cmd in [
            "acc uninstall --home $HOME",
            "a''cc uninstall",
            "\\acc install --adapter codex",
            "/usr/local/bin/acc --json prune",
            "acc config init --cwd .",
            "setsid -f script -qc 'acc uninstall'",
            "setsid -f acc detach --session s --generation g",
            "echo 'acc release --claim c' | at now",
            "nohup acc heartbeat &",
            "( acc detach --session s --generation g & )",
            "echo '{}' | acc-hook claude-code SessionEnd",
            "acc-hook --data-home /x codex PreToolUse < p.json",
            "ACC_STORE_URL=postgres://h/db acc-hook shared-listen --data-home /d --workspace w",
            "$A release --claim c",
            "${ACC} detach --session s --generation g",
            "x=$(acc prune --older-than 1d)",
        ] {
            assert!(judged(cmd).is_some(), "{cmd}");
        }
    }

    #[test]
    fn ordinary_commands_and_acc_s_own_verbs_pass() {
        for cmd in [
            "acc status --json",
            "acc status 2>&1 | head && acc inbox &> /dev/null",
            "acc claim --resource 'file:src/**' --enforcement guarded",
            "acc config validate",
            "acc-hook --version",
            "acc-hook guard-exec --ro /w/src -- true",
            "ls /d/accounts",
            "cat docs/acc.dbx",
            "grep -rn installs docs",
            "echo $HOME",
            "cargo test -p acc-runtime",
            "$EDITOR notes.md",
            "git commit -m 'look at acc status'",
            "ls -la ~/.local/share/",
            "cd /d && make",
        ] {
            assert_eq!(judged(cmd), None, "{cmd}");
        }
    }

    #[test]
    fn a_path_is_found_only_on_component_boundaries() {
        assert!(names_path("ls /d/acc", "/d/acc"));
        assert!(names_path("ls '/d/acc/'", "/d/acc"));
        assert!(!names_path("ls /d/acc2", "/d/acc"));
        assert!(names_path("ls ~/.local/share/acc/x", ".local/share/acc"));
        assert!(!names_path("ls x.local/share/acc", ".local/share/acc"));
    }
}
