//! What an evidence row says about a verdict: idle and busy behaviour, authority, the claim's
//! outcome kind, and the limitations of the capture.
//!
//! Failing rows say `unobserved`/`none` (the behaviour was not seen) and carry the judge's
//! reasons as limitations, so the false value explains itself.

use acc_sdk::capabilities::Capability;

use crate::clients::Client;
use crate::record::kit::verdict::Verdict;

/// The columns of one evidence row (and its provenance claim) besides identity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowBehaviour {
    pub idle: &'static str,
    pub busy: &'static str,
    pub authority: &'static str,
    /// The provenance claim's outcome kind.
    pub kind: &'static str,
    pub limitations: Vec<String>,
}

const UNOBSERVED: &str = "unobserved";

/// The row for `verdict` of `client`.
pub fn row_behaviour(client: Client, verdict: &Verdict) -> RowBehaviour {
    let idle_prompt = verdict.capability == Capability::Heartbeat
        && crate::record::scenarios::heartbeat::idle::drives(client);
    let mut limitations = if verdict.capability == Capability::LivePush {
        vec![crate::record::scenarios::live_wake::captured_how(client).to_owned()]
    } else if idle_prompt {
        vec![
            "Captured interactive (the client's own terminal interface under tmux: one prompt typed, then nothing until the idle notification, then the quit command) against a local model double."
                .to_owned(),
        ]
    } else {
        client_limitations(client)
    };
    // What the client's capture showed, from its recorder file, beyond the judge's reasons.
    let noted = client
        .recorder()
        .evidence
        .capability_notes
        .get(verdict.capability.name());
    limitations.push(match noted {
        Some(note) => note.clone(),
        None if verdict.capability == Capability::Heartbeat && idle_prompt => {
            IDLE_PROMPT_LIMITATION.to_owned()
        }
        None => capability_limitation(verdict.capability).to_owned(),
    });
    if !verdict.passed() {
        limitations.extend(
            verdict
                .reasons
                .iter()
                .map(|reason| format!("Recorded failure: {reason}.")),
        );
        return RowBehaviour {
            idle: UNOBSERVED,
            busy: UNOBSERVED,
            authority: "none",
            kind: "not-observed",
            limitations,
        };
    }
    let (idle, busy, authority, kind) = match verdict.capability {
        // Sent once per idle stretch, never while a turn runs.
        Capability::Heartbeat if idle_prompt => (
            "fires-once-when-prompt-idle",
            "not-applicable",
            "advisory",
            "event-observed",
        ),
        Capability::SessionStart => (
            "fires-at-launch",
            "not-applicable",
            "advisory",
            "event-observed",
        ),
        Capability::SessionEnd => (
            "fires-at-exit",
            "not-applicable",
            "advisory",
            "event-observed",
        ),
        Capability::BeforeWrite => (
            "not-applicable",
            "denied-before-mutation",
            "blocking",
            "tool-denied-before-mutation",
        ),
        Capability::BeforeShell => (
            "not-applicable",
            "denied-before-execution",
            "blocking",
            "tool-denied-before-execution",
        ),
        Capability::BeforeTurnInjection => (
            "queued-until-next-prompt",
            "shown-at-next-prompt",
            "context",
            "model-context-observed",
        ),
        Capability::NextTurn => (
            "queued-until-next-prompt",
            "shown-at-next-prompt",
            "context",
            "model-visible",
        ),
        Capability::SafePointInjection => (
            "not-applicable",
            "shown-after-next-tool-call",
            "context",
            "model-context-observed",
        ),
        Capability::Heartbeat => (
            "fires-on-timer",
            "fires-on-timer",
            "advisory",
            "event-observed",
        ),
        Capability::SessionResume => (
            "fires-at-resume",
            "not-applicable",
            "advisory",
            "event-observed",
        ),
        Capability::StartupInjection => (
            "shown-at-launch",
            "not-applicable",
            "context",
            "model-context-observed",
        ),
        Capability::BeforeRead => (
            "not-applicable",
            "denied-before-read",
            "blocking",
            "tool-denied-before-read",
        ),
        Capability::ChildSessions => (
            "not-applicable",
            "fires-at-subagent-start-and-stop",
            "advisory",
            "event-observed",
        ),
        Capability::ReplyRoute => (
            "queued-until-next-prompt",
            "shown-at-next-prompt",
            "context",
            "model-visible",
        ),
        Capability::LivePush => (
            "wakes-idle-session",
            "queued-until-turn-end",
            "context",
            "model-visible",
        ),
    };
    RowBehaviour {
        idle,
        busy,
        authority,
        kind,
        limitations,
    }
}

/// The heartbeat of a client whose only between-turns hook is its idle-prompt notification.
const IDLE_PROMPT_LIMITATION: &str = "Observed once, about a minute after a turn ended with the prompt left idle (the client's idle threshold, 60 s by default); the wait ended at that first notification. The client's own code sends it once per finished turn, not on a period (not observed here), so a session left idle longer is refreshed once; a session waiting on its model, or on a permission prompt (acc's matcher takes only idle_prompt), sends no heartbeat.";

/// What every capture of `client` did not cover.
pub fn client_limitations(client: Client) -> Vec<String> {
    let recorder = client.recorder();
    let mut out = vec![format!(
        "Captured headless ({}) against a local model double; interactive sessions were not driven.",
        recorder.headless.described
    )];
    out.extend(recorder.evidence.notes.iter().cloned());
    out
}

