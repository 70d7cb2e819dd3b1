//! Whether the person's own Claude Code settings judge shell commands themselves.
//!
//! Claude Code matches its `permissions.deny` and `permissions.ask` rules against the command
//! it is about to run. A call acc rewrote to run confined is matched as acc's runner line, not
//! as the person's command, so a rule such as `Bash(rm:*)` would no longer catch it (measured
//! on 2.1.332, see COMPATIBILITY.md "Can a hook rewrite a call?"). Where any settings file the
//! client reads holds such a rule for its shell tool, acc does not rewrite: the call is judged
//! by acc's reader and then by the person's rules, exactly as they wrote them.
//!
//! Read: the user's settings (`$CLAUDE_CONFIG_DIR`, else `~/.claude`: `settings.json`,
//! `settings.local.json`), the project's (`.claude/settings.json` and
//! `.claude/settings.local.json` in the call's directory and each directory above it) and the
//! managed settings (`/etc/claude-code/managed-settings.json`). Not seen: rules given on the
//! command line (`--disallowedTools`); docs/ARCHITECTURE.md's threat model says so.

use serde_json::Value;
use std::path::{Path, PathBuf};

/// The largest settings file read (a real one is a few KiB).
const MAX_SETTINGS_BYTES: u64 = 1 << 20;

/// The lists whose shell rules the person relies on to stop or ask about a command.
const JUDGING_LISTS: [&str; 2] = ["deny", "ask"];

/// Whether any settings file Claude Code reads for a session in `cwd` holds a `deny` or `ask`
/// rule for a shell tool (`Bash` or `Bash(…)`). A file that cannot be read or parsed counts
/// as holding one: acc cannot tell, so it keeps out of the person's way.
pub fn shell_rules_present(cwd: &Path, env: &dyn Fn(&str) -> Option<String>) -> bool {
    settings_files(cwd, env)
        .iter()
        .any(|file| file_judges_shell(file))
}

fn settings_files(cwd: &Path, env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let user = env("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| Path::new(&h).join(".claude")));
    if let Some(dir) = user {
        out.push(dir.join("settings.json"));
        out.push(dir.join("settings.local.json"));
    }
    for dir in cwd.ancestors() {
        out.push(dir.join(".claude/settings.json"));
        out.push(dir.join(".claude/settings.local.json"));
    }
    out.push(PathBuf::from("/etc/claude-code/managed-settings.json"));
    out
}

fn file_judges_shell(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else {
        return false;
    };
    if !meta.is_file() || meta.len() > MAX_SETTINGS_BYTES {
        return true;
    }
    let Some(doc) = std::fs::read(path)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok())
    else {
        return true;
    };
    JUDGING_LISTS.iter().any(|list| {
        doc.pointer(&format!("/permissions/{list}"))
            .and_then(Value::as_array)
            .is_some_and(|rules| rules.iter().filter_map(Value::as_str).any(is_shell_rule))
    })
}

/// `Bash`, `Bash(…)`, with any blank around it.
fn is_shell_rule(rule: &str) -> bool {
    let rule = rule.trim();
    rule == "Bash" || rule.starts_with("Bash(")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn judged(files: &[(&str, &str)]) -> bool {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for (rel, text) in files {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let home = root.join("home").display().to_string();
        let env = move |k: &str| (k == "HOME").then(|| home.clone());
        std::fs::create_dir_all(root.join("ws/sub")).unwrap();
        shell_rules_present(&root.join("ws/sub"), &env)
    }

    #[test]
    fn deny_and_ask_rules_for_the_shell_anywhere_are_found() {
        assert!(!judged(&[]));
        assert!(!judged(&[(
            "home/.claude/settings.json",
            r#"{"permissions": {"allow": ["Bash(npm test)"], "deny": ["Read(./.env)"]}}"#
        )]));
        assert!(judged(&[(
            "home/.claude/settings.json",
            r#"{"permissions": {"deny": ["Bash(rm:*)"]}}"#
        )]));
        assert!(judged(&[(
            "ws/.claude/settings.local.json",
            r#"{"permissions": {"ask": [" Bash "]}}"#
        )]));
        assert!(judged(&[("ws/.claude/settings.json", "{ not json")]));
    }
}
