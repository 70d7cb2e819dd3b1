//! The `acc` command line, declared with clap. Parsing only: no behaviour lives here.

use super::commands::install;
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::OnceLock;

const ABOUT: &str = "acc: agents can communicate. See each other, claim files, and pass durable messages between coding agents working side by side.";

const LONG_ABOUT: &str = "acc lets several coding agents (and people) working in one repository see each other, claim files before editing them, and pass durable messages that reach the recipient at its next turn. State lives in a per-workspace SQLite store under the data home (ACC_DATA_HOME), never inside the repository.

Every mutating command acts as a session: pass --session and --generation (both printed by `acc attach`) or set ACC_SESSION and ACC_GENERATION. Exit codes: 0 ok, 2 usage, 3 timeout, 4 data or incompatible state, 5 conflict, 6 attention. With --json every command prints exactly one JSON object.";

/// The command line as `S` declares its subcommands: [`Cli`] with them all, and
/// [`pruned_tree`]'s with one alone (the same root, built by the same derive).
#[derive(Debug, Parser)]
#[command(
    name = "acc",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    propagate_version = true,
    arg_required_else_help = true
)]
pub struct Line<S: Subcommand> {
    /// Print exactly one JSON object: {"envelope_version":1,"ok":…}.
    #[arg(long, global = true)]
    pub json: bool,

    /// Run as if started in DIR (the workspace is discovered from there).
    #[arg(long, global = true, value_name = "DIR")]
    pub cwd: Option<PathBuf>,

    #[command(subcommand)]
    pub command: S,
}

/// `acc`'s command line.
pub type Cli = Line<Command>;

/// The session a command acts as. Both flags or neither; without them ACC_SESSION and
/// ACC_GENERATION are used.
#[derive(Debug, Args, Clone, Default)]
pub struct OwnerArgs {
    /// The session to act as (from `acc attach`); needs --generation.
    #[arg(long, value_name = "SESSION", requires = "generation")]
    pub session: Option<String>,

    /// The generation printed by `acc attach` for that session; needs --session.
    #[arg(long, value_name = "GENERATION", requires = "session")]
    pub generation: Option<String>,
}