fn capability_limitation(capability: Capability) -> &'static str {
    match capability {
        Capability::SessionStart => {
            "Observed for a new session; resume and compaction were not exercised."
        }
        Capability::SessionEnd => {
            "Observed at the end of a headless run; `/clear` and other interactive exits were not exercised."
        }
        Capability::BeforeWrite => {
            "One file-creating tool call was observed; other file-editing tools were not exercised."
        }
        Capability::BeforeShell => {
            "One shell redirection (`echo x > src/y`) was observed; other shell forms rely on acc's shell target parser."
        }
        Capability::BeforeTurnInjection | Capability::NextTurn => {
            "The message was queued before the prompt; delivery while the client is busy mid-turn was not observed."
        }
        Capability::LivePush => {
            "An idle session was woken (a notice only; the next-turn hook showed the body); a session busy in a turn (its model request held) showed the message in the turn after; a message sent mid-turn with consent off was shown by the Stop hook holding the turn open; with consent off nothing was offered; a session killed before the offer left the message queued. A wake held for approval (bypassPermissions) and a busy tool call were not exercised."
        }
        Capability::SafePointInjection => {
            "A note sent while a shell call ran was observed after that call; a note sent while the model was generating, and tools other than the shell tool, were not exercised."
        }
        Capability::Heartbeat => {
            "Observed while the client waited on its first model request (held until a timer hook reached acc, 90 s at most); an interactive session idle at its prompt (Claude Code's `Notification` `idle_prompt`) was not driven, and the store's heartbeat time was not compared."
        }
        Capability::SessionResume => {
            "One headless conversation was resumed by the client's own flag after it had ended (its session closed); resuming a conversation that is still running, and compaction, were not exercised."
        }
        Capability::StartupInjection => {
            "Observed with the before-turn hook kept silent (ACC_CERTIFY_WITHHELD) and a peer present at start; the startup block of a resumed or compacted session was not observed."
        }
        Capability::BeforeRead => {
            "One read-tool call of a planted file was refused by a recorder-only deny (ACC_CERTIFY_DENY_READ) through acc's pre-tool matcher widened to the read tool for this capture; acc's own install hooks no read tool and acc refuses no read. Other read tools (search, listing, the shell) were not exercised."
        }
        Capability::ChildSessions => {
            "One foreground subagent of the client's default type, asked for through its own subagent tool, wrote a peer's claimed file and an unclaimed one; background, nested and concurrent subagents were not exercised."
        }
        Capability::ReplyRoute => {
            "The client's own model asked the question through its shell tool running the real `acc message --type question` with its identity line's flags, and that run had ended before the peer answered; the answer reached the participant's next headless conversation at its first prompt, shown because the adapter's reply route routed it. A question asked through acc's MCP server (no adapter wires it), an answer while the asking session still runs, and a resumed (rather than new) conversation were not exercised."
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use acc_sdk::certification::EvidenceResult;

    fn verdict(capability: Capability, result: EvidenceResult, reasons: &[&str]) -> Verdict {
        Verdict {
            capability,
            result,
            reasons: reasons.iter().map(|r| r.to_string()).collect(),
        }
    }

    #[test]
    fn passing_rows_describe_the_behaviour_seen() {
        let row = row_behaviour(
            Client::ClaudeCode,
            &verdict(Capability::BeforeShell, EvidenceResult::Pass, &["ok"]),
        );
        assert_eq!(
            (row.idle, row.busy, row.authority, row.kind),
            (
                "not-applicable",
                "denied-before-execution",
                "blocking",
                "tool-denied-before-execution"
            )
        );
        assert_eq!(row.limitations.len(), 2);
        assert!(
            !row.limitations.iter().any(|l| l == "ok"),
            "pass reasons are not limitations"
        );
    }

    #[test]
    fn failing_rows_are_unobserved_and_say_why() {
        let row = row_behaviour(
            Client::Codex,
            &verdict(
                Capability::SessionEnd,
                EvidenceResult::Fail,
                &["no session-end hook"],
            ),
        );
        assert_eq!(
            (row.idle, row.busy, row.authority),
            ("unobserved", "unobserved", "none")
        );
        assert_eq!(row.kind, "not-observed");
        assert!(
            row.limitations
                .iter()
                .any(|l| l.contains("--dangerously-bypass-hook-trust"))
        );
        assert_eq!(
            row.limitations.last().unwrap(),
            "Recorded failure: no session-end hook."
        );
    }

    #[test]
    fn codexs_child_sessions_row_says_how_the_deferred_tools_were_reached() {
        let pass = verdict(Capability::ChildSessions, EvidenceResult::Pass, &["ok"]);
        let row = row_behaviour(Client::Codex, &pass);
        assert_eq!(row.busy, "fires-at-subagent-start-and-stop");
        assert!(
            row.limitations
                .iter()
                .any(|l| l.contains("tool_search") && l.contains("agent_id"))
        );
    }

    #[test]
    fn an_idle_prompt_heartbeat_row_says_it_was_interactive_and_fires_once() {
        let pass = verdict(Capability::Heartbeat, EvidenceResult::Pass, &["ok"]);
        let claude = row_behaviour(Client::ClaudeCode, &pass);
        assert_eq!(
            (claude.idle, claude.busy),
            ("fires-once-when-prompt-idle", "not-applicable")
        );
        assert!(claude.limitations[0].starts_with("Captured interactive"));
        assert_eq!(claude.limitations[1], IDLE_PROMPT_LIMITATION);
        // A timer hook observed headless keeps the headless wording.
        let kimi = row_behaviour(Client::KimiCode, &pass);
        assert_eq!((kimi.idle, kimi.busy), ("fires-on-timer", "fires-on-timer"));
        assert!(kimi.limitations[0].starts_with("Captured headless"));
    }
}
