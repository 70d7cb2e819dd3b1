//! The scenarios `record` drives, by name, and the texts they share. What each sets up,
//! runs and decides is its implementation's (`scenarios::recipe`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

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

/// Every scenario, one line each, in the order a run records them (the control runs before
/// `next-turn`, whose verdicts depend on it): its variant, its name, and the type in its
/// folder under `scenarios/` that implements it. The enum below and the registry
/// (`scenarios::recipe`) are both written from this list, so adding a scenario is its folder
/// and one line here.
macro_rules! each_scenario {
    ($then:ident) => {
        $then! {
            /// No peer: did sessionStart and sessionEnd reach acc?
            Lifecycle = "lifecycle" => lifecycle::Lifecycle,
            /// A peer's guarded claim on `src/**`; the model writes `src/x`, then `free.txt`.
            GuardWrite = "guard-write" => guard_write::GuardWrite,
            /// The same through the shell tool: `echo x > src/y`, then a write to `free.txt`.
            GuardShell = "guard-shell" => guard_shell::GuardShell,
            /// An opaque shell command (inline `python3`) that writes `free.txt`, then the existing
            /// `src/x`; then a write to `after.txt` (see
            /// [`crate::record::scenarios::guard_opaque`]).
            GuardOpaque = "guard-opaque" => guard_opaque::GuardOpaque,
            /// Negative control: a solo session with the next-turn candidates gets no peer text
            /// (its identity lines only).
            SoloControl = "solo-control" => solo_control::SoloControl,
            /// A peer message queued before the prompt must reach the first model request.
            NextTurn = "next-turn" => next_turn::NextTurn,
            /// Two real clients in one workspace coordinate through acc by themselves (a pair
            /// scenario: see [`crate::record::scenarios::coordinate`]). Decides no capability of
            /// either client.
            Coordinate = "coordinate" => coordinate::Coordinate,
            /// An interactive session, idle, is woken by a peer's message through the client's
            /// native delivery surface, with negative controls (see
            /// [`crate::record::scenarios::live_wake`]). Only for clients whose adapter has native
            /// session methods.
            LiveWake = "live-wake" => live_wake::LiveWake,
            /// A peer's note sent while the turn's tool call runs must reach the model's next
            /// request in the same turn, once (see [`crate::record::scenarios::safe_point`]).
            SafePoint = "safe-point" => safe_point::SafePoint,
            /// The first model request is held past a minute: does a hook fire on a timer (see
            /// [`crate::record::scenarios::heartbeat`])?
            Heartbeat = "heartbeat" => heartbeat::Heartbeat,
            /// A headless conversation, then the same conversation resumed by the client's own
            /// resume flag (see [`crate::record::scenarios::session_resume`]).
            SessionResume = "session-resume" => session_resume::SessionResume,
            /// A peer is present at start; only the session-start hook may speak, so the peers line
            /// in the first model request is its (see
            /// [`crate::record::scenarios::startup_injection`]).
            StartupInjection = "startup-injection" => startup_injection::StartupInjection,
            /// The person quits the client's own terminal interface (Codex `/quit`); afterwards
            /// `acc status` must no longer show the session live (see
            /// [`crate::record::scenarios::interactive_quit`]). Decides no capability: its outcome
            /// is reported beside them. Only for clients the recorder can drive interactively.
            InteractiveQuit = "interactive-quit" => interactive_quit::InteractiveQuit,
            /// Two planted files; the recorder has acc-hook refuse the read of one: is the read
            /// refused before it happens, while the other still reads (see
            /// [`crate::record::scenarios::before_read`])?
            BeforeRead = "before-read" => before_read::BeforeRead,
            /// A peer's guarded claim; the model asks for a subagent, which writes the claimed file
            /// and an unclaimed one: is the subagent a child session, refused as itself (see
            /// [`crate::record::scenarios::child_sessions`])?
            ChildSessions = "child-sessions" => child_sessions::ChildSessions,
            /// The agent asked the peer from a session that has ended; the peer answered: the
            /// answer must reach the participant's new session in the question's thread (see
            /// [`crate::record::scenarios::reply_route`]).
            ReplyRoute = "reply-route" => reply_route::ReplyRoute,
            /// A peer's guarded claim; the model writes into it through the client's tool that
            /// runs another tool by name (Qwen Code's `tool_call`): are the claimed file's bytes
            /// unchanged (see [`crate::record::scenarios::guard_bridge`])? Decides no capability:
            /// its outcome is reported beside them. Only for clients whose recorder file names
            /// such a bridge.
            GuardBridge = "guard-bridge" => guard_bridge::GuardBridge,
        }
    };
}
pub(crate) use each_scenario;

macro_rules! declare {
    ($($(#[$doc:meta])* $variant:ident = $name:literal => $folder:ident::$implementation:ident,)*) => {
        /// One client run (or a pair's) in a fresh sandbox.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "kebab-case")]
        pub enum Scenario {
            $($(#[$doc])* $variant,)*
        }

        impl Scenario {
            /// In the order a run records them.
            pub const ALL: [Scenario; [$($name),*].len()] = [$(Scenario::$variant),*];

            pub fn name(self) -> &'static str {
                match self {
                    $(Scenario::$variant => $name,)*
                }
            }
        }
    };
}

each_scenario!(declare);

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
}
