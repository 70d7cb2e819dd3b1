//! The client-neutral scenario script a model double follows.
//!
//! A double keeps no conversation state: every answer is chosen from the request alone. The
//! number of tool results the request already carries selects the step, so a client that
//! replays its whole history on every request (all three do) walks the script one tool call at
//! a time, and a retried request gets the same answer again.
//!
//! A script's steps are either fixed up front or computed from the request by an
//! [`Agent`] (what the model was shown and what its tools answered): the same request always
//! yields the same steps, so the double stays stateless either way.

use std::fmt;
use std::path::{Path, PathBuf};

use super::agent::Agent;
use super::delegation::Delegation;
/// Named here too, where every double has always found them.
pub use super::step::{RequestView, Step};

/// Why a script was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScriptError {
    /// Clients resolve relative paths against different directories (Codex's patch paths are
    /// relative to its cwd, Claude's Write wants an absolute path), so the script only takes
    /// absolute ones.
    RelativeWritePath { step: usize, path: PathBuf },
}

impl ScriptError {
    /// Stable code, for reports and tests.
    pub fn code(&self) -> &'static str {
        match self {
            ScriptError::RelativeWritePath { .. } => "script.relative-write-path",
        }
    }
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScriptError::RelativeWritePath { step, path } => write!(
                f,
                "{}: step {step} writes {} but WriteFile needs an absolute path",
                self.code(),
                path.display()
            ),
        }
    }
}

impl std::error::Error for ScriptError {}

/// What the double answers for one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Turn<'a> {
    Step {
        index: usize,
        step: Step,
    },
    /// Every step has been answered: the closing text.
    Final(&'a str),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Steps {
    Fixed(Vec<Step>),
    Computed(Agent),
    Delegated(Delegation),
}

/// An ordered list of steps and the text that closes the conversation after the last one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Script {
    steps: Steps,
    final_text: String,
}

pub const DEFAULT_FINAL_TEXT: &str = "Done.";

impl Script {
    pub fn new(steps: Vec<Step>, final_text: impl Into<String>) -> Result<Script, ScriptError> {
        for (index, step) in steps.iter().enumerate() {
            if let Step::WriteFile { path, .. } = step
                && !path.is_absolute()
            {
                return Err(ScriptError::RelativeWritePath {
                    step: index,
                    path: path.clone(),
                });
            }
        }
        Ok(Script {
            steps: Steps::Fixed(steps),
            final_text: final_text.into(),
        })
    }

    /// A script whose steps `agent` computes from each request.
    pub fn agent(agent: Agent, final_text: impl Into<String>) -> Script {
        Script {
            steps: Steps::Computed(agent),
            final_text: final_text.into(),
        }
    }

    /// A script whose parent delegates to a subagent (see [`Delegation`]).
    pub fn delegated(delegation: Delegation, final_text: impl Into<String>) -> Script {
        Script {
            steps: Steps::Delegated(delegation),
            final_text: final_text.into(),
        }
    }

    /// A script with no tool step: every request gets `text`.
    pub fn text_only(text: impl Into<String>) -> Script {
        Script {
            steps: Steps::Fixed(Vec::new()),
            final_text: text.into(),
        }
    }

    /// The common one-step script: write one file, then say `Done.`.
    pub fn write_file(path: &Path, content: &str) -> Result<Script, ScriptError> {
        Script::new(vec![Step::write_file(path, content)], DEFAULT_FINAL_TEXT)
    }

    /// The fixed steps; empty for a computed or delegated script.
    pub fn steps(&self) -> &[Step] {
        match &self.steps {
            Steps::Fixed(steps) => steps,
            Steps::Computed(_) | Steps::Delegated(_) => &[],
        }
    }

    pub fn final_text(&self) -> &str {
        &self.final_text
    }

    /// Whether the steps depend on the request's text (so a protocol must build a
    /// [`RequestView`] with it).
    pub fn is_computed(&self) -> bool {
        matches!(self.steps, Steps::Computed(_) | Steps::Delegated(_))
    }

    /// The answer for a request that already carries `tool_results_seen` tool results, for
    /// a fixed script (a computed one needs [`Script::turn_for`]).
    pub fn turn(&self, tool_results_seen: usize) -> Turn<'_> {
        self.pick(self.steps(), tool_results_seen)
    }

    /// The answer for `request`: its tool-result count selects the step among the fixed
    /// steps, or among the steps the agent computes from it.
    pub fn turn_for(&self, request: &RequestView<'_>) -> Turn<'_> {
        let seen = request.tool_results.len();
        match &self.steps {
            Steps::Fixed(steps) => self.pick(steps, seen),
            Steps::Computed(agent) => self.pick(&agent.steps(request), seen),
            Steps::Delegated(delegation) => self.pick(&delegation.steps(request), seen),
        }
    }

    fn pick(&self, steps: &[Step], seen: usize) -> Turn<'_> {
        match steps.get(seen) {
            Some(step) => Turn::Step {
                index: seen,
                step: step.clone(),
            },
            None => Turn::Final(&self.final_text),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tool_result_count_selects_the_step() {
        let script = Script::new(
            vec![
                Step::write_file("/ws/a", "a\n"),
                Step::shell("echo x > src/y"),
            ],
            "bye",
        )
        .unwrap();
        assert_eq!(
            script.turn(0),
            Turn::Step {
                index: 0,
                step: Step::write_file("/ws/a", "a\n")
            }
        );
        assert_eq!(
            script.turn(1),
            Turn::Step {
                index: 1,
                step: Step::shell("echo x > src/y")
            }
        );
        assert_eq!(script.turn(2), Turn::Final("bye"));
        assert_eq!(script.turn(7), Turn::Final("bye"));
    }

    #[test]
    fn relative_write_paths_are_refused_with_their_step() {
        let err = Script::new(
            vec![Step::text("hi"), Step::write_file("src/x", "")],
            "done",
        )
        .unwrap_err();
        assert_eq!(err.code(), "script.relative-write-path");
        assert_eq!(
            err,
            ScriptError::RelativeWritePath {
                step: 1,
                path: PathBuf::from("src/x")
            }
        );
        assert!(err.to_string().contains("src/x"));
    }

    #[test]
    fn a_text_only_script_always_closes() {
        let script = Script::text_only("just text");
        assert_eq!(script.turn(0), Turn::Final("just text"));
    }
}
