//! The behaviour half of an adapter: the trait a client's Rust type implements.
//!
//! Required methods cover detection, installation, normalisation and the client's answer
//! shapes. Optional methods that back a capability are exposed as accessors returning
//! `Option<&dyn ...>`, so "implements the backing method" is a fact the type system
//! carries rather than something an author declares.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use crate::context::{ContextInput, ContextResult};
use crate::event::{NormalizedEvent, Targets};
use crate::install::{Detection, DoctorReport, InstallContext, InstallPlan, InstallReport};
use crate::outcome::HookOutcome;

/// An adapter's own failure, with a stable code the runtime maps to an exit code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdapterError {
    pub kind: AdapterErrorKind,
    pub message: String,
    /// The file the error is about, when there is one.
    pub path: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterErrorKind {
    /// A user file ACC must edit is malformed; nothing was written.
    MalformedUserFile,
    /// ACC's wiring is already present in a form it does not own.
    Conflict,
    /// The adapter refuses (for example `preflight_uninstall`).
    Refused,
    /// Reading or writing a file failed.
    Io,
}

impl AdapterError {
    pub fn new(kind: AdapterErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            path: None,
        }
    }

    pub fn at(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub fn code(&self) -> &'static str {
        match self.kind {
            AdapterErrorKind::MalformedUserFile => "malformed_user_file",
            AdapterErrorKind::Conflict => "install_conflict",
            AdapterErrorKind::Refused => "refused",
            AdapterErrorKind::Io => "io",
        }
    }
}

impl std::fmt::Display for AdapterError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.path {
            Some(p) => write!(f, "{}: {}", p.display(), self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for AdapterError {}

/// One process in the hook's ancestry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProcessEntry {
    pub pid: u32,
    pub ppid: u32,
    /// The short command name (`comm`).
    pub comm: String,
    /// The full argument vector, `args[0]` included; empty when unreadable.
    pub args: Vec<String>,
    /// The executable's absolute path, when the platform names it.
    pub exe: Option<PathBuf>,
}

/// A product recognised from a process entry by `identify_client_process`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientIdentity {
    pub certification_name: String,
    pub version: Option<String>,
}

/// The owner arguments a session's CLI calls must carry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OwnerLine {
    pub session_id: String,
    pub generation: String,
    pub cwd: String,
}

/// Reads a tool call's targets for one guard family (read, write or shell).
pub trait ToolGuard: Send + Sync {
    /// `None` when the tool is not of this family; otherwise its targets.
    fn targets(&self, tool_name: &str, tool_input: &Value) -> Option<Targets>;

    /// Like [`ToolGuard::targets`], read where the call runs (`at`: the payload's cwd,
    /// `$HOME`, the file system), which shell families need to expand globs, `~` and
    /// `$PWD`. Families that need no context keep the default.
    fn targets_at(
        &self,
        tool_name: &str,
        tool_input: &Value,
        at: &crate::shell_targets::ShellContext<'_>,
    ) -> Option<Targets> {
        let _ = at;
        self.targets(tool_name, tool_input)
    }

    /// Like [`ToolGuard::targets_at`], with whether the targets are all the call can write
    /// ([`crate::event::ToolCall::writes_only_targets`]). The default says no: only a family
    /// that reads what the call runs can say more.
    fn reading_at(
        &self,
        tool_name: &str,
        tool_input: &Value,
        at: &crate::shell_targets::ShellContext<'_>,
    ) -> Option<(Targets, bool)> {
        self.targets_at(tool_name, tool_input, at)
            .map(|t| (t, false))
    }
}

