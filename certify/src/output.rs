//! How the judging commands print: human text on stdout (or, when the command could not
//! run, one `acc-certify: ...` line on stderr), or exactly one JSON envelope with `--json`.

use std::io::Write;

use serde_json::{Value, json};

use crate::envelope::{self, Exit};
use crate::setup::SetupError;

/// What a command produced.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandOutput {
    pub exit: Exit,
    /// The human text (stdout), or the reason it could not run (stderr).
    pub human: String,
    /// The envelope's `data` on success, its `error.details` otherwise.
    pub data: Value,
    /// The envelope's `error.message` when the exit is not 0.
    pub message: String,
}

impl CommandOutput {
    pub fn new(exit: Exit, human: String, data: Value, message: String) -> CommandOutput {
        CommandOutput {
            exit,
            human,
            data,
            message,
        }
    }

    pub fn could_not_run(error: &SetupError) -> CommandOutput {
        CommandOutput {
            exit: Exit::CouldNotRun,
            human: format!("{error} [{}]", error.code()),
            data: json!({"code": error.code()}),
            message: error.to_string(),
        }
    }

    /// Writes the output and returns the exit code.
    pub fn emit(&self, json: bool, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
        if json {
            let envelope = match self.exit {
                Exit::Ok => envelope::success(self.data.clone()),
                exit => envelope::failure(exit, &self.message, self.data.clone()),
            };
            let _ = writeln!(out, "{envelope}");
        } else if self.exit == Exit::CouldNotRun {
            let _ = writeln!(err, "acc-certify: {}", self.human.trim_end());
        } else {
            let _ = write!(out, "{}", self.human);
        }
        self.exit.code()
    }
}
