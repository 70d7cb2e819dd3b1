//! The gate's results: one per check and adapter (or per check, for repository-wide
//! checks), sorted, with the verdict over all of them. `report.json` is this, rendered with
//! no timestamp or duration, so two runs on the same tree write the same bytes.

use serde_json::{Value, json};

// A result names the failures that imply it ([`super::causes`] draws them), so the cause
// types live with the result, below the rules that find them.

/// The failure that implies another.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cause {
    pub check: String,
    pub adapter: Option<String>,
    pub file: Option<String>,
}

impl Cause {
    pub(super) fn of(result: &GateResult) -> Cause {
        Cause {
            check: result.check.clone(),
            adapter: result.adapter.clone(),
            file: result.file.clone(),
        }
    }

    /// `cert.validate [codex] (adapters/codex/certification.json)`.
    pub fn describe(&self) -> String {
        let adapter = self
            .adapter
            .as_deref()
            .map_or_else(String::new, |a| format!(" [{a}]"));
        let file = self
            .file
            .as_deref()
            .map_or_else(String::new, |f| format!(" ({f})"));
        format!("{}{adapter}{file}", self.check)
    }
}

/// Why a failure is not a root cause of its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Implied {
    pub by: Vec<Cause>,
    pub why: String,
}

impl Implied {
    /// `implied by cert.validate [codex] (adapters/codex/adapter.json): <why>`.
    pub fn describe(&self) -> String {
        let by: Vec<String> = self.by.iter().map(Cause::describe).collect();
        format!("implied by {}: {}", by.join(", "), self.why)
    }
}

/// One result's status after the baseline was applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    Pass,
    Fail,
    NotApplicable,
    /// Failed, and the baseline lists it.
    ExpectedFailure,
    /// The baseline lists it as failing, but it no longer fails.
    StaleBaseline,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::NotApplicable => "not-applicable",
            Status::ExpectedFailure => "expected-failure",
            Status::StaleBaseline => "stale-baseline",
        }
    }

    /// Whether this result fails the gate.
    pub fn fails_gate(self) -> bool {
        matches!(self, Status::Fail | Status::StaleBaseline)
    }
}

/// One check's result for one adapter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateResult {
    pub check: String,
    /// `None` for a check about the repository as a whole (`cert.matrix.drift`).
    pub adapter: Option<String>,
    pub status: Status,
    /// The repository-relative file to look at, when one is responsible.
    pub file: Option<String>,
    /// What failed and how to fix it, or why it does not apply.
    pub message: Option<String>,
    /// Set when another failure implies this one (see [`super::causes`]).
    pub implied: Option<Implied>,
    /// How long the check took, measured. Only `junit.xml` carries it: `report.json` stays
    /// the same bytes for the same tree.
    pub elapsed: std::time::Duration,
}

impl GateResult {
    pub fn new(
        check: &str,
        adapter: Option<&str>,
        status: Status,
        file: Option<String>,
        message: Option<String>,
    ) -> GateResult {
        GateResult {
            check: check.to_owned(),
            adapter: adapter.map(str::to_owned),
            status,
            file,
            message,
            implied: None,
            elapsed: std::time::Duration::ZERO,
        }
    }

    /// A failure of its own, not implied by another.
    pub fn is_root_cause(&self) -> bool {
        self.status == Status::Fail && self.implied.is_none()
    }

    /// A failure another failure implies.
    pub fn is_implied(&self) -> bool {
        self.status == Status::Fail && self.implied.is_some()
    }

    /// `check [adapter]`.
    pub fn label(&self) -> String {
        match &self.adapter {
            Some(a) => format!("{} [{a}]", self.check),
            None => self.check.clone(),
        }
    }

    /// `check` or `check:adapter`, as baselines spell it.
    pub fn key(&self) -> String {
        match &self.adapter {
            Some(a) => format!("{}:{a}", self.check),
            None => self.check.clone(),
        }
    }
}

/// Every result, sorted by check then adapter, and the verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateReport {
    pub adapters: Vec<String>,
    /// The baseline file as given, when one was.
    pub baseline: Option<String>,
    pub results: Vec<GateResult>,
}

/// The report's schema tag.
pub const REPORT_SCHEMA: &str = "acc-certify.gate/1";

impl GateReport {
    pub fn new(
        adapters: Vec<String>,
        baseline: Option<String>,
        mut results: Vec<GateResult>,
    ) -> Self {
        results.sort_by(|a, b| (&a.check, &a.adapter).cmp(&(&b.check, &b.adapter)));
        GateReport {
            adapters,
            baseline,
            results,
        }
    }

    pub fn passed(&self) -> bool {
        !self.results.iter().any(|r| r.status.fails_gate())
    }

