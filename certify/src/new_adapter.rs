//! `acc-certify new-adapter ID`: a new adapter's folder, `adapters/<id>/`, written from the
//! template an adapter author starts from (`certify/templates/adapter/`, the adapter
//! `example`, which `certify/tests/adapters_doc.rs` compiles, validates, installs and wires
//! so the template cannot rot). It declares nothing: every capability stays false until
//! `acc-certify record` has captured the client. Nothing outside the new folder is touched;
//! the lines to add elsewhere are printed as next steps (docs/ADAPTERS.md).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::Args;
use serde_json::json;

use crate::envelope::Exit;
use crate::output::CommandOutput;
use crate::setup::{SetupError, resolve_root};

/// The id the template is written for; every spelling of it is replaced.
const TEMPLATE_ID: &str = "example";
const TEMPLATE_DISPLAY: &str = "Example CLI";

/// Each file of the template, by its path in the new folder.
pub const TEMPLATE: [(&str, &str); 15] = [
    (
        "Cargo.toml",
        include_str!("../templates/adapter/Cargo.toml"),
    ),
    ("build.rs", include_str!("../templates/adapter/build.rs")),
    (
        "adapter.json",
        include_str!("../templates/adapter/adapter.json"),
    ),
    (
        "certification.json",
        include_str!("../templates/adapter/certification.json"),
    ),
    (
        "fixtures/certification-provenance.json",
        include_str!("../templates/adapter/fixtures/certification-provenance.json"),
    ),
    (
        "COMPATIBILITY.md",
        include_str!("../templates/adapter/COMPATIBILITY.md"),
    ),
    (
        "src/lib.rs",
        include_str!("../templates/adapter/src/lib.rs"),
    ),
    (
        "src/behaviour.rs",
        include_str!("../templates/adapter/src/behaviour.rs"),
    ),
    (
        "src/events.rs",
        include_str!("../templates/adapter/src/events.rs"),
    ),
    (
        "src/normalize.rs",
        include_str!("../templates/adapter/src/normalize.rs"),
    ),
    (
        "src/outcomes.rs",
        include_str!("../templates/adapter/src/outcomes.rs"),
    ),
    (
        "src/tools.rs",
        include_str!("../templates/adapter/src/tools.rs"),
    ),
    (
        "src/install.rs",
        include_str!("../templates/adapter/src/install.rs"),
    ),
    (
        "tests/install.rs",
        include_str!("../templates/adapter/tests/install.rs"),
    ),
    (
        "recorder.toml",
        include_str!("../templates/adapter/recorder.toml"),
    ),
];

#[derive(Debug, Args)]
pub struct NewAdapterArgs {
    /// The adapter id: lowercase letters, digits and single hyphens, starting with a
    /// letter (it is also the client's command until you change `client.command`).
    #[arg(value_name = "ID")]
    pub id: String,
    /// The client's name as people write it (default: the id).
    #[arg(long, value_name = "NAME")]
    pub display_name: Option<String>,
    /// The repository root, where the folder goes (default: the nearest directory at or
    /// above the current one holding adapters/ and Cargo.toml).
    #[arg(long, value_name = "DIR", alias = "repo")]
    pub root: Option<PathBuf>,
    /// Print exactly one JSON envelope.
    #[arg(long)]
    pub json: bool,
}

/// Why an id cannot name an adapter, or `None` when it can.
pub fn id_problem(id: &str) -> Option<&'static str> {
    let ok_chars = id
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if id.is_empty() || id.len() > 40 {
        Some("it must be 1 to 40 characters long")
    } else if !ok_chars {
        Some("it may hold only lowercase letters, digits and hyphens")
    } else if !id.starts_with(|c: char| c.is_ascii_lowercase()) {
        Some("it must start with a letter")
    } else if id.ends_with('-') || id.contains("--") {
        Some("hyphens must sit between letters or digits, one at a time")
    } else {
        None
    }
}

/// The template's text for `id`, named `display`.
pub fn render(text: &str, id: &str, display: &str) -> String {
    let snake = id.replace('-', "_");
    text.replace(TEMPLATE_DISPLAY, display)
        .replace("acc_adapter_example", &format!("acc_adapter_{snake}"))
        .replace("EXAMPLE_", &format!("{}_", snake.to_ascii_uppercase()))
        .replace(TEMPLATE_ID, id)
}

