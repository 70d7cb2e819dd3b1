//! Reading back the hook commands an install wrote, without knowing any client's layout:
//! every JSON string and TOML string value, in every file the install created or edited,
//! whose program is `acc-hook`. Run what install wrote, not what it meant to write.

use std::path::{Path, PathBuf};

use acc_sdk::hook_command::{HookCommand, runs_acc_hook};
use acc_sdk::install_files::parse_toml;
use serde_json::Value;

/// One hook command as written, with the file that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstalledCommand {
    pub file: PathBuf,
    /// The command text exactly as written.
    pub command: String,
    /// The command read back, when it has acc's shape.
    pub parsed: Option<HookCommand>,
}

impl InstalledCommand {
    /// The client event the command names (its last word), when acc's shape.
    pub fn event(&self) -> Option<&str> {
        self.parsed.as_ref().map(|p| p.event.as_str())
    }
}

/// Every regular file at or under `paths`, sorted.
pub fn files_under(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = paths
        .iter()
        .flat_map(|path| {
            walkdir::WalkDir::new(path)
                .sort_by_file_name()
                .into_iter()
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file())
                .map(|e| e.into_path())
        })
        .collect();
    files.sort();
    files.dedup();
    files
}

/// The acc-hook commands in `files` (JSON or TOML documents; other files hold none).
pub fn installed_commands(files: &[PathBuf]) -> Vec<InstalledCommand> {
    let mut out = Vec::new();
    for file in files {
        let Some(doc) = read_document(file) else {
            continue;
        };
        let mut strings = Vec::new();
        collect_strings(&doc, &mut strings);
        for command in strings.into_iter().filter(|s| runs_acc_hook(s)) {
            out.push(InstalledCommand {
                file: file.clone(),
                parsed: HookCommand::parse(&command),
                command,
            });
        }
    }
    out
}

fn read_document(file: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(file).ok()?;
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        return Some(value);
    }
    if file.extension().is_some_and(|e| e == "js" || e == "mjs") {
        return Some(script_constants(&text));
    }
    let is_toml = file.extension().is_some_and(|e| e == "toml");
    is_toml.then(|| parse_toml(&text, file).ok()).flatten()
}

/// A plugin that is code (a client with no hook file, such as OpenCode, loads acc's
/// plugin instead) keeps its commands as data: every `const NAME = <JSON>;` line, read as
/// JSON, so its commands are found and run like a hook file's.
fn script_constants(text: &str) -> Value {
    let values = text
        .lines()
        .filter_map(|line| line.strip_prefix("const ")?.split_once(" = "))
        .filter_map(|(_, rest)| serde_json::from_str(rest.strip_suffix(';')?).ok())
        .collect();
    Value::Array(values)
}

fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plugins_json_constants_are_read_and_its_code_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("acc.js");
        std::fs::write(
            &plugin,
            "// \"/x/acc-hook\" a B in a comment\nconst HOOKS = {\"B\":\"\\\"/opt/acc-hook\\\" opencode B\"};\nconst T = 10;\nrun(\"acc-hook opencode C\");\n",
        )
        .unwrap();
        let found = installed_commands(&[plugin]);
        let commands: Vec<&str> = found.iter().map(|c| c.command.as_str()).collect();
        assert_eq!(commands, ["\"/opt/acc-hook\" opencode B"]);
        assert_eq!(found[0].event(), Some("B"));
    }

    #[test]
    fn finds_commands_in_json_and_toml_whatever_the_layout() {
        let dir = tempfile::tempdir().unwrap();
        let json = dir.path().join("a/hooks.json");
        std::fs::create_dir_all(json.parent().unwrap()).unwrap();
        std::fs::write(
            &json,
            r#"{"hooks":{"SessionStart":[{"hooks":[{"type":"command","command":"\"/opt/acc-hook\" codex SessionStart"}]}]},"other":"/bin/true"}"#,
        )
        .unwrap();
        let toml = dir.path().join("config.toml");
        std::fs::write(
            &toml,
            "[[hooks]]\nevent = \"Stop\"\ncommand = \"acc-hook kimi-code Stop\"\n[[hooks]]\ncommand = \"/usr/bin/audit\"\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("SKILL.md"), "run acc-hook codex X").unwrap();
        let files = files_under(&[dir.path().to_path_buf()]);
        assert_eq!(files.len(), 3);
        let found = installed_commands(&files);
        let commands: Vec<(&str, Option<&str>)> = found
            .iter()
            .map(|c| (c.command.as_str(), c.event()))
            .collect();
        assert_eq!(
            commands,
            [
                ("\"/opt/acc-hook\" codex SessionStart", Some("SessionStart")),
                ("acc-hook kimi-code Stop", Some("Stop")),
            ]
        );
        assert!(found[1].parsed.as_ref().unwrap().executable.is_relative());
    }
}