// Declares `Command` and, for each of its variants, a one-variant enum of the same
// declaration (`only::Claim`), so that a tree of one subcommand is built exactly as the
// whole tree builds it, from one text that cannot drift apart.
macro_rules! commands {
    (
        #[derive(Debug, Subcommand)]
        pub enum Command {
            $( $(#[$attr:meta])* $variant:ident $(($ty:ty))?, )*
        }
    ) => {
        #[derive(Debug, Subcommand)]
        pub enum Command {
            $( $(#[$attr])* $variant $(($ty))?, )*
        }

        /// One enum per subcommand, each declaring it as [`Command`] does.
        mod only {
            #[allow(unused_imports)]
            use super::*;
            $(
                #[derive(Debug, Subcommand)]
                pub enum $variant {
                    $(#[$attr])* $variant $(($ty))?,
                }
            )*
        }

        /// The tree of the root and the subcommand called `name` alone (clap's own
        /// `help` and unknown names have none).
        fn pruned_tree(name: &str) -> Option<clap::Command> {
            let mut position = 0;
            $(
                if <only::$variant as Subcommand>::has_subcommand(name) {
                    let tree = Line::<only::$variant>::command();
                    // The place the whole tree gives it in the root's help (after the
                    // root's arguments and the subcommands before it), so that the two
                    // declarations are equal in every field.
                    let place = tree.get_arguments().count() + position;
                    let name = tree.get_subcommands().next()?.get_name().to_string();
                    return Some(tree.mut_subcommand(name, |s| s.display_order(place)));
                }
                position += 1;
            )*
            let _ = position;
            None
        }
    };
}

commands! {
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Open a session and print `<sessionId> <generation>`.
    #[command(
        long_about = "Open a session for a participant and print `<sessionId> <generation>` on one line. Export them as ACC_SESSION and ACC_GENERATION (or pass --session/--generation) so later commands act as this session. The first attach in a workspace creates its store under the data home.",
        after_help = "Examples:\n  acc attach --participant alice\n  read ACC_SESSION ACC_GENERATION < <(acc attach --participant bob --harness codex)\n  acc attach --participant reviewer --parent session_Ab9CpMJfn0pL6igB5AdYDQ --json"
    )]
    Attach(AttachArgs),

    /// Record that a session is still alive.
    #[command(
        long_about = "Record a heartbeat for the session, keeping its presence online. A session is online for three heartbeat cadences after its last heartbeat (any mutation also counts). Prints the heartbeat's timestamp.",
        after_help = "Examples:\n  acc heartbeat\n  acc heartbeat --session \"$S\" --generation \"$G\" --json"
    )]
    Heartbeat(HeartbeatArgs),

    /// Close a session (its claims are kept).
    #[command(
        long_about = "Close the session. Its claims stay until they expire or are released; use `acc finish` to hand off and release everything at once. Prints `closed <sessionId>`.",
        after_help = "Examples:\n  acc detach\n  acc detach --reason \"switching tasks\""
    )]
    Detach(DetachArgs),

    /// Show who is here, what is claimed, and the room's protection.
    #[command(
        long_about = "Show the room: sessions and their presence (online, stale, offline), intents, checkouts and branches, live claims, protection (none, advisory or guarded), attention for the calling session's participant, and counts of unretrieved messages. Prints one line such as `2 live; 1 claim(s); protection guarded`; use --json for everything. Never creates the store.",
        after_help = "Examples:\n  acc status\n  acc status --json --all"
    )]
    Status(StatusArgs),

    /// A live, full-screen view of the room.
    #[command(
        long_about = "A full-screen view of the room that updates itself: sessions (participant, client and version, enforcement and lifecycle, presence with pid and age, intent, claims held; children under their parent), live claims (owner, mode, enforcement, lease left; conflicts and contention marked), messages in flight per recipient with the answers owed and the decisions, and a tail of events. It only reads the store and shows a commit within a fraction of a second. Keys: Tab/Shift-Tab (or ←/→) move between panes, ↑/↓/PgUp/PgDn/Home/End scroll, / filters every pane, Esc clears the filter, r reads again, q quits. Colour is off under NO_COLOR or a dumb terminal. --once prints one frame as plain text and exits; --json is not supported (use `acc sync --json` or `acc status --json` for data).",
        after_help = "Examples:\n  acc watch\n  acc watch --once\n  acc watch --once --width 120 --height 40"
    )]
    Watch(WatchArgs),

    /// Read what changed since a cursor.
    #[command(
        long_about = "Read events since a cursor (the 16-digit sequence a previous sync returned), with the roster and attention. --scope delta (default) leaves out the calling session's own events, history includes them, full returns a snapshot at the current cursor instead (sessions, live claims, protection, and the decisions in force that you may read). Silent when the session is alone; otherwise prints `N attention; M session(s); cursor C`. Never changes receipts.",
        after_help = "Examples:\n  acc sync\n  acc sync --cursor 0000000000000042 --json\n  acc sync --scope full --json"
    )]
    Sync(SyncArgs),

    /// Publish or clear what this session is working on.
    #[command(
        long_about = "Publish the session's intent (awareness only, never a lock): a summary, a mode and resource hints. Peers whose claims overlap a hint see it as attention. Prints `intent: <summary>`, or `intent cleared` with --clear.",
        after_help = "Examples:\n  acc work --summary \"fix the parser\" --hint file:src/parser/**\n  acc work --clear"
    )]
    Work(WorkArgs),

    /// Claim a resource (a file, a tree, or an opaque name).
    #[command(
        long_about = "Claim a resource for this session: `file:path` (one file), `file:dir/**` (a tree) or an opaque URI such as `doc:api-design`. In a `file:` path, `\\*` is a literal `*`, `\\\\` a backslash and `\\xHH` any byte, so every file name can be claimed (`file:src/Read\\x20Me.md`). A live overlapping claim of another session, where either side is exclusive, refuses the claim with exit 5 and names the holder; claims an ended session of your own participant left never do. Claiming your own resource again renews its lease; claiming one such an ended session holds adopts that claim (same id, your session, a fresh lease; prints `adopted <resource> (<claimId>) from ended session <sessionId>`). Guarded claims are enforced by installed write guards; advisory claims are informational. Prints `claimed <resource>`.",
        after_help = "Examples:\n  acc claim --resource 'file:src/**' --enforcement guarded\n  acc claim --resource file:README.md --reason \"rewriting the tour\" --lease 600\n  acc claim --resource doc:release-notes --mode shared"
    )]
    Claim(ClaimArgs),

    /// Release a claim.
    #[command(
        long_about = "Release one of this session's claims, or one an ended session of its participant left, by id or by resource. Releasing another participant's claim needs --authority human or policy; the authority, the reason and the replaced generation are recorded. Prints `released <claimId>`.\n\nAn authority is never taken on an agent's word: --authority works only for a person, that is, when stdin and stderr are terminals and no ancestor process is the client of a hooked agent session. Otherwise it fails with authority_needs_person (exit 5): an agent asks the user to run the command in their own terminal.",
        after_help = "Examples:\n  acc release --resource 'file:src/**'\n  acc release --claim claim_Ab9CpMJfn0pL6igB5AdYDQ --authority human --reason \"owner is gone\""
    )]
    Release(ReleaseArgs),

    /// Send a note, question, request or decision.
    #[command(
        long_about = "Record a message to participants (--to, repeatable; a participant id, or a client name that exactly one live participant uses) or, without --to, to the whole room (every other participant with an open session). Questions and requests oblige a reply; a decision may oblige an acknowledgement (a room decision obliges nothing). The message is durable: it waits in the recipient's inbox and is shown at its next turn. Prints `recorded <messageId>`.\n\nA decision can change earlier decisions, which are never edited: --supersedes ID (repeatable) replaces them with this one, --withdraws ID (repeatable) says they no longer hold. Name 1 to 16 distinct decisions that you sent or received, with one of the two flags. Where each decision stands (current, superseded or withdrawn; its group and the group's current decision; conflicted when the group has more than one latest decision) is shown wherever a decision is read.",
        after_help = "Examples:\n  acc message --to bob --subject \"schema changed\" --body \"see migrations/0002\"\n  acc message --to bob --type question --subject \"which port?\" --body \"8080 or 9090?\"\n  acc message --subject \"main is frozen\" --body \"until the release is cut\"\n  acc message --type decision --subject \"port 9090\" --body \"8080 is taken\" --supersedes message_Ab9CpMJfn0pL6igB5AdYDQ\n  acc message --type decision --subject \"main is open\" --body \"release cut\" --withdraws message_Ab9CpMJfn0pL6igB5AdYDQ"
    )]
    Message(MessageArgs),

    /// Ask a participant to do something (a request that needs a reply).
    #[command(
        long_about = "Record a work request: a message of kind request, addressed to one participant, that obliges a reply. The title is its subject and the detail its body. Prints `recorded <messageId>`.",
        after_help = "Examples:\n  acc request --to bob --title \"review the parser\" --detail \"src/parser/** before 5pm\""
    )]
    Request(RequestArgs),

    /// List unresolved messages, or read one in full.
    #[command(
        long_about = "Without --message, list a page of unresolved messages addressed to this session's participant (at most 20 by default and 12,000 bytes; pass --cursor with the page's nextCursor for more); listing changes nothing. With --message, print that message in full and mark it retrieved.",
        after_help = "Examples:\n  acc inbox\n  acc inbox --json --limit 50\n  acc inbox --message message_Ab9CpMJfn0pL6igB5AdYDQ"
    )]
    Inbox(InboxArgs),

    /// Answer a message (and acknowledge it).
    #[command(
        long_about = "Answer a message addressed to you: one transaction records an answer to its sender in the same thread (subject `Re: …` unless --subject is given) and acknowledges your receipt. Prints `recorded <answerId>; acknowledged <messageId>`.",
        after_help = "Examples:\n  acc reply --message message_Ab9CpMJfn0pL6igB5AdYDQ --body \"8080\""
    )]
    Reply(ReplyArgs),

    /// Acknowledge a message that needs no reply.
    #[command(
        long_about = "Acknowledge a message addressed to you. Refused with exit 5 while the message is a question or request that still needs a reply (use `acc reply`). Prints `acknowledged <messageId>`.",
        after_help = "Examples:\n  acc ack --message message_Ab9CpMJfn0pL6igB5AdYDQ"
    )]
    Ack(AckArgs),

    /// Hand off, release every claim and close the session.
    #[command(
        long_about = "Finish the session in one transaction: record a handoff (to --to, which must acknowledge it, or to the room), release all of the session's claims, and close it. Retrying with the same --client-message-id returns the original result.",
        after_help = "Examples:\n  acc finish --goal \"parser rewrite\" --status partial --to bob --completed lexer --remaining \"error recovery\"\n  acc finish --goal \"docs pass\""
    )]
    Finish(FinishArgs),

    /// List, confirm or refuse acts on a live agent session from outside its client.
    #[command(
        subcommand,
        long_about = "A release, detach or attach that reaches a live agent session from a process outside that session's client (a person's shell, or an agent's process that left its client) is a takeover: acc records it with the caller's process chain, tells the owner at its next turn and shows it in `acc status` and `acc watch`. One that would take something from the owner (a release, a detach) is held: nothing changes until the owner, from its own session, or a person, in a terminal, confirms it; a session that attached under a live participant's name claims nothing until then.",
        after_help = "Examples:\n  acc takeover list\n  acc takeover confirm 42\n  acc takeover refuse 42 --json"
    )]
    Takeover(TakeoverCommand),

    /// Remove records nobody needs any more (dry run unless --apply).
    #[command(
        long_about = "Report (or with --apply, remove) records that are no longer needed: expired claims, finished intents, offline sessions holding no claim, participants with no session and nothing unread, and with --before, events up to a cursor. Live and stale sessions and unread messages are never pruned.",
        after_help = "Examples:\n  acc prune\n  acc prune --apply --class claims --class sessions\n  acc prune --apply --before 0000000000001000"
    )]
    Prune(PruneArgs),

    /// Create or check acc.workspace.json.
    #[command(
        subcommand,
        long_about = "Create (`init`) or check (`validate`) the acc.workspace.json of the --cwd directory. Both look only in that directory, never upwards.",
        after_help = "Examples:\n  acc config init --yes\n  acc config validate"
    )]
    Config(ConfigCommand),

    /// Wire acc into the coding agents on this machine.
    #[command(long_about = install::INSTALL_ABOUT, after_help = install::INSTALL_EXAMPLES)]
    Install(install::InstallArgs),

    /// Take acc's wiring back out, restoring user files byte for byte.
    #[command(long_about = install::UNINSTALL_ABOUT, after_help = install::UNINSTALL_EXAMPLES)]
    Uninstall(install::UninstallArgs),

    /// Check acc's installation and say the one next step.
    #[command(long_about = install::DOCTOR_ABOUT, after_help = install::DOCTOR_EXAMPLES)]
    Doctor(install::DoctorArgs),

    /// Print acc's version.
    #[command(
        long_about = "Print the version of this acc binary.",
        after_help = "Examples:\n  acc version\n  acc version --json"
    )]
    Version,
}
}

