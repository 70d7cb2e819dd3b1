//! Rendering problems for people and for `--json`.

use std::path::Path;

use acc_sdk::error::Problem;
use serde_json::{Value, json};

/// `DIR/FILE: FIELD: MESSAGE [CODE]`, one problem per line.
pub fn problem_line(dir: &Path, problem: &Problem) -> String {
    let file = dir.join(&problem.file);
    if problem.field.is_empty() {
        format!("{}: {} [{}]", file.display(), problem.message, problem.code)
    } else {
        format!(
            "{}: {}: {} [{}]",
            file.display(),
            problem.field,
            problem.message,
            problem.code
        )
    }
}

pub fn problem_json(problem: &Problem) -> Value {
    json!({"code": problem.code.as_str(), "file": problem.file, "field": problem.field, "message": problem.message})
}

pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}
