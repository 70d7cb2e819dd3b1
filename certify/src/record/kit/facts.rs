//! The facts only some scenarios observe, as `observations.json` carries them (one optional
//! field of [`crate::record::kit::observations::Observations`] each). Their names and fields
//! are pinned by the committed bundles' digests.

use serde::{Deserialize, Serialize};

use crate::record::kit::run_facts::RunFacts;

// `live-wake`

/// What the whole run observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LiveFacts {
    /// The session's own hooks published a binding before the first send.
    pub bound: bool,
    /// The protocol the binding names.
    pub protocol_contract: Option<String>,
    pub phases: Vec<LivePhase>,
}

/// One send and what followed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LivePhase {
    pub name: String,
    pub message_id: Option<String>,
    /// The consent the installation record held when the peer sent.
    pub policy: String,
    pub sender_exit: Option<i32>,
    /// `live[0].outcome` / `.reasonCode` of the sender's `--json` output.
    pub sender_outcome: Option<String>,
    pub sender_reason: Option<String>,
    /// The receipt's state right after the send, and when the phase ended.
    pub receipt_after_send: Option<String>,
    /// For `busy`: the receipt two seconds after the send, while the held turn still ran.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub receipt_while_busy: Option<String>,
    pub receipt_at_end: Option<String>,
    /// Offers recorded for the message (`message.offer_*`): `ok:<transport>` or
    /// `failed:<reason>`.
    pub offers: Vec<String>,
    /// How many model requests the double had received when the peer sent, and at the end.
    pub requests_before: usize,
    pub requests_after: usize,
}

// `interactive-quit`

/// What the run observed after the quit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuitFacts {
    /// What the recorder typed to leave.
    pub quit_command: String,
    /// The client's hooks had opened a session and the turn ran before the quit.
    pub session_opened: bool,
    pub turn_ran: bool,
    /// The quit was typed (not when the session never opened).
    pub quit_typed: bool,
    /// The client's terminal process was gone within the wait.
    pub client_exited: bool,
    /// The session ran under a shared host (`client.hostPid`) rather than its own process.
    pub shared_host: bool,
    /// That host still ran when `acc status` was read.
    pub host_alive_at_status: Option<bool>,
    /// `acc status --json --all`'s exit code.
    pub status_exit: Option<i32>,
    /// The adapter's sessions as `acc status --json --all` showed them.
    pub status: Vec<StatusFact>,
}

/// One session as `acc status` showed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StatusFact {
    /// `open` or `closed`.
    pub state: String,
    /// `online`, `stale` or `offline`.
    pub presence: String,
}

impl StatusFact {
    pub fn live(&self) -> bool {
        self.state == "open" && self.presence != "offline"
    }
}

// `heartbeat`, driven in the client's terminal interface

/// What the interactive idle run observed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IdleFacts {
    /// The client's hooks opened a session and one turn ran with the double.
    pub session_opened: bool,
    pub turn_ran: bool,
    /// The prompt was left idle (not when no turn ran).
    pub idled: bool,
    /// The `notification_type` of every `Notification` payload acc-hook was given, in order.
    pub notification_types: Vec<String>,
    /// Model requests the double received while the prompt sat idle, before the beat.
    pub requests_while_idle: usize,
    /// The session's heartbeat time in acc's store moved while the prompt sat idle before
    /// any heartbeat-kind invocation was captured (something else keeps it fresh).
    pub moved_before_beat: bool,
    /// It had moved forward when the first heartbeat-kind invocation was captured.
    pub moved_by_beat: bool,
    /// How many heartbeat-kind invocations had been captured when the idle began, [`ECHO`]
    /// after the turn's end: a notification that soon answers the turn ending, not the
    /// prompt sitting idle, so it is never judged as a beat. `None` in a bundle recorded
    /// before the two were told apart (its judge reads every beat after the turn's end).
    ///
    /// [`ECHO`]: crate::record::scenarios::heartbeat::idle::ECHO
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub echo_beats: Option<usize>,
}

// `session-resume`

/// The two runs, as the judge reads them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResumeFacts {
    /// The name the recorder held during the first run: what a fresh conversation gets
    /// once it is free.
    pub held_name: String,
    pub first: ResumeRun,
    pub second: ResumeRun,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResumeRun {
    pub run: RunFacts,
    /// The run's model turns.
    pub conversation_requests: usize,
    /// Its first model turn already shows the double's answer: the conversation's history.
    pub carries_first_answer: bool,
    /// The normalised kinds of the hooks this run invoked, in order.
    pub hook_kinds: Vec<String>,
    /// The client session ids its hooks were given, as labels (`c1`, `c2`) shared by both
    /// runs, in order of first appearance.
    pub client_sessions: Vec<String>,
    /// The adapter's sessions in acc's store after the run; `label` names a session id the
    /// same way across both runs (`s1`, `s2`).
    pub sessions: Vec<ResumeSession>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResumeSession {
    pub label: String,
    pub participant_id: String,
    pub state: String,
}

// `child-sessions`

/// What the double and acc's store show about the subagent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChildFacts {
    /// How the double answered requests with a subagent call (`tool_use:Agent step=0`).
    pub delegations: Vec<String>,
    /// Requests of the subagent's own conversation the double received.
    pub child_requests: u64,
    /// Every session in the store, labelled (`peer`, `main`, `child-1`...) since ids
    /// differ on every run.
    pub sessions: Vec<LinkedSession>,
    /// acc's refusals of writes into the peer's claim, with the refused session's label.
    pub refusals: Vec<RefusalFact>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkedSession {
    pub label: String,
    pub participant_id: String,
    pub harness: String,
    pub state: String,
    /// The parent's label; `unknown` when the parent id names no session in the store.
    pub parent: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RefusalFact {
    pub target: String,
    /// The refused session's label.
    pub by: String,
}

// `reply-route`

/// What the store says about the question and its answer after the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReplyFacts {
    pub question_id: String,
    pub question_thread: String,
    /// The state of the session that asked, after the run (`closed` before the client ran).
    pub question_session_state: Option<String>,
    pub answer_id: String,
    pub answer_thread: String,
    pub answer_in_reply_to: Option<String>,
    /// The participants the answer is addressed to.
    pub answer_to: Vec<String>,
    /// The harness of the session that asked: the adapter's when the client's own tool
    /// call asked, `cli` for a session of the CLI alone.
    #[serde(default)]
    pub question_session_harness: Option<String>,
    /// The asking session's state when the peer answered.
    #[serde(default)]
    pub question_session_state_when_answered: Option<String>,
    /// How the run that asked went.
    #[serde(default)]
    pub asking_run: Option<AskingRun>,
}

/// The client run whose model asked the question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AskingRun {
    pub exit_code: Option<i32>,
    pub timed_out: bool,
    /// The tool results its last model request carried: what the model's `acc` call said.
    pub tool_results: Vec<crate::record::kit::run_facts::ToolResultFact>,
}