#[derive(Debug, Args)]
pub struct AttachArgs {
    /// The participant to attach as (a portable id: letters, digits, '.', '_', '-').
    #[arg(long, value_name = "NAME")]
    pub participant: String,

    /// What runs this session (free text, such as cli or codex).
    #[arg(long, value_name = "H", default_value = "cli")]
    pub harness: String,

    /// Heartbeat cadence in milliseconds; online lasts three cadences.
    #[arg(long, value_name = "MS", default_value_t = crate::core::sessions::CLI_CADENCE_MS)]
    pub cadence: u64,

    /// The session this one was started by.
    #[arg(long, value_name = "SESSION")]
    pub parent: Option<String>,

    /// A process whose exit means this session is offline.
    #[arg(long, value_name = "PID")]
    pub pid: Option<u32>,

    /// advisory (default) or guarded: whether this session's writes are guarded.
    #[arg(long, value_name = "E", default_value = "advisory")]
    pub enforcement: String,

    /// A human-readable name for the participant.
    #[arg(long, value_name = "TEXT")]
    pub display_name: Option<String>,
}

#[derive(Debug, Args)]
pub struct HeartbeatArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,
}

#[derive(Debug, Args)]
pub struct DetachArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// Why the session ends (kept with the closed session).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Print one frame as plain text on stdout and exit.
    #[arg(long)]
    pub once: bool,

    /// The frame's width with --once (default 80, at least 40).
    #[arg(long, value_name = "COLUMNS", requires = "once")]
    pub width: Option<u16>,

    /// The frame's height with --once (default 24, at least 12).
    #[arg(long, value_name = "LINES", requires = "once")]
    pub height: Option<u16>,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// Only this participant's sessions.
    #[arg(long, value_name = "NAME")]
    pub participant: Option<String>,

    /// Include closed sessions.
    #[arg(long)]
    pub all: bool,
}

