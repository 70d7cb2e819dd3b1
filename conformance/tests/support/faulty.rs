//! A deliberately broken adapter: the shipped Codex adapter with one fault injected, so each
//! check can be shown to fail on exactly the mistake it exists to catch (and to pass when
//! nothing is injected).
#![allow(dead_code)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use acc_sdk::adapter::{
    AdapterBehaviour, AdapterError, LivePush, NativeSession, ReplyRoute, ToolGuard,
};
use acc_sdk::context::{ContextInput, ContextResult};
use acc_sdk::define::{Adapter, define_adapter};
use acc_sdk::event::{EventKind, NormalizeError, NormalizedEvent};
use acc_sdk::hook_command::{HookCommand, runs_acc_hook};
use acc_sdk::install::{DoctorReport, InstallContext, InstallPlan, InstallReport};
use acc_sdk::outcome::HookOutcome;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    None,
    DetectWrites,
    InstallAppends,
    PlanOmitsSkill,
    UninstallLeavesSkill,
    EmptyUninstallWrites,
    UninstallDropsUserEdits,
    DoctorWrites,
    RelativeCommand,
    FailingHook,
    InventsSession,
    LeaksPrompt,
    UnstableSession,
    SilentDeny,
    InjectDropsText,
    InjectNoisyWhenEmpty,
    SoloRenders,
    RawPeerText,
}

pub struct Faulty {
    inner: Adapter,
    fault: Fault,
}

fn codex() -> Adapter {
    acc_runtime::registry::find("codex").expect("codex is shipped")
}

