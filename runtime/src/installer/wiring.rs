//! acc's wiring as the client sees it: the hook commands found in the client's own files,
//! and the data home each of them opens.
//!
//! The install record lives in the data home, so a doctor run with another data home (a
//! shell without the `ACC_DATA_HOME` that install pinned) finds no record while the
//! client's hooks are wired. Reading the client's files tells the truth either way: which
//! file holds acc's hooks, and where they keep their data.

use std::path::{Path, PathBuf};

use acc_sdk::define::Adapter;
use acc_sdk::hook_command::HookCommand;
use acc_sdk::install::InstallContext;
use acc_sdk::install_files::parse_toml;
use serde::Serialize;
use serde_json::Value;

/// acc's hooks for one adapter in one client file, by the data home they pin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Wiring {
    pub file: PathBuf,
    pub hooks: usize,
    /// The data home the commands pin; `None` when they pin none (the hook's own
    /// environment decides, like every acc command).
    pub data_home: Option<PathBuf>,
}

/// The data home a run uses, and why: what install pins into every hook command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DataHomeChoice {
    pub path: PathBuf,
    /// True when it is written into every hook command.
    pub pinned: bool,
    pub why: String,
}

impl DataHomeChoice {
    pub fn of(ctx: &InstallContext) -> DataHomeChoice {
        let path = ctx
            .acc_data_dir
            .parent()
            .unwrap_or(&ctx.acc_data_dir)
            .to_path_buf();
        match &ctx.pinned_data_home {
            Some(_) => DataHomeChoice {
                path,
                pinned: true,
                why: "ACC_DATA_HOME is set, so every hook command carries it; a later acc run must set the same ACC_DATA_HOME to see this install".to_owned(),
            },
            None => DataHomeChoice {
                path,
                pinned: false,
                why: "the default for this home (ACC_DATA_HOME is not set); the hooks find it the same way".to_owned(),
            },
        }
    }
}

/// acc's hooks for `adapter` in the files its install writes, grouped by file and data
/// home. Files that cannot be read or parsed hold nothing here (doctor's adapter checks
/// name those).
pub fn find(ctx: &InstallContext, adapter: &Adapter) -> Vec<Wiring> {
    let Ok(plan) = adapter.behaviour().plan_install(ctx) else {
        return Vec::new();
    };
    let mut out: Vec<Wiring> = Vec::new();
    for artifact in &plan.artifacts {
        let Some(document) = read_document(&artifact.path) else {
            continue;
        };
        let mut strings = Vec::new();
        collect_strings(&document, &mut strings);
        for command in strings.iter().filter_map(|s| HookCommand::parse(s)) {
            if command.adapter_id != adapter.id() {
                continue;
            }
            match out
                .iter_mut()
                .find(|w| w.file == artifact.path && w.data_home == command.data_home)
            {
                Some(wiring) => wiring.hooks += 1,
                None => out.push(Wiring {
                    file: artifact.path.clone(),
                    hooks: 1,
                    data_home: command.data_home,
                }),
            }
        }
    }
    out
}

fn read_document(path: &Path) -> Option<Value> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    if path.extension().is_some_and(|e| e == "toml") {
        return parse_toml(&text, path).ok();
    }
    serde_json::from_str(&text).ok()
}

fn collect_strings(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::String(s) => out.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| collect_strings(v, out)),
        Value::Object(map) => map.values().for_each(|v| collect_strings(v, out)),
        _ => {}
    }
}