#[derive(Debug, Args)]
pub struct SyncArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// The last cursor seen (16 digits).
    #[arg(long, value_name = "CURSOR")]
    pub cursor: Option<String>,

    /// Most events to return (1..500).
    #[arg(long, value_name = "N", default_value_t = crate::core::sync::DEFAULT_LIMIT)]
    pub limit: usize,

    /// delta (default), full or history.
    #[arg(long, value_name = "SCOPE", default_value = "delta")]
    pub scope: String,

    /// Only events of this type (repeatable), such as claim.acquired.
    #[arg(long = "type", value_name = "TYPE")]
    pub types: Vec<String>,
}

#[derive(Debug, Args)]
pub struct WorkArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// What you are doing (at most 280 characters).
    #[arg(
        long,
        value_name = "TEXT",
        required_unless_present = "clear",
        allow_hyphen_values = true
    )]
    pub summary: Option<String>,

    /// observe, explore, edit (default), review, coordinate or wait.
    #[arg(long, value_name = "MODE", default_value = "edit")]
    pub mode: String,

    /// active (default), blocked, waiting or done.
    #[arg(long, value_name = "STATE", default_value = "active")]
    pub state: String,

    /// A resource you expect to touch (repeatable), such as file:src/**.
    #[arg(long = "hint", value_name = "RESOURCE")]
    pub hints: Vec<String>,

    /// Clear the intent instead.
    #[arg(long, conflicts_with_all = ["summary", "hints"])]
    pub clear: bool,
}

#[derive(Debug, Args)]
pub struct ClaimArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// file:path, file:dir/** or an opaque URI.
    #[arg(long, value_name = "RESOURCE")]
    pub resource: String,

    /// exclusive (default) or shared.
    #[arg(long, value_name = "MODE", default_value = "exclusive")]
    pub mode: String,

    /// advisory (default) or guarded.
    #[arg(long, value_name = "E", default_value = "advisory")]
    pub enforcement: String,

    /// Why you claim it.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub reason: Option<String>,

    /// Lease in seconds (default 1800).
    #[arg(long, value_name = "SECONDS")]
    pub lease: Option<u64>,
}

#[derive(Debug, Args)]
pub struct ReleaseArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// The claim id to release.
    #[arg(
        long,
        value_name = "CLAIM",
        required_unless_present = "resource",
        conflicts_with = "resource"
    )]
    pub claim: Option<String>,

    /// Release this session's claim on this resource.
    #[arg(long, value_name = "RESOURCE")]
    pub resource: Option<String>,

    /// human or policy: release a claim of another session (by --claim id).
    // Checked in the command, not with clap's `requires`: clap skips that check when the
    // required argument conflicts with one that is present (`--resource`).
    #[arg(long, value_name = "A")]
    pub authority: Option<String>,

    /// Why (recorded with a forced release).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub reason: Option<String>,
}

#[derive(Debug, Args)]
pub struct MessageArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// A recipient (repeatable): participant id or client name. None: the whole room.
    #[arg(long = "to", value_name = "NAME")]
    pub to: Vec<String>,

    /// One line (at most 500 characters).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub subject: String,

    /// The message (at most 4000 characters).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub body: String,

    /// note (default), question, request or decision.
    #[arg(long = "type", value_name = "KIND", default_value = "note")]
    pub kind: String,

    /// none, acknowledge or reply (fixed by the type except for decisions).
    #[arg(long, value_name = "O")]
    pub obligation: Option<String>,

    /// A decision this decision replaces (repeatable, 1 to 16; needs --type decision).
    #[arg(long, value_name = "MESSAGE", conflicts_with = "withdraws")]
    pub supersedes: Vec<String>,

    /// A decision this decision withdraws (repeatable, 1 to 16; needs --type decision).
    #[arg(long, value_name = "MESSAGE")]
    pub withdraws: Vec<String>,

    /// Your id for this message; retrying with it never sends twice.
    #[arg(long, value_name = "ID")]
    pub client_message_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct RequestArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// The participant (or client name) asked.
    #[arg(long, value_name = "NAME")]
    pub to: String,

    /// What is asked, in one line.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub title: String,

    /// Details.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub detail: Option<String>,

    /// Your id for this request; retrying with it never sends twice.
    #[arg(long, value_name = "ID")]
    pub client_message_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct InboxArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// Read this message in full (marks it retrieved).
    #[arg(long, value_name = "MESSAGE", conflicts_with_all = ["cursor", "limit"])]
    pub message: Option<String>,

    /// Continue after this message id (a page's nextCursor).
    #[arg(long, value_name = "MESSAGE")]
    pub cursor: Option<String>,

    /// Items per page (1..500, default 20).
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