fn codex_json(file: &str) -> Value {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../adapters/codex")
        .join(file);
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// Codex with `fault`, declared with Codex's own files.
pub fn faulty(fault: Fault) -> Adapter {
    define_adapter(
        &codex_json("adapter.json"),
        &codex_json("certification.json"),
        Box::new(Faulty {
            inner: codex(),
            fault,
        }),
    )
    .unwrap()
}

/// Codex's behaviour under another declaration (for declaration faults).
pub fn declared(manifest: &Value, certification: &Value) -> Adapter {
    define_adapter(
        manifest,
        certification,
        Box::new(Faulty {
            inner: codex(),
            fault: Fault::None,
        }),
    )
    .unwrap()
}

fn hooks_file(ctx: &InstallContext) -> PathBuf {
    ctx.home.join(".codex/hooks.json")
}

fn skill_dir(ctx: &InstallContext) -> PathBuf {
    ctx.home.join(".codex/skills/acc")
}

/// Rewrites every acc-hook command in the hooks file with `rewrite`.
fn rewrite_commands(ctx: &InstallContext, rewrite: &dyn Fn(HookCommand) -> String) {
    let path = hooks_file(ctx);
    let mut doc: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    fn walk(value: &mut Value, rewrite: &dyn Fn(HookCommand) -> String) {
        match value {
            Value::String(s) if runs_acc_hook(s) => {
                if let Some(parsed) = HookCommand::parse(s) {
                    *s = rewrite(parsed);
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| walk(v, rewrite)),
            Value::Object(map) => map.values_mut().for_each(|v| walk(v, rewrite)),
            _ => {}
        }
    }
    walk(&mut doc, rewrite);
    std::fs::write(&path, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
}

fn append(path: &Path, line: &str) {
    let mut text = std::fs::read_to_string(path).unwrap_or_default();
    text.push_str(line);
    std::fs::write(path, text).unwrap();
}

impl AdapterBehaviour for Faulty {
    fn detect(&self, ctx: &InstallContext) -> acc_sdk::install::Detection {
        if self.fault == Fault::DetectWrites {
            std::fs::write(ctx.home.join(".codex-detect-cache"), "seen").unwrap();
        }
        self.inner.behaviour().detect(ctx)
    }

    fn plan_install(&self, ctx: &InstallContext) -> Result<InstallPlan, AdapterError> {
        let mut plan = self.inner.behaviour().plan_install(ctx)?;
        if self.fault == Fault::PlanOmitsSkill {
            plan.artifacts.retain(|a| a.path != skill_dir(ctx));
        }
        Ok(plan)
    }

    fn install(&self, ctx: &InstallContext) -> Result<InstallReport, AdapterError> {
        let report = self.inner.behaviour().install(ctx)?;
        match self.fault {
            Fault::InstallAppends => append(&ctx.home.join(".codex/AGENTS.md"), "\nacc was here\n"),
            Fault::RelativeCommand => rewrite_commands(ctx, &|mut c| {
                c.executable = PathBuf::from("acc-hook");
                c.render()
            }),
            Fault::FailingHook => {
                let fake = ctx.acc_data_dir.join("broken-bin/acc-hook");
                std::fs::create_dir_all(fake.parent().unwrap()).unwrap();
                std::fs::write(
                    &fake,
                    "#!/bin/sh\ncat >/dev/null\necho broken >&2\nexit 3\n",
                )
                .unwrap();
                std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
                rewrite_commands(ctx, &|mut c| {
                    c.executable = fake.clone();
                    c.render()
                });
            }
            _ => {}
        }
        Ok(report)
    }

    fn uninstall(
        &self,
        ctx: &InstallContext,
        keep: &[PathBuf],
    ) -> Result<InstallReport, AdapterError> {
        let installed = skill_dir(ctx).exists();
        match self.fault {
            Fault::UninstallLeavesSkill => {
                let mut report = self.inner.behaviour().uninstall(ctx, keep)?;
                std::fs::create_dir_all(skill_dir(ctx)).unwrap();
                std::fs::write(skill_dir(ctx).join("SKILL.md"), "left behind").unwrap();
                report.changes.retain(|c| c.path != skill_dir(ctx));
                Ok(report)
            }
            Fault::EmptyUninstallWrites if !installed => {
                std::fs::write(ctx.home.join(".codex-uninstall.log"), "nothing to do").unwrap();
                self.inner.behaviour().uninstall(ctx, keep)
            }
            Fault::UninstallDropsUserEdits => {
                let report = self.inner.behaviour().uninstall(ctx, keep)?;
                for path in keep {
                    let _ = std::fs::remove_dir_all(path).or_else(|_| std::fs::remove_file(path));
                }
                let _ = std::fs::remove_file(hooks_file(ctx));
                Ok(report)
            }
            _ => self.inner.behaviour().uninstall(ctx, keep),
        }
    }

    fn doctor(&self, ctx: &InstallContext) -> DoctorReport {
        if self.fault == Fault::DoctorWrites {
            std::fs::write(ctx.home.join(".codex-doctor.log"), "checked").unwrap();
        }
        self.inner.behaviour().doctor(ctx)
    }

    fn normalize_hook(
        &self,
        payload: &Value,
        args: &[String],
    ) -> Result<NormalizedEvent, NormalizeError> {
        let result = self.inner.behaviour().normalize_hook(payload, args);
        match (self.fault, result) {
            (Fault::InventsSession, Err(_)) => Ok(NormalizedEvent {
                kind: EventKind::SessionStart,
                session_id: "invented".to_owned(),
                cwd: "/".to_owned(),
                model: None,
                parent_session_id: None,
                tool: None,
                permission_mode: None,
                end_reason: None,
            }),
            (Fault::LeaksPrompt, Ok(mut event)) => {
                event.model = payload
                    .get("prompt")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or(event.model);
                Ok(event)
            }
            (Fault::UnstableSession, Ok(mut event)) => {
                event.session_id = format!("{}:{}", event.session_id, event.kind.as_str());
                Ok(event)
            }
            (_, result) => result,
        }
    }

    fn render_context_result(&self, input: &ContextInput, budget_bytes: usize) -> ContextResult {
        match self.fault {
            Fault::SoloRenders if input.solo => ContextResult {
                text: "ACC: nobody else is here".to_owned(),
                ..ContextResult::default()
            },
            Fault::RawPeerText => {
                let mut result = ContextResult::default();
                for m in &input.messages {
                    result.text.push_str(&format!(
                        "```acc-peer-message\nsubject: {}\n{}\n```\n",
                        m.subject, m.body
                    ));
                    result.offered_message_ids.push(m.message_id.clone());
                }
                // Attention the way a careless renderer writes it: the peer's words inline.
                for a in &input.attention {
                    let quoted: Vec<&str> = a.quotes.iter().map(|q| q.text.as_str()).collect();
                    result.text.push_str(&format!(
                        "- [{}] {} {}: {}\n",
                        a.kind.as_str(),
                        a.source_id,
                        a.summary,
                        quoted.join(", ")
                    ));
                }
                result
            }
            _ => self
                .inner
                .behaviour()
                .render_context_result(input, budget_bytes),
        }
    }

    fn deny_outcome(&self, event: &NormalizedEvent, reason: &str) -> HookOutcome {
        match self.fault {
            Fault::SilentDeny => HookOutcome::silent(),
            _ => self.inner.behaviour().deny_outcome(event, reason),
        }
    }

    fn inject_outcome(&self, event: &NormalizedEvent, text: &str) -> HookOutcome {
        match self.fault {
            Fault::InjectDropsText if !text.is_empty() => {
                HookOutcome::stdout("{\"additionalContext\":\"\"}")
            }
            Fault::InjectNoisyWhenEmpty if text.is_empty() => HookOutcome::stdout("ACC:"),
            _ => self.inner.behaviour().inject_outcome(event, text),
        }
    }

    fn guard_write(&self) -> Option<&dyn ToolGuard> {
        self.inner.behaviour().guard_write()
    }

    fn guard_shell(&self) -> Option<&dyn ToolGuard> {
        self.inner.behaviour().guard_shell()
    }

    fn native_session(&self) -> Option<&dyn NativeSession> {
        self.inner.behaviour().native_session()
    }

    fn reply_route(&self) -> Option<&dyn ReplyRoute> {
        self.inner.behaviour().reply_route()
    }

    fn live_push(&self) -> Option<&dyn LivePush> {
        self.inner.behaviour().live_push()
    }
}
