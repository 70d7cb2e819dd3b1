//! Every adapter records what was seen, and what could not be, in `COMPATIBILITY.md`: the
//! next person's alternative is guessing.

use acc_sdk::define::Adapter;

use crate::check::{Outcome, Problems};
use crate::context::CheckContext;

pub const COMPATIBILITY_FILE: &str = "COMPATIBILITY.md";

/// Each required section: what it is called in messages, and the words one of the
/// document's headings must contain (all of them, case-insensitively).
pub const REQUIRED_SECTIONS: [(&str, &[&str]); 6] = [
    ("client version", &["version"]),
    ("event names", &["event"]),
    ("payload fields", &["payload"]),
    ("deny/inject matrix", &["deny", "inject"]),
    ("what was not observed", &["not observed"]),
    ("install layout", &["install"]),
];

pub fn compatibility(ctx: &CheckContext, adapter: &Adapter) -> Outcome {
    let id = adapter.id();
    let rel = ctx.adapter_file(id, COMPATIBILITY_FILE);
    let Ok(text) = std::fs::read_to_string(ctx.adapter_dir(id).join(COMPATIBILITY_FILE)) else {
        return Outcome::fail(
            Some(rel.clone()),
            format!(
                "{rel} is missing: write the client version, event names, payload fields, the deny/inject matrix, what was not observed, and the install layout"
            ),
        );
    };
    let headings: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .map(str::to_ascii_lowercase)
        .collect();
    let mut problems = Problems::new(Some(rel.clone()));
    for (section, words) in REQUIRED_SECTIONS {
        let present = headings.iter().any(|h| words.iter().all(|w| h.contains(w)));
        if !present {
            problems.push(format!(
                "{rel} has no section for {section} (a heading containing {})",
                words
                    .iter()
                    .map(|w| format!("\"{w}\""))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ));
        }
    }
    problems.into_outcome()
}