#[derive(Debug, Args)]
pub struct ReplyArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// The message answered.
    #[arg(long, value_name = "MESSAGE")]
    pub message: String,

    /// The answer (at most 4000 characters).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub body: String,

    /// Subject (default `Re: <original subject>`).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub subject: Option<String>,

    /// Your id for this reply; retrying with it never sends twice.
    #[arg(long, value_name = "ID")]
    pub client_message_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct AckArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// The message acknowledged.
    #[arg(long, value_name = "MESSAGE")]
    pub message: String,
}

#[derive(Debug, Args)]
pub struct FinishArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// What this session set out to do.
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub goal: String,

    /// complete (default), partial or blocked.
    #[arg(long, value_name = "STATUS", default_value = "complete")]
    pub status: String,

    /// Who takes over (must acknowledge); without it the handoff goes to the room.
    #[arg(long, value_name = "NAME")]
    pub to: Option<String>,

    /// Something done (repeatable).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub completed: Vec<String>,

    /// Something left to do (repeatable).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub remaining: Vec<String>,

    /// Something in the way (repeatable).
    #[arg(long = "blocker", value_name = "TEXT", allow_hyphen_values = true)]
    pub blockers: Vec<String>,

    /// How the work was checked (repeatable).
    #[arg(long, value_name = "TEXT", allow_hyphen_values = true)]
    pub verification: Vec<String>,

    /// Your id for this handoff; retrying with it returns the original.
    #[arg(long, value_name = "ID")]
    pub client_message_id: Option<String>,
}

#[derive(Debug, Args)]
pub struct PruneArgs {
    /// Remove; without it, only report.
    #[arg(long)]
    pub apply: bool,

    /// sessions, intents, claims or participants (repeatable; default all).
    #[arg(long = "class", value_name = "CLASS")]
    pub classes: Vec<String>,

    /// Also remove events up to and including this cursor.
    #[arg(long, value_name = "CURSOR")]
    pub before: Option<String>,
}

#[derive(Debug, Subcommand)]
pub enum TakeoverCommand {
    /// List takeovers, held ones and the rest.
    #[command(
        long_about = "List takeovers, newest last: what was done or asked (kind), to whom, by which processes, and where it stands (held, done, confirmed, refused). With a session (--session/--generation or ACC_SESSION), only those that reached it. Prints one line each.",
        after_help = "Examples:\n  acc takeover list\n  acc takeover list --held --json"
    )]
    List(TakeoverListArgs),

    /// Carry out a held takeover.
    #[command(
        long_about = "Confirm the held takeover N: the release or detach it holds is carried out now, or the session that attached under the owner's name may act. Only the owner, from inside its own client (its own session's --session/--generation), or a person (stdin and stderr terminals, no hooked agent among the ancestors) may confirm.",
        after_help = "Examples:\n  acc takeover confirm 42\n  acc takeover confirm 42 --session \"$S\" --generation \"$G\" --json"
    )]
    Confirm(TakeoverSettleArgs),

    /// Drop a held takeover; nothing changes.
    #[command(
        long_about = "Refuse the held takeover N: what it asked is dropped and nothing changes (the claim stays its owner's; the session stays open). The same callers as `confirm` may refuse.",
        after_help = "Examples:\n  acc takeover refuse 42"
    )]
    Refuse(TakeoverSettleArgs),
}

#[derive(Debug, Args)]
pub struct TakeoverListArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// Only the takeovers still held.
    #[arg(long)]
    pub held: bool,
}

#[derive(Debug, Args)]
pub struct TakeoverSettleArgs {
    #[command(flatten)]
    pub owner: OwnerArgs,

    /// The takeover's number (`acc takeover list` shows it).
    #[arg(value_name = "N")]
    pub takeover: u64,
}

#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Write acc.workspace.json in the --cwd directory.
    #[command(
        long_about = "Write acc.workspace.json in the --cwd directory, keeping the workspace id acc uses there now so existing state carries over. Refuses to overwrite an existing file, or to change the workspace while sessions are attached, unless --force. Without a terminal, --yes is required.",
        after_help = "Examples:\n  acc config init --yes\n  acc config init --yes --force --cwd ~/src/project"
    )]
    Init(InitArgs),

    /// Check the acc.workspace.json of the --cwd directory.
    #[command(
        long_about = "Check the acc.workspace.json of the --cwd directory (and only that directory) against its closed schema. Prints `<file> is valid`, or `no acc.workspace.json in <dir>`; an invalid file exits 4 naming the problem.",
        after_help = "Examples:\n  acc config validate\n  acc config validate --json --cwd ~/src/project"
    )]
    Validate,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Do not ask for confirmation.
    #[arg(long)]
    pub yes: bool,

    /// Overwrite an existing file, even while sessions are attached.
    #[arg(long)]
    pub force: bool,
}