/// The lines an author adds outside the folder, in order.
pub fn next_steps(id: &str) -> Vec<String> {
    let snake = id.replace('-', "_");
    vec![
        format!(
            "Cargo.toml: add \"adapters/{id}\" to [workspace] members and acc-adapter-{id} = {{ path = \"adapters/{id}\" }} to [workspace.dependencies]"
        ),
        format!("runtime/Cargo.toml: add acc-adapter-{id}.workspace = true"),
        format!(
            "runtime/src/registry.rs: add ({snake}::ID, {snake}::adapter) to SHIPPED and {snake}::HOOK_CONTROL_FILES to HOOK_CONTROL_FILES, with acc_adapter_{snake} as the crate"
        ),
        format!("fixtures/homes/{id}/: a home as a real user of the client has it"),
        format!(
            "certify/src/clients/list.rs: add (\"{id}\", include_str!(\"../../../adapters/{id}/recorder.toml\")) once recorder.toml holds the client's driver, then run acc-certify record --client {id}"
        ),
    ]
}

fn write_folder(dir: &Path, id: &str, display: &str) -> Result<Vec<String>, SetupError> {
    let io = |what: &Path, e: std::io::Error| SetupError::Io {
        message: format!("cannot write {}: {e}", what.display()),
    };
    let mut written = Vec::new();
    for (rel, text) in TEMPLATE {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("a file in the folder"))
            .map_err(|e| io(&path, e))?;
        std::fs::write(&path, render(text, id, display)).map_err(|e| io(&path, e))?;
        written.push(format!("adapters/{id}/{rel}"));
    }
    Ok(written)
}

fn run(args: &NewAdapterArgs) -> Result<CommandOutput, SetupError> {
    if let Some(problem) = id_problem(&args.id) {
        return Err(SetupError::BadAdapterId {
            id: args.id.clone(),
            problem,
        });
    }
    let root = resolve_root(args.root.as_deref())?;
    let dir = root.join("adapters").join(&args.id);
    if dir.exists() {
        return Err(SetupError::AdapterExists { dir });
    }
    let display = args.display_name.clone().unwrap_or_else(|| args.id.clone());
    let files = write_folder(&dir, &args.id, &display)?;
    let next = next_steps(&args.id);
    let mut human = format!(
        "wrote adapters/{}/ ({} files), declaring nothing\nnext:\n",
        args.id,
        files.len()
    );
    for (n, step) in next.iter().enumerate() {
        human.push_str(&format!("  {}. {step}\n", n + 1));
    }
    Ok(CommandOutput::new(
        Exit::Ok,
        human,
        json!({"adapter": args.id, "files": files, "next": next}),
        String::new(),
    ))
}

pub fn execute(args: &NewAdapterArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let output = run(args).unwrap_or_else(|e| CommandOutput::could_not_run(&e));
    output.emit(args.json, out, err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_checked() {
        for good in ["copilot", "qwen-code", "a1", "x"] {
            assert_eq!(id_problem(good), None, "{good}");
        }
        for bad in [
            "",
            "Copilot",
            "1x",
            "a--b",
            "a-",
            "a_b",
            "a/b",
            "../x",
            &"a".repeat(41),
        ] {
            assert!(id_problem(bad).is_some(), "{bad}");
        }
    }

    #[test]
    fn every_spelling_of_the_template_id_is_replaced() {
        for (rel, text) in TEMPLATE {
            let out = render(text, "my-cli", "My CLI");
            assert!(!out.contains("example"), "{rel}: {out}");
            assert!(!out.contains("Example"), "{rel}: {out}");
            assert!(!out.contains("EXAMPLE"), "{rel}: {out}");
        }
        let lib = render(TEMPLATE[6].1, "my-cli", "My CLI");
        assert!(lib.contains("pub const ID: &str = \"my-cli\";"));
        let cargo = render(TEMPLATE[0].1, "my-cli", "My CLI");
        assert!(cargo.contains("name = \"acc-adapter-my-cli\""));
        let install = render(TEMPLATE[12].1, "my-cli", "My CLI");
        assert!(install.contains("MY_CLI_HOME"));
    }
}
