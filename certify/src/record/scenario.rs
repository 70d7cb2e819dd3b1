//! The scenarios `record` drives, what each sets up, and which capabilities it decides.

use std::fmt;
use std::path::Path;
use std::str::FromStr;

use acc_sdk::capabilities::Capability;
use serde::{Deserialize, Serialize};

use crate::doubles::{Script, ScriptError, Step};

/// The participant every scenario's peer session acts as.
pub const PEER: &str = "peer";
/// The participant the client's session is pinned to in `next-turn`.
pub const AGENT: &str = "agent";
/// The resource the peer holds a guarded claim on.
pub const CLAIMED_RESOURCE: &str = "file:src/**";
/// The unclaimed file every guard scenario also writes (the negative control).
pub const FREE_FILE: &str = "free.txt";
/// What the client is asked; the double ignores it and follows its script. It never reaches
/// an adapter fixture.
pub const PROMPT: &str = "Carry out the scripted task in this repository.";
/// The double's closing text.
pub const FINAL_TEXT: &str = "Done.";
/// What the peer sends in `next-turn` (untrusted peer text: never copied into a fixture).
pub const PEER_SUBJECT: &str = "handoff for the next turn";
pub const PEER_BODY: &str = "Please leave src/ alone until I have finished the refactor.";

/// One headless client run in a fresh sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Scenario {
    /// No peer: did sessionStart and sessionEnd reach acc?
    Lifecycle,
    /// A peer's guarded claim on `src/**`; the model writes `src/x`, then `free.txt`.
    GuardWrite,
    /// The same through the shell tool: `echo x > src/y`, then a write to `free.txt`.
    GuardShell,
    /// An opaque shell command (inline `python3`) that writes `free.txt`, then the existing
    /// `src/x`; then a write to `after.txt` (see [`super::opaque`]).
    GuardOpaque,
    /// A peer message queued before the prompt must reach the first model request.
    NextTurn,
    /// Negative control: a solo session with the next-turn candidates gets no peer text (its
    /// identity lines only).
    SoloControl,
    /// Two real clients in one workspace coordinate through acc by themselves (a pair
    /// scenario: see [`super::coordinate`]). Decides no capability of either client.
    Coordinate,
    /// An interactive session, idle, is woken by a peer's message through the client's
    /// native delivery surface, with negative controls (see [`super::live`]). Only for
    /// clients whose adapter has native session methods.
    LiveWake,
    /// A peer's note sent while the turn's tool call runs must reach the model's next
    /// request in the same turn, once (see [`super::safe_point`]).
    SafePoint,
    /// The first model request is held past a minute: does a hook fire on a timer (see
    /// [`super::heartbeat`])?
    Heartbeat,
    /// A headless conversation, then the same conversation resumed by the client's own
    /// resume flag (see [`super::resume`]).
    SessionResume,
    /// A peer is present at start; only the session-start hook may speak, so the peers line
    /// in the first model request is its (see [`super::startup`]).
    StartupInjection,
    /// The person quits the client's own terminal interface (Codex `/quit`); afterwards
    /// `acc status` must no longer show the session live (see [`super::quit`]). Decides no
    /// capability: its outcome is reported beside them. Only for clients the recorder can
    /// drive interactively.
    InteractiveQuit,
    /// Two planted files; the recorder has acc-hook refuse the read of one: is the read
    /// refused before it happens, while the other still reads (see [`super::before_read`])?
    BeforeRead,
    /// A peer's guarded claim; the model asks for a subagent, which writes the claimed file
    /// and an unclaimed one: is the subagent a child session, refused as itself (see
    /// [`super::child_sessions`])?
    ChildSessions,
}

