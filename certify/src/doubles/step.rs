//! One model turn a double plays, and what a computed script may read of the request: the
//! vocabulary below the script and the agents that compute its steps, so that neither
//! reaches back into the other.

use std::path::PathBuf;

use super::analysis::ToolResult;

/// One model turn the double plays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Ask the client's file-writing tool to create `path` with `content`.
    WriteFile { path: PathBuf, content: String },
    /// Ask the client's shell tool to run `command` (in the workspace, the client's cwd).
    Shell { command: String },
    /// Answer with text only. This ends the client's turn: a later step is reached only by a
    /// request that carries more tool results than this step's index.
    Text(String),
    /// Ask the client's file-reading tool to read `path` (absolute, like `WriteFile`'s).
    ReadFile { path: PathBuf },
    /// Ask the client's subagent tool to run `task` as a subagent and wait for its answer.
    Subagent { task: String },
    /// Call the tool `name` with exactly `arguments`, where the client offers it: a tool
    /// that dispatches another (Qwen Code's `tool_call`) is scripted as the client spells it.
    Call {
        name: String,
        arguments: serde_json::Value,
    },
}

impl Step {
    pub fn write_file(path: impl Into<PathBuf>, content: impl Into<String>) -> Step {
        Step::WriteFile {
            path: path.into(),
            content: content.into(),
        }
    }

    pub fn shell(command: impl Into<String>) -> Step {
        Step::Shell {
            command: command.into(),
        }
    }

    pub fn read_file(path: impl Into<PathBuf>) -> Step {
        Step::ReadFile { path: path.into() }
    }

    pub fn text(text: impl Into<String>) -> Step {
        Step::Text(text.into())
    }

    pub fn subagent(task: impl Into<String>) -> Step {
        Step::Subagent { task: task.into() }
    }

    pub fn call(name: impl Into<String>, arguments: serde_json::Value) -> Step {
        Step::Call {
            name: name.into(),
            arguments,
        }
    }
}

/// What a computed script may read of one request.
#[derive(Debug, Clone, Copy)]
pub struct RequestView<'a> {
    /// The tool results the request carries, in order.
    pub tool_results: &'a [ToolResult],
    /// Every text the model is shown (see `Protocol::model_visible_text`).
    pub visible_text: &'a str,
}
