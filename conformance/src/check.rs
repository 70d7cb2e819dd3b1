//! What a check is and what it answers: a stable id, a one-line description, and for one
//! adapter either a pass, a failure naming the file and the fix, or "not applicable" with
//! the reason.

use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};

use acc_sdk::define::Adapter;

use crate::context::CheckContext;

/// A check's stable id (`conf.install.idempotent`). Ids are part of the contract: reports,
/// baselines and CI annotations name checks by them, so an id is never reused or renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CheckId(&'static str);

impl CheckId {
    pub const fn new(id: &'static str) -> CheckId {
        CheckId(id)
    }

    pub fn as_str(self) -> &'static str {
        self.0
    }
}

impl fmt::Display for CheckId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// Why a check failed: the message says what is wrong and what to fix; `file` is the
/// repository-relative file to look at, when one is responsible.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub file: Option<String>,
    pub message: String,
}

/// A check's answer for one adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail(Finding),
    /// The check does not apply to this adapter, and why (never a hidden failure).
    NotApplicable(String),
}

impl Outcome {
    pub fn fail(file: Option<String>, message: impl Into<String>) -> Outcome {
        Outcome::Fail(Finding {
            file,
            message: message.into(),
        })
    }

    pub fn not_applicable(reason: impl Into<String>) -> Outcome {
        Outcome::NotApplicable(reason.into())
    }

    pub fn is_fail(&self) -> bool {
        matches!(self, Outcome::Fail(_))
    }

    /// The status word reports use.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail(_) => "fail",
            Outcome::NotApplicable(_) => "not-applicable",
        }
    }

    /// The failure message or the not-applicable reason.
    pub fn message(&self) -> Option<&str> {
        match self {
            Outcome::Pass => None,
            Outcome::Fail(f) => Some(&f.message),
            Outcome::NotApplicable(r) => Some(r),
        }
    }
}

/// Collects problems found by one check; one failure naming all of them, or a pass.
#[derive(Debug, Default)]
pub struct Problems {
    file: Option<String>,
    lines: Vec<String>,
}

impl Problems {
    pub fn new(file: Option<String>) -> Problems {
        Problems {
            file,
            lines: Vec::new(),
        }
    }

    pub fn push(&mut self, line: impl Into<String>) {
        self.lines.push(line.into());
    }

    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    pub fn into_outcome(self) -> Outcome {
        if self.lines.is_empty() {
            Outcome::Pass
        } else {
            Outcome::fail(self.file, self.lines.join("; "))
        }
    }
}

type CheckFn = fn(&CheckContext, &Adapter) -> Outcome;

/// One conformance check.
pub struct Check {
    pub id: CheckId,
    /// One line: what an adapter must do to pass.
    pub description: &'static str,
    run: CheckFn,
}

impl fmt::Debug for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Check")
            .field("id", &self.id)
            .field("description", &self.description)
            .finish_non_exhaustive()
    }
}

impl Check {
    pub const fn new(id: &'static str, description: &'static str, run: CheckFn) -> Check {
        Check {
            id: CheckId::new(id),
            description,
            run,
        }
    }

    /// Runs the check. A panic inside the adapter (or the check) is this adapter's failure,
    /// not the end of the run: the other checks still have to report.
    pub fn run(&self, ctx: &CheckContext, adapter: &Adapter) -> CheckResult {
        let outcome = match catch_unwind(AssertUnwindSafe(|| (self.run)(ctx, adapter))) {
            Ok(outcome) => outcome,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_else(|| "a panic without a message".to_owned());
                Outcome::fail(
                    None,
                    format!("the check panicked inside the adapter: {what}"),
                )
            }
        };
        CheckResult {
            check: self.id,
            adapter: adapter.id().to_owned(),
            outcome,
        }
    }
}

/// One check's answer for one adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckResult {
    pub check: CheckId,
    pub adapter: String,
    pub outcome: Outcome,
}
