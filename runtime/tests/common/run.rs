//! What one `acc` process left behind: its exit code and its output. Shared by the CLI and
//! the installer test support.

use std::process::Output;

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn from(o: Output) -> Run {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8(o.stdout).unwrap(),
            stderr: String::from_utf8(o.stderr).unwrap(),
        }
    }

    pub fn json(&self) -> serde_json::Value {
        assert_eq!(
            self.stdout.lines().count(),
            1,
            "exactly one JSON line: {}",
            self.stdout
        );
        serde_json::from_str(self.stdout.trim()).expect("stdout is one JSON object")
    }

    /// Asserts success and returns stdout.
    pub fn ok(&self) -> &str {
        assert_eq!(
            self.code, 0,
            "stdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        &self.stdout
    }
}