impl Scenario {
    /// In the order a run records them. The control runs before `next-turn`, whose verdicts
    /// depend on it.
    pub const ALL: [Scenario; 15] = [
        Scenario::Lifecycle,
        Scenario::GuardWrite,
        Scenario::GuardShell,
        Scenario::GuardOpaque,
        Scenario::SoloControl,
        Scenario::NextTurn,
        Scenario::Coordinate,
        Scenario::LiveWake,
        Scenario::SafePoint,
        Scenario::Heartbeat,
        Scenario::SessionResume,
        Scenario::StartupInjection,
        Scenario::InteractiveQuit,
        Scenario::BeforeRead,
        Scenario::ChildSessions,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Scenario::Lifecycle => "lifecycle",
            Scenario::GuardWrite => "guard-write",
            Scenario::GuardShell => "guard-shell",
            Scenario::GuardOpaque => "guard-opaque",
            Scenario::NextTurn => "next-turn",
            Scenario::SoloControl => "solo-control",
            Scenario::Coordinate => "coordinate",
            Scenario::LiveWake => "live-wake",
            Scenario::SafePoint => "safe-point",
            Scenario::Heartbeat => "heartbeat",
            Scenario::SessionResume => "session-resume",
            Scenario::StartupInjection => "startup-injection",
            Scenario::InteractiveQuit => "interactive-quit",
            Scenario::BeforeRead => "before-read",
            Scenario::ChildSessions => "child-sessions",
        }
    }

    /// The capabilities this scenario's verdicts are about (none for the control, which
    /// only feeds `next-turn`).
    pub fn capabilities(self) -> &'static [Capability] {
        match self {
            Scenario::Lifecycle => &[Capability::SessionStart, Capability::SessionEnd],
            Scenario::GuardWrite => &[Capability::BeforeWrite],
            Scenario::GuardShell => &[Capability::BeforeShell],
            Scenario::NextTurn => &[Capability::BeforeTurnInjection, Capability::NextTurn],
            Scenario::LiveWake => &[Capability::LivePush],
            Scenario::SafePoint => &[Capability::SafePointInjection],
            Scenario::Heartbeat => &[Capability::Heartbeat],
            Scenario::SessionResume => &[Capability::SessionResume],
            Scenario::StartupInjection => &[Capability::StartupInjection],
            Scenario::BeforeRead => &[Capability::BeforeRead],
            Scenario::ChildSessions => &[Capability::ChildSessions],
            Scenario::SoloControl
            | Scenario::GuardOpaque
            | Scenario::Coordinate
            | Scenario::InteractiveQuit => &[],
        }
    }

    /// Whether the scenario can run against the client of `adapter_id`: `live-wake` needs
    /// an adapter with native session methods (the others keep `delivery.livePush` false,
    /// with the reason in their COMPATIBILITY.md); `interactive-quit` a client whose
    /// terminal interface the recorder knows how to drive.
    pub fn applies_to(self, adapter_id: &str) -> bool {
        match self {
            Scenario::LiveWake => acc_runtime::registry::find(adapter_id)
                .is_some_and(|a| a.behaviour().native_session().is_some()),
            Scenario::InteractiveQuit => adapter_id
                .parse::<crate::clients::Client>()
                .is_ok_and(|client| super::quit::driver(client).is_some()),
            _ => true,
        }
    }

    /// Runs two clients together instead of one client alone.
    pub fn is_pair(self) -> bool {
        self == Scenario::Coordinate
    }

    /// The client must run every tool call without asking its user (for Claude Code,
    /// `bypassPermissions`): acc's hook rewrites a call only where that skips no prompt.
    pub fn unasked(self) -> bool {
        self == Scenario::GuardOpaque
    }

    /// The capabilities named in `ACC_CERTIFY_CANDIDATES` for this run.
    pub fn candidates(self) -> &'static [Capability] {
        match self {
            Scenario::NextTurn | Scenario::SoloControl => {
                &[Capability::NextTurn, Capability::BeforeTurnInjection]
            }
            Scenario::LiveWake => &[
                Capability::NextTurn,
                Capability::BeforeTurnInjection,
                Capability::LivePush,
            ],
            Scenario::SafePoint => &[Capability::SafePointInjection],
            Scenario::StartupInjection => &[Capability::StartupInjection],
            Scenario::ChildSessions => &[Capability::ChildSessions],
            _ => &[],
        }
    }

    /// The injections named in `ACC_CERTIFY_WITHHELD` for this run: each delivery scenario
    /// keeps the other hook that could carry acc's text silent, so what the model was shown
    /// is attributable to the hook the verdict is about, whatever the evidence grants.
    pub fn withheld(self) -> &'static [Capability] {
        match self {
            Scenario::NextTurn | Scenario::SoloControl => &[Capability::StartupInjection],
            Scenario::StartupInjection => &[Capability::BeforeTurnInjection],
            _ => &[],
        }
    }

    /// A peer session exists in the store before the client starts.
    pub fn has_peer(self) -> bool {
        matches!(
            self,
            Scenario::GuardWrite
                | Scenario::GuardShell
                | Scenario::GuardOpaque
                | Scenario::NextTurn
                | Scenario::SafePoint
                | Scenario::StartupInjection
                | Scenario::ChildSessions
        )
    }

    /// The workspace-relative file the peer's claim covers and the model tries to create.
    pub fn claimed_target(self) -> Option<&'static str> {
        match self {
            Scenario::GuardWrite => Some("src/x"),
            Scenario::GuardShell => Some("src/y"),
            Scenario::GuardOpaque => Some(super::opaque::SEEDED),
            Scenario::ChildSessions => Some(super::child_sessions::CLAIMED),
            _ => None,
        }
    }

    /// The participant `ACC_PARTICIPANT` pins the client's session to.
    pub fn pinned_participant(self) -> Option<&'static str> {
        matches!(
            self,
            Scenario::NextTurn | Scenario::LiveWake | Scenario::SafePoint
        )
        .then_some(AGENT)
    }

    /// The reason acc's guard gives for the claimed target.
    pub fn deny_reason(self) -> Option<String> {
        if self == Scenario::GuardOpaque {
            return Some(super::opaque::REFUSAL.to_owned());
        }
        if self == Scenario::BeforeRead {
            return Some(super::before_read::REFUSAL.to_owned());
        }
        self.claimed_target()
            .map(|target| format!("file:{target} is claimed by {PEER}"))
    }

    /// The double's script: guard scenarios make two tool calls (the claimed target, then
    /// the unclaimed control); the others only answer with text.
    pub fn script(self, workspace: &Path) -> Result<Script, ScriptError> {
        let steps = match self {
            Scenario::GuardWrite => vec![
                Step::write_file(workspace.join("src/x"), "written by the model double\n"),
                Step::write_file(workspace.join(FREE_FILE), "unclaimed\n"),
            ],
            Scenario::GuardShell => vec![
                Step::shell("echo x > src/y"),
                Step::shell(format!("echo ok > {FREE_FILE}")),
            ],
            Scenario::GuardOpaque => super::opaque::steps(),
            Scenario::SafePoint => super::safe_point::steps(),
            Scenario::BeforeRead => super::before_read::steps(workspace),
            _ => Vec::new(),
        };
        if self == Scenario::ChildSessions {
            return Ok(super::child_sessions::script(workspace));
        }
        if self == Scenario::SessionResume {
            return Script::new(steps, super::resume::ANSWER);
        }
        Script::new(steps, FINAL_TEXT)
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scenario {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Scenario::ALL
            .into_iter()
            .find(|scenario| scenario.name() == text)
            .ok_or_else(|| {
                let names: Vec<&str> = Scenario::ALL.iter().map(|s| s.name()).collect();
                format!("unknown scenario {text:?}; use one of {}", names.join(", "))
            })
    }
}