/// The command trees as [`Cli::command`] and [`pruned_tree`] build them, kept by a process
/// that parses many command lines ([`keep_parser`]: the resident server).
static KEPT: OnceLock<Trees> = OnceLock::new();

/// The whole tree and each subcommand's pruned one.
struct Trees {
    whole: clap::Command,
    pruned: Vec<clap::Command>,
}

impl Trees {
    fn build() -> Trees {
        let whole = Cli::command();
        let pruned = whole
            .get_subcommands()
            .filter_map(|s| pruned_tree(s.get_name()))
            .collect();
        Trees { whole, pruned }
    }
}

/// Builds the command trees once for every later [`parse`] of this process: a resident
/// server parses one `acc` command line per request, and building clap's whole tree (every
/// subcommand, every argument, their help) was most of a refused claim's parse.
pub fn keep_parser() {
    KEPT.get_or_init(Trees::build);
}

/// `Cli::try_parse_from(argv)`, the same in every byte (the value, the error, its kind and
/// its rendering). The subcommand `argv` names is parsed first with a tree holding it
/// alone ([`pruned_tree`]): building the whole tree is most of a short command's parse.
/// Only its success is taken (clap matched every word against the same declarations, and
/// no word chose another subcommand, or the pruned tree would have refused it); anything
/// else (no subcommand, `help`, an unknown name, any error, help or version) is parsed
/// again by the whole tree, so its output is today's. A kept tree is cloned as built,
/// before clap's parse fills in the program's name and builds it, so each parse starts
/// from what a fresh one would.
pub fn parse(argv: &[OsString]) -> Result<Cli, clap::Error> {
    parse_in(KEPT.get(), argv)
}

thread_local! {
    /// This thread's copies of the kept pruned trees, built by their first parse and used
    /// again by every later one ([`parse_in`]).
    static BUILT: std::cell::RefCell<Option<Vec<clap::Command>>> =
        const { std::cell::RefCell::new(None) };
}

fn parse_in(kept: Option<&Trees>, argv: &[OsString]) -> Result<Cli, clap::Error> {
    if let Some(name) = named_subcommand(argv) {
        // With kept trees, each thread parses with its own copy, built once (clap's
        // `_mut` parse, made for parsing again and again): cloning and building a tree per
        // parse was most of a served claim's parse. Only a success is taken from it, and a
        // success depends on the declarations alone; what a parse leaves in a built tree
        // (the program's and usage names it was called by) shows only in an error's or
        // help's rendering, and those always come from a fresh whole tree below.
        let parsed = match kept {
            Some(trees) => BUILT.with(|built| {
                let mut built = built.borrow_mut();
                built
                    .get_or_insert_with(|| trees.pruned.clone())
                    .iter_mut()
                    .find(|t| t.find_subcommand(name).is_some())
                    .map(|t| t.try_get_matches_from_mut(argv))
            }),
            None => pruned_tree(name).map(|t| t.try_get_matches_from(argv)),
        };
        if let Some(Ok(mut matches)) = parsed
            && let Ok(cli) = Cli::from_arg_matches_mut(&mut matches)
        {
            return Ok(cli);
        }
    }
    parse_with(kept.map_or_else(Cli::command, |t| t.whole.clone()), argv)
}

fn parse_with(tree: clap::Command, argv: &[OsString]) -> Result<Cli, clap::Error> {
    let mut matches = tree.try_get_matches_from(argv)?;
    // As clap's derive does: a conversion error is formatted against a fresh tree.
    Cli::from_arg_matches_mut(&mut matches).map_err(|e| e.format(&mut Cli::command()))
}