/// The behaviour of one client adapter.
pub trait AdapterBehaviour: Send + Sync {
    /// Is the client installed, and which version? Read-only.
    fn detect(&self, ctx: &InstallContext) -> Detection;
    /// What `install` would write, computed with the same path helpers.
    fn plan_install(&self, ctx: &InstallContext) -> Result<InstallPlan, AdapterError>;
    /// Write ACC's wiring. Idempotent; unchanged files are not rewritten.
    fn install(&self, ctx: &InstallContext) -> Result<InstallReport, AdapterError>;
    /// Remove ACC's wiring, leaving every path in `keep` (edited by the user since) alone.
    fn uninstall(
        &self,
        ctx: &InstallContext,
        keep: &[PathBuf],
    ) -> Result<InstallReport, AdapterError>;
    /// Read-only health of this client's wiring.
    fn doctor(&self, ctx: &InstallContext) -> DoctorReport;
    /// Whitelist a client payload into a normalised event; refuse anything unrecognised.
    /// `args` are the hook command's arguments after the adapter id.
    fn normalize_hook(
        &self,
        payload: &Value,
        args: &[String],
    ) -> Result<NormalizedEvent, crate::event::NormalizeError>;
    /// Render peer context within `budget_bytes`, returning the ids of complete groups.
    fn render_context_result(&self, input: &ContextInput, budget_bytes: usize) -> ContextResult;
    /// Whether [`Self::render_context_result`] is the shared projector
    /// ([`crate::projector::project_context_result`]), so that a caller may leave unread
    /// the bodies that projector can never render within the budget
    /// ([`crate::projector::blocks_within`]). An adapter rendering its own way is given
    /// every body.
    fn renders_with_the_projector(&self) -> bool {
        false
    }
    /// Refuse the tool call in `event` with `reason`, in the client's measured shape.
    fn deny_outcome(&self, event: &NormalizedEvent, reason: &str) -> HookOutcome;
    /// Put `text` in front of the model at `event`, in the client's measured shape.
    fn inject_outcome(&self, event: &NormalizedEvent, text: &str) -> HookOutcome;

    /// May refuse an uninstall before anything is touched. Read-only.
    fn preflight_uninstall(&self, _ctx: &InstallContext) -> Result<(), AdapterError> {
        Ok(())
    }
    /// Socket paths a live sender connects to. Never fails.
    fn inbound_sockets(&self, _ctx: &InstallContext) -> Vec<PathBuf> {
        Vec::new()
    }
    /// After an allowed `beforeTool`, the owner line in the client's context envelope, or
    /// `None` for an unsupported tool. Receives no peer bodies and no tool input.
    fn inject_tool_owner_outcome(&self, _owner: &OwnerLine, _tool: &str) -> Option<HookOutcome> {
        None
    }
    /// Where the client's pre-tool hook may replace a shell call's input: the answer that
    /// runs `wrap(command)` instead of the call's own command. `payload` is the raw hook
    /// payload, handed back unread by core. `None` (the default) when the client cannot
    /// rewrite, the call is not a shell call, `wrap` declines, or the rewritten call would
    /// skip a permission prompt the client would have shown its user for the original.
    fn rewrite_shell_outcome(
        &self,
        _event: &NormalizedEvent,
        _payload: &Value,
        _wrap: &mut dyn FnMut(&str) -> Option<String>,
    ) -> Option<HookOutcome> {
        None
    }
    /// Hold a turn open to show `context` (a peer body nobody has shown yet). `payload` is
    /// the raw hook payload, handed back unread by core. `None` lets the turn end.
    fn continue_turn_outcome(&self, _context: &str, _payload: &Value) -> Option<HookOutcome> {
        None
    }
    /// Recognise a product (a variant, say) from one ancestor entry. Must not panic; a
    /// panic counts as "no".
    fn identify_client_process(&self, _entry: &ProcessEntry) -> Option<ClientIdentity> {
        None
    }
    /// Whether `entry`, the process the walk found as the client, is a shared host: a
    /// detached server that runs the hooks and tools of conversations that other processes
    /// show the person, and outlives them. Its life then says nothing of any one session: the
    /// session records it as its host, not as its client, and ends on the client's own end
    /// signal, by age, or when the host itself is gone. Must not panic; a panic counts as "no".
    fn is_shared_host(&self, _entry: &ProcessEntry) -> bool {
        false
    }
    /// The running client's version, read from the client's own records for `pid`.
    fn client_version_of(
        &self,
        _pid: u32,
        _entry: &ProcessEntry,
        _env: &BTreeMap<String, String>,
    ) -> Option<String> {
        None
    }
    /// Backing method of `guards.beforeRead`.
    fn guard_read(&self) -> Option<&dyn ToolGuard> {
        None
    }
    /// Backing method of `guards.beforeWrite`.
    fn guard_write(&self) -> Option<&dyn ToolGuard> {
        None
    }
    /// Backing method of `guards.beforeShell`.
    fn guard_shell(&self) -> Option<&dyn ToolGuard> {
        None
    }
    /// Backing method of `delivery.livePush` (`offer_message`).
    fn live_push(&self) -> Option<&dyn LivePush> {
        None
    }
    /// Backing method of `delivery.replyRoute` (`route_reply`).
    fn reply_route(&self) -> Option<&dyn ReplyRoute> {
        None
    }
    /// The native session methods a `nativeDelivery` contract requires.
    fn native_session(&self) -> Option<&dyn NativeSession> {
        None
    }
}