/// The scenarios a run records: the ones asked for (all when none), in run order, plus the
/// solo control whenever `next-turn` runs, whose verdicts embed it. Only then: a control
/// recorded alone would replace the one the committed `next-turn` fixture pins by digest.
pub fn plan(asked: &[Scenario]) -> Vec<Scenario> {
    let control = asked.contains(&Scenario::NextTurn);
    Scenario::ALL
        .into_iter()
        .filter(|s| {
            asked.is_empty() || asked.contains(s) || (*s == Scenario::SoloControl && control)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_list_the_choices() {
        for scenario in Scenario::ALL {
            assert_eq!(scenario.name().parse::<Scenario>(), Ok(scenario));
            let json = serde_json::to_value(scenario).unwrap();
            assert_eq!(json, scenario.name());
        }
        let err = "deny".parse::<Scenario>().unwrap_err();
        assert!(err.contains("guard-write"), "{err}");
    }

    #[test]
    fn next_turn_brings_its_control_and_nothing_else_does() {
        assert_eq!(plan(&[]), Scenario::ALL.to_vec());
        assert_eq!(
            plan(&[Scenario::NextTurn]),
            [Scenario::SoloControl, Scenario::NextTurn]
        );
        assert_eq!(plan(&[Scenario::Coordinate]), [Scenario::Coordinate]);
        assert_eq!(
            plan(&[Scenario::GuardShell, Scenario::Lifecycle]),
            [Scenario::Lifecycle, Scenario::GuardShell]
        );
    }

    #[test]
    fn guard_scripts_hit_the_claim_first_and_the_free_file_second() {
        let ws = Path::new("/ws");
        let write = Scenario::GuardWrite.script(ws).unwrap();
        assert_eq!(
            write.steps(),
            [
                Step::write_file("/ws/src/x", "written by the model double\n"),
                Step::write_file("/ws/free.txt", "unclaimed\n")
            ]
        );
        let shell = Scenario::GuardShell.script(ws).unwrap();
        assert_eq!(
            shell.steps(),
            [
                Step::shell("echo x > src/y"),
                Step::shell("echo ok > free.txt")
            ]
        );
        assert!(Scenario::NextTurn.script(ws).unwrap().steps().is_empty());
        assert_eq!(
            Scenario::GuardShell.deny_reason().as_deref(),
            Some("file:src/y is claimed by peer")
        );
        assert_eq!(Scenario::Lifecycle.deny_reason(), None);
    }

    #[test]
    fn only_the_delivery_scenarios_name_candidates() {
        assert!(Scenario::GuardWrite.candidates().is_empty());
        assert_eq!(
            Scenario::SoloControl.candidates(),
            Scenario::NextTurn.candidates()
        );
        assert!(Scenario::SoloControl.capabilities().is_empty());
        assert!(!Scenario::SoloControl.has_peer());
        assert_eq!(Scenario::NextTurn.pinned_participant(), Some(AGENT));
    }
}