/// The first word past the program's name that is neither an option nor `--cwd`'s value
/// (the one global option that takes one) and is UTF-8: the subcommand the whole tree
/// would match, when it matches one. A wrong guess costs a second parse, never a
/// different result.
fn named_subcommand(argv: &[OsString]) -> Option<&str> {
    let mut words = argv.iter().skip(1);
    while let Some(word) = words.next() {
        if word == "--cwd" {
            words.next();
        } else if !word.as_encoded_bytes().starts_with(b"-") {
            return word.to_str();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn every_command_has_help_with_examples() {
        let cli = Cli::command();
        for sub in cli.get_subcommands().filter(|s| s.get_name() != "help") {
            assert!(
                sub.get_long_about().is_some(),
                "{} lacks a description",
                sub.get_name()
            );
            let examples = sub
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            assert!(
                examples.contains("acc "),
                "{} lacks examples",
                sub.get_name()
            );
        }
    }

    /// Every argv, good or bad, parses with the kept tree (used again and again, under
    /// several program names) as with a fresh one: the same value, or the same error kind,
    /// exit code and rendering.
    #[test]
    fn a_kept_tree_parses_as_a_fresh_one() {
        let argvs: &[&[&str]] = &[
            &["acc"],
            &["acc", "--json"],
            &["acc", "--help"],
            &["acc", "--version"],
            &["acc", "claim"],
            &["acc", "claim", "--help"],
            &["acc", "claim", "-h"],
            &["acc", "claim", "--bogus"],
            &["acc", "claim", "--resource"],
            &["acc", "claim", "--resource", "file:x", "--mode", "nope"],
            &["acc", "claim", "--resource", "file:x", "--session", "s"],
            &[
                "acc",
                "claim",
                "--resource",
                "file:x",
                "--json",
                "--cwd",
                "/x",
            ],
            &["acc", "config"],
            &["acc", "config", "init", "--yes"],
            &["acc", "help", "claim"],
            &["acc", "nosuch"],
            &["acc", "heartbeat", "--generation", "1"],
            &["acc", "status", "--all", "--json"],
            &["acc", "message", "--subject", "s", "--body", "--- a/x"],
            &["/usr/local/bin/acc", "claim", "--bogus"],
            &["acc-other", "claim", "--help"],
            &["acc-other", "claim"],
        ];
        let show = |r: Result<Cli, clap::Error>| match r {
            Ok(cli) => format!("ok {cli:?}"),
            Err(e) => format!("err {:?} {} {}", e.kind(), e.exit_code(), e.render()),
        };
        let fresh: Vec<String> = argvs
            .iter()
            .map(|a| show(Cli::try_parse_from(a.iter())))
            .collect();
        keep_parser();
        for round in 0..3 {
            for (argv, fresh) in argvs.iter().zip(&fresh) {
                let os: Vec<OsString> = argv.iter().map(OsString::from).collect();
                assert_eq!(&show(parse(&os)), fresh, "round {round}: {argv:?}");
            }
        }
    }

    /// Each subcommand's pruned tree holds it as the whole tree does (every argument,
    /// setting and help text: `Command`'s `Debug` shows them all), under the same root
    /// arguments, and every subcommand but clap's `help` has one.
    #[test]
    fn a_pruned_tree_declares_its_subcommand_as_the_whole_tree() {
        let whole = Cli::command();
        let mut names = 0;
        for sub in whole.get_subcommands() {
            let name = sub.get_name();
            let Some(pruned) = pruned_tree(name) else {
                assert_eq!(name, "help", "no pruned tree for {name}");
                continue;
            };
            names += 1;
            let alone: Vec<&str> = pruned.get_subcommands().map(|s| s.get_name()).collect();
            assert_eq!(alone, [name], "{name}");
            assert_eq!(
                format!("{:?}", pruned.find_subcommand(name).unwrap()),
                format!("{sub:?}"),
                "{name}"
            );
            let args = |c: &clap::Command| format!("{:?}", c.get_arguments().collect::<Vec<_>>());
            assert_eq!(args(&pruned), args(&whole), "{name}");
            assert_eq!(pruned.get_name(), whole.get_name());
            assert_eq!(pruned.get_version(), whole.get_version());
            assert_eq!(
                pruned.get_long_about().map(|a| a.to_string()),
                whole.get_long_about().map(|a| a.to_string())
            );
            assert_eq!(
                pruned.is_subcommand_required_set(),
                whole.is_subcommand_required_set()
            );
            assert_eq!(
                pruned.is_arg_required_else_help_set(),
                whole.is_arg_required_else_help_set()
            );
            assert_eq!(
                pruned.is_propagate_version_set(),
                whole.is_propagate_version_set()
            );
        }
        assert!(names >= 20, "{names}");
        assert!(pruned_tree("help").is_none() && pruned_tree("nosuch").is_none());
    }

    fn show(r: Result<Cli, clap::Error>) -> String {
        match r {
            Ok(cli) => format!("ok {cli:?}"),
            Err(e) => format!("err {:?} {} {}", e.kind(), e.exit_code(), e.render()),
        }
    }

    /// The words the differential below builds its command lines from: every global
    /// option and spelling, `--`, values that look like subcommands or options, unknown
    /// and abbreviated options, help and version, the empty word and non-UTF-8.
    fn words() -> Vec<OsString> {
        use std::os::unix::ffi::OsStringExt;
        let mut words: Vec<OsString> = [
            "claim",
            "claim",
            "status",
            "release",
            "message",
            "config",
            "init",
            "takeover",
            "list",
            "help",
            "version",
            "nosuch",
            "--json",
            "--json",
            "--cwd",
            "--cwd=/y",
            "/x",
            "--",
            "-h",
            "--help",
            "-V",
            "--version",
            "--resource",
            "--resource=file:y",
            "file:x",
            "--res",
            "--mode",
            "shared",
            "exclusive",
            "--mode=nope",
            "--enforcement",
            "guarded",
            "--session",
            "s",
            "--generation",
            "1",
            "--lease",
            "600",
            "--reason",
            "-x",
            "--bogus",
            "-",
            "",
            "--subject",
            "--body",
            "--to",
            "--all",
            "--yes",
            "--claim",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        words.push(OsString::from_vec(b"file:\xff\xfe".to_vec()));
        words.push(OsString::from_vec(vec![0xff, b'c']));
        words
    }

    /// Many command lines (a fixed pseudo-random walk over [`words`], after the program's
    /// name, plus claim lines of the race's shape): wherever the pruned tree parses one,
    /// the whole tree parses it to the same value, and [`parse`] always answers what the
    /// whole tree does, the same value or the same error in every byte.
    #[test]
    fn a_pruned_parse_is_the_whole_trees() {
        let words = words();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut argvs: Vec<Vec<OsString>> = Vec::new();
        // Pieces of lines clap accepts, so that the walk also reaches long valid lines.
        let lines: &[(&str, &[&[&str]])] = &[
            (
                "claim",
                &[
                    &["--resource", "file:x"],
                    &["--resource=file:race/r7.rs"],
                    &["--mode", "shared"],
                    &["--mode=exclusive"],
                    &["--enforcement", "guarded"],
                    &["--lease", "600"],
                    &["--reason", "--- a/x"],
                    &["--session", "s", "--generation", "1"],
                ],
            ),
            ("status", &[&["--all"], &["--participant", "claim"]]),
            ("release", &[&["--resource", "file:x"], &["--claim", "c"]]),
            ("takeover", &[&["list"]]),
            ("config", &[&["init"], &["validate"]]),
            ("version", &[]),
        ];
        let globals: &[&[&str]] = &[&["--json"], &["--cwd", "/x"], &["--cwd=claim"]];
        for _ in 0..4000 {
            let mut argv = vec![OsString::from(if next(8) == 0 {
                "/usr/bin/acc"
            } else {
                "acc"
            })];
            let push = |argv: &mut Vec<OsString>, w: &[&str]| {
                argv.extend(w.iter().map(OsString::from));
            };
            if next(2) == 0 {
                let (name, pieces) = lines[next(lines.len())];
                for _ in 0..next(3) {
                    push(&mut argv, globals[next(globals.len())]);
                }
                push(&mut argv, &[name]);
                for _ in 0..next(5) {
                    if !pieces.is_empty() && next(3) > 0 {
                        push(&mut argv, pieces[next(pieces.len())]);
                    } else {
                        push(&mut argv, globals[next(globals.len())]);
                    }
                }
                // Now and then a stray word anywhere.
                if next(4) == 0 {
                    let at = 1 + next(argv.len());
                    argv.insert(at, words[next(words.len())].clone());
                }
            } else {
                if next(3) > 0 {
                    argv.push(words[next(12)].clone());
                }
                for _ in 0..1 + next(7) {
                    argv.push(words[next(words.len())].clone());
                }
            }
            argvs.push(argv);
        }
        for claim in [
            &["acc", "claim", "--resource", "file:race/r1.rs", "--json"][..],
            &[
                "acc",
                "--json",
                "claim",
                "--resource=file:a",
                "--mode",
                "shared",
            ],
            &["acc", "--cwd", "claim", "claim", "--resource", "file:a"],
            &["acc", "--cwd=/x", "claim", "--resource", "--json"],
            &[
                "acc",
                "claim",
                "--resource",
                "file:a",
                "--resource",
                "file:b",
            ],
            &["acc", "claim", "--", "--resource"],
            &["acc", "claim", "--resource", "status"],
            &[
                "acc",
                "claim",
                "--resource",
                "file:a",
                "--session",
                "s",
                "--generation",
                "1",
            ],
            &["acc", "claim", "--resource", "file:a", "--lease", "x"],
            &["acc", "takeover", "list", "--json"],
            &["acc", "takeover", "help"],
            &["acc", "config", "init", "--yes", "--cwd", "/x"],
            &["acc", "version", "--json"],
            &["acc", "status", "--all", "--all"],
        ] {
            argvs.push(claim.iter().map(OsString::from).collect());
        }
        let kept = Trees::build();
        let mut pruned_ok = 0;
        for argv in &argvs {
            let whole = show(Cli::try_parse_from(argv.iter()));
            if let Some(tree) = named_subcommand(argv).and_then(pruned_tree)
                && let Ok(mut m) = tree.try_get_matches_from(argv)
                && let Ok(cli) = Cli::from_arg_matches_mut(&mut m)
            {
                pruned_ok += 1;
                assert_eq!(format!("ok {cli:?}"), whole, "{argv:?}");
            }
            // Built here and kept (as the server keeps them, used again and again), not
            // `parse`'s: another test of this process may have kept them or not. This
            // thread's built copies are used by every line after the first, whatever the
            // lines before them left in them (errors, help, another program name).
            assert_eq!(show(parse_in(None, argv)), whole, "{argv:?}");
            assert_eq!(show(parse_in(Some(&kept), argv)), whole, "{argv:?}");
            let mut renamed = argv.clone();
            renamed[0] = OsString::from("/somewhere/else/acc-renamed");
            assert_eq!(
                show(parse_in(Some(&kept), &renamed)),
                show(Cli::try_parse_from(renamed.iter())),
                "{renamed:?}"
            );
        }
        // And in the opposite order: every line again through the same built copies.
        for argv in argvs.iter().rev() {
            assert_eq!(
                show(parse_in(Some(&kept), argv)),
                show(Cli::try_parse_from(argv.iter())),
                "{argv:?}"
            );
        }
        // The walk reaches both sides: lines the pruned tree takes and lines it leaves.
        assert!(
            pruned_ok > 100 && pruned_ok < argvs.len() - 100,
            "{pruned_ok}"
        );
    }

    #[test]
    fn globals_work_before_and_after_the_command() {
        let a = Cli::try_parse_from(["acc", "--json", "--cwd", "/x", "status"]).unwrap();
        let b = Cli::try_parse_from(["acc", "status", "--json", "--cwd", "/x"]).unwrap();
        assert!(a.json && b.json);
        assert_eq!(a.cwd, b.cwd);
    }

    #[test]
    fn owner_flags_come_in_pairs_and_bodies_may_start_with_dashes() {
        assert!(Cli::try_parse_from(["acc", "heartbeat", "--session", "s"]).is_err());
        let m = Cli::try_parse_from(["acc", "message", "--subject", "diff", "--body", "--- a/x"])
            .unwrap();
        match m.command {
            Command::Message(m) => assert_eq!(m.body, "--- a/x"),
            _ => unreachable!(),
        }
    }
}
