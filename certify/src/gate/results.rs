//! The gate's results: one per check and adapter (or per check, for repository-wide
//! checks), sorted, with the verdict over all of them. `report.json` is this, rendered with
//! no timestamp or duration, so two runs on the same tree write the same bytes.

use serde_json::{Value, json};

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
}

impl GateResult {
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

    /// `gate: pass: 140 passed, 8 not applicable (148 results)`.
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
            })).collect::<Vec<_>>(),
        })
    }

    /// One line per result that is not a plain pass, for people.
    pub fn human(&self) -> String {
        let mut out = String::new();
        for r in &self.results {
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
        }
        out.push_str(&self.summary());
        out.push('\n');
        out
    }
}