/// One message offered live to a running session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveOffer {
    pub session_id: String,
    pub generation: String,
    pub message_id: String,
    /// The rendered, fenced peer text (or a wake notice when the contract's offerKind is
    /// `wake`).
    pub text: String,
    /// The endpoint reference the session's handshake published.
    pub endpoint_ref: Option<String>,
}

/// What the client said to an offer. Closed facts: no vendor strings reach core.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OfferAcceptance {
    pub accepted: bool,
    /// The client took a wake but holds it for its user's approval.
    pub pending_approval: bool,
    /// A reason code when refused (`native_endpoint_unavailable`, ...).
    pub reason_code: Option<String>,
}

/// Backs `delivery.livePush`.
pub trait LivePush: Send + Sync {
    fn offer_message(&self, offer: &LiveOffer) -> OfferAcceptance;
}

/// A reply to route back into the asking session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplyRouting {
    pub session_id: String,
    pub generation: String,
    pub message_id: String,
    pub in_reply_to: String,
    pub text: String,
    pub endpoint_ref: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RouteOutcome {
    pub routed: bool,
    /// The route taken when routed (`next_turn`), else why not (`reply_unaddressed`).
    pub reason_code: Option<String>,
}

/// Backs `delivery.replyRoute`.
pub trait ReplyRoute: Send + Sync {
    fn route_reply(&self, reply: &ReplyRouting) -> RouteOutcome;
}

/// The session a native method is about.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NativeSessionFacts {
    /// acc's session id.
    pub session_id: String,
    pub generation: String,
    pub cwd: String,
    pub client_pid: Option<u32>,
    pub client_version: Option<String>,
    pub client_name: Option<String>,
    /// The client's own session id, as its hooks receive it.
    pub client_session_id: String,
    /// The client's own name for the session's permission mode, when a hook reported one.
    pub permission_mode: Option<String>,
    /// The hook's environment, which the client sets for its own children.
    pub env: BTreeMap<String, String>,
    /// The latest lease the runtime grants (a UTC timestamp ending in `Z`); a handshake
    /// returns it or an earlier one.
    pub lease_until: String,
}

/// The methods a `nativeDelivery` contract requires. Each returns the JSON shape that
/// `native::evaluate_native_eligibility` / `native::validate_native_handshake` validate
/// (closed keys), or `None` when the client gave no answer.
pub trait NativeSession: Send + Sync {
    /// A current, read-only feature probe of the installed client.
    fn probe_native_delivery(&self, ctx: &InstallContext) -> Option<Value>;
    /// The per-session handshake.
    fn bind_native_session(&self, session: &NativeSessionFacts) -> Option<Value>;
    /// What an accepted offer puts in front of the model, for a recording made before the
    /// manifest declares the contract (a declared `nativeDelivery.offerKind` wins).
    fn offer_kind(&self) -> crate::native::OfferKind {
        crate::native::OfferKind::Message
    }
    /// Revalidates an expired lease, keeping the exact endpoint and protocol identity.
    fn refresh_native_session(
        &self,
        _session: &NativeSessionFacts,
        _binding: &Value,
    ) -> Option<Value> {
        None
    }
    /// Cleans adapter-owned endpoint state after core retired the session. Bounded; never
    /// fails a hook.
    fn retire_native_session(&self, _session: &NativeSessionFacts) {}
}