    pub fn count(&self, status: Status) -> usize {
        self.results.iter().filter(|r| r.status == status).count()
    }

    pub fn root_causes(&self) -> usize {
        self.results.iter().filter(|r| r.is_root_cause()).count()
    }

    pub fn implied(&self) -> usize {
        self.results.iter().filter(|r| r.is_implied()).count()
    }

    /// The failures `root` implies, as `check [adapter]`.
    pub fn implied_by(&self, root: &GateResult) -> Vec<String> {
        self.results
            .iter()
            .filter(|r| {
                r.is_implied()
                    && r.implied.as_ref().is_some_and(|i| {
                        i.by.iter()
                            .any(|c| c.check == root.check && c.adapter == root.adapter)
                    })
            })
            .map(GateResult::label)
            .collect()
    }

    /// `gate: pass: 140 passed, 8 not applicable (148 results)`; failures are split into
    /// root causes and the failures they imply.
    pub fn summary(&self) -> String {
        let verdict = if self.passed() { "pass" } else { "fail" };
        let parts: Vec<String> = [
            (Status::Fail, "failed"),
            (Status::StaleBaseline, "stale baseline"),
            (Status::ExpectedFailure, "expected failure"),
            (Status::Pass, "passed"),
            (Status::NotApplicable, "not applicable"),
        ]
        .iter()
        .filter_map(|(status, word)| {
            let n = self.count(*status);
            if *status == Status::Fail && self.implied() > 0 {
                return Some(format!(
                    "{n} {word} ({} root {}, {} implied by {})",
                    self.root_causes(),
                    if self.root_causes() == 1 {
                        "cause"
                    } else {
                        "causes"
                    },
                    self.implied(),
                    if self.root_causes() == 1 {
                        "it"
                    } else {
                        "them"
                    },
                ));
            }
            (n > 0 || *status == Status::Pass).then(|| format!("{n} {word}"))
        })
        .collect();
        format!(
            "gate: {verdict}: {} ({} results)",
            parts.join(", "),
            self.results.len()
        )
    }

    pub fn json(&self) -> Value {
        json!({
            "schema": REPORT_SCHEMA,
            "passed": self.passed(),
            "summary": {
                "total": self.results.len(),
                "pass": self.count(Status::Pass),
                "fail": self.count(Status::Fail),
                "rootCauses": self.root_causes(),
                "implied": self.implied(),
                "notApplicable": self.count(Status::NotApplicable),
                "expectedFailure": self.count(Status::ExpectedFailure),
                "staleBaseline": self.count(Status::StaleBaseline),
            },
            "adapters": self.adapters,
            "baseline": self.baseline,
            "results": self.results.iter().map(|r| json!({
                "check": r.check,
                "adapter": r.adapter,
                "status": r.status.as_str(),
                "file": r.file,
                "message": r.message,
                "impliedBy": r.implied.as_ref().filter(|_| r.status == Status::Fail).map(|i| json!({
                    "causes": i.by.iter().map(|c| json!({
                        "check": c.check,
                        "adapter": c.adapter,
                        "file": c.file,
                    })).collect::<Vec<_>>(),
                    "why": i.why,
                })),
            })).collect::<Vec<_>>(),
        })
    }

    /// One line per result that is not a plain pass, for people. A root cause is followed
    /// by the failures it implies; an implied failure says what implies it instead of
    /// repeating the same fault.
    pub fn human(&self) -> String {
        let mut out = String::new();
        // Root causes first: the implied failures follow, each naming its cause.
        let mut implied_lines = String::new();
        for r in &self.results {
            if let (true, Some(implied)) = (r.is_implied(), &r.implied) {
                implied_lines.push_str(&format!(
                    "IMPLIED  {}: {}\n",
                    r.label(),
                    implied.describe()
                ));
                continue;
            }
            let tag = match r.status {
                Status::Pass => continue,
                Status::Fail => "FAIL",
                Status::StaleBaseline => "STALE",
                Status::ExpectedFailure => "EXPECTED",
                Status::NotApplicable => "N/A",
            };
            let adapter = r
                .adapter
                .as_deref()
                .map_or_else(String::new, |a| format!(" [{a}]"));
            out.push_str(&format!(
                "{tag:<8} {}{adapter}: {}\n",
                r.check,
                r.message.as_deref().unwrap_or("")
            ));
            if r.is_root_cause() {
                let implied = self.implied_by(r);
                if !implied.is_empty() {
                    out.push_str(&format!("         implies: {}\n", implied.join(", ")));
                }
            }
        }
        out.push_str(&implied_lines);
        out.push_str(&self.summary());
        out.push('\n');
        out
    }
}
