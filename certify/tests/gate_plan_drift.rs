//! A plan that differs from install fails the gate, naming the file and the check. No
//! shipped adapter drifts, so the gate is run through its library over a deliberately
//! broken one: the shipped Codex adapter whose plan leaves out the skill install writes.

#[path = "gate_support/mod.rs"]
mod support;

use std::path::{Path, PathBuf};

use acc_certify::gate::results::Status;
use acc_certify::gate::{GateOptions, run_gate};
use acc_sdk::adapter::{
    AdapterBehaviour, AdapterError, LivePush, NativeSession, ReplyRoute, ToolGuard,
};
use acc_sdk::context::{ContextInput, ContextResult};
use acc_sdk::define::{Adapter, define_adapter};
use acc_sdk::event::{NormalizeError, NormalizedEvent};
use acc_sdk::install::{Detection, DoctorReport, InstallContext, InstallPlan, InstallReport};
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

/// Codex, except that its plan forgets `skills/acc`.
struct ForgetfulPlan(Adapter);

impl AdapterBehaviour for ForgetfulPlan {
    fn detect(&self, ctx: &InstallContext) -> Detection {
        self.0.behaviour().detect(ctx)
    }
    fn plan_install(&self, ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
        let mut plan = self.0.behaviour().plan_install(ctx)?;
        plan.artifacts
            .retain(|a| !a.path.ends_with(Path::new("skills/acc")));
        Ok(plan)
    }
    fn install(&self, ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
        self.0.behaviour().install(ctx)
    }
    fn uninstall(
        &self,
        ctx: &InstallContext,
        keep: &[PathBuf],
    ) -> Result<InstallReport, AdapterError> {
        self.0.behaviour().uninstall(ctx, keep)
    }
    fn doctor(&self, ctx: &InstallContext) -> DoctorReport {
        self.0.behaviour().doctor(ctx)
    }
    fn normalize_hook(
        &self,
        payload: &Value,
        args: &[String],
    ) -> Result<NormalizedEvent, NormalizeError> {
        self.0.behaviour().normalize_hook(payload, args)
    }
    fn render_context_result(&self, input: &ContextInput, budget: usize) -> ContextResult {
        self.0.behaviour().render_context_result(input, budget)
    }
    fn deny_outcome(&self, event: &NormalizedEvent, reason: &str) -> HookOutcome {
        self.0.behaviour().deny_outcome(event, reason)
    }
    fn inject_outcome(&self, event: &NormalizedEvent, text: &str) -> HookOutcome {
        self.0.behaviour().inject_outcome(event, text)
    }
    fn guard_write(&self) -> Option<&dyn ToolGuard> {
        self.0.behaviour().guard_write()
    }
    fn guard_shell(&self) -> Option<&dyn ToolGuard> {
        self.0.behaviour().guard_shell()
    }
    fn reply_route(&self) -> Option<&dyn ReplyRoute> {
        self.0.behaviour().reply_route()
    }
    fn native_session(&self) -> Option<&dyn NativeSession> {
        self.0.behaviour().native_session()
    }
    fn live_push(&self) -> Option<&dyn LivePush> {
        self.0.behaviour().live_push()
    }
    fn continue_turn_outcome(&self, context: &str, payload: &Value) -> Option<HookOutcome> {
        self.0.behaviour().continue_turn_outcome(context, payload)
    }
}

fn codex_file(name: &str) -> Value {
    let path = support::repo().join("adapters/codex").join(name);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn a_plan_that_differs_from_install_fails_naming_the_file_and_the_check() {
    let drifting = define_adapter(
        &codex_file("adapter.json"),
        &codex_file("certification.json"),
        Box::new(ForgetfulPlan(acc_runtime::registry::find("codex").unwrap())),
    )
    .unwrap();
    let options = GateOptions {
        root: support::repo(),
        hook_executable: support::hook_bin(),
        baseline: None,
    };
    let mut progress = Vec::new();
    let report = run_gate(&options, std::slice::from_ref(&drifting), &mut progress).unwrap();
    assert!(!report.passed());
    let find = |check: &str| {
        report
            .results
            .iter()
            .find(|r| r.check == check && r.adapter.as_deref() == Some("codex"))
            .unwrap()
    };
    for check in ["cert.diff-install", "conf.install.plan-matches"] {
        let r = find(check);
        assert_eq!(r.status, Status::Fail, "{check}: {r:?}");
        let message = r.message.as_deref().unwrap();
        assert!(
            message
                .contains("<home>/.codex/skills/acc was created by install but is not in the plan"),
            "{check}: {message}"
        );
        assert_eq!(r.file.as_deref(), Some("adapters/codex/src/install.rs"));
    }
    // Everything else about the adapter is the shipped Codex, and still passes.
    assert_eq!(find("cert.wire").status, Status::Pass);
    assert_eq!(find("cert.validate").status, Status::Pass);
    let human = report.human();
    assert!(
        human.contains("FAIL     cert.diff-install [codex]: plan and install differ in fixtures/homes/codex: <home>/.codex/skills/acc was created by install but is not in the plan"),
        "{human}"
    );
    // The conformance check running the same comparison is implied, not a second cause.
    let plan = find("conf.install.plan-matches");
    let implied = plan
        .implied
        .as_ref()
        .expect("conf.install.plan-matches is implied");
    assert_eq!(
        implied.describe(),
        format!(
            "implied by cert.diff-install [codex] ({}): conf.install.plan-matches runs the same comparison of plan and install",
            find("cert.diff-install").file.as_deref().unwrap()
        )
    );
    assert!(find("cert.diff-install").implied.is_none());
    // What install wrote outside its plan is not on the install record either, so uninstall
    // leaves it behind: the same drift, seen by a third check.
    let mut failing: Vec<&str> = report
        .results
        .iter()
        .filter(|r| r.status == Status::Fail)
        .map(|r| r.check.as_str())
        .collect();
    failing.sort();
    assert_eq!(
        failing,
        [
            "cert.diff-install",
            "conf.install.plan-matches",
            "conf.uninstall.restores"
        ]
    );
    let progress = String::from_utf8(progress).unwrap();
    assert!(
        progress.contains("gate: codex: 25 results, 3 failed"),
        "{progress}"
    );
}
