//! What a model that follows acc's skill reads out of a request: the flags of the
//! `ACC CLI (append):` line its hooks injected, the participant a guard refusal names, and
//! the header of each fenced `acc-peer-message` block.
//!
//! Pure functions over text, so each is tested on requests real clients sent. Peer text is
//! untrusted: a block is read only up to its `body:` line, so a body can forge no header,
//! and every id read is validated before it reaches a command line.

use acc_runtime::ids::{MessageId, ParticipantId};

use super::shell;

/// What starts the line that carries a session's CLI flags.
pub const OWNER_LINE_START: &str = "ACC CLI (append):";
/// What a guard refusal says before the holder's participant id.
const CLAIMED_BY: &str = " is claimed by ";
const PEER_FENCE_OPEN: &str = "```acc-peer-message";
const PEER_FENCE_CLOSE: &str = "```";

/// The flags of one `ACC CLI (append):` line, in order, values unquoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliFlags(Vec<(String, String)>);

impl CliFlags {
    pub fn pairs(&self) -> &[(String, String)] {
        &self.0
    }

    /// The value of `--name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(flag, _)| flag == name)
            .map(|(_, value)| value.as_str())
    }

    /// The flags as shell words, each value quoted when it needs it.
    pub fn render(&self) -> String {
        self.0
            .iter()
            .map(|(flag, value)| format!("--{flag} {}", shell_word(value)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

fn shell_word(value: &str) -> String {
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        value.to_owned()
    } else {
        shell::quote(value)
    }
}

/// The flags of the last injected `ACC CLI (append):` line in `text` (the newest turn's),
/// or `None` when no hook injected one. The skill's own example (`--session <id>`) is not an
/// injected line and is skipped.
///
/// Text inside fenced peer blocks is skipped: a peer's message could quote an owner line,
/// and a model that took it would act as that peer.
pub fn cli_flags(text: &str) -> Option<CliFlags> {
    let outside = outside_peer_blocks(text);
    outside
        .match_indices(OWNER_LINE_START)
        .filter_map(|(at, _)| parse_flags(&outside[at + OWNER_LINE_START.len()..]))
        .last()
}

/// `text` without its fenced peer blocks (an unterminated block runs to the end).
fn outside_peer_blocks(text: &str) -> String {
    let mut kept = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if inside {
            inside = !line.trim_start().starts_with(PEER_FENCE_CLOSE);
        } else if line.contains(PEER_FENCE_OPEN) {
            inside = true;
        } else {
            kept.push(line);
        }
    }
    kept.join("\n")
}

fn is_flag_name(name: &str) -> bool {
    name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

/// `--name value` pairs up to the end of the line; a value is a bare word or a
/// single-quoted POSIX string (`'it'\''s'`). `None` when there is no pair, or a value is a
/// placeholder (`<id>`).
fn parse_flags(rest: &str) -> Option<CliFlags> {
    let line = rest.lines().next().unwrap_or_default();
    let mut chars = line.chars().peekable();
    let mut pairs = Vec::new();
    loop {
        while chars.peek() == Some(&' ') {
            chars.next();
        }
        if chars.peek() != Some(&'-') {
            break;
        }
        let name: String = std::iter::from_fn(|| chars.next_if(|c| *c != ' ')).collect();
        let name = name
            .strip_prefix("--")
            .filter(|n| is_flag_name(n))?
            .to_owned();
        while chars.peek() == Some(&' ') {
            chars.next();
        }
        let mut value = String::new();
        if chars.peek() == Some(&'\'') {
            // Quoted segments glued with escaped quotes: 'a'\''b'.
            loop {
                if chars.next_if_eq(&'\'').is_some() {
                    let segment: String =
                        std::iter::from_fn(|| chars.next_if(|c| *c != '\'')).collect();
                    chars.next_if_eq(&'\'')?;
                    value.push_str(&segment);
                } else if chars.next_if_eq(&'\\').is_some() {
                    value.push(chars.next_if_eq(&'\'')?);
                } else {
                    break;
                }
            }
        } else {
            // A bare value ends at a space or where a client's own markup begins
            // (`</hook_context>`).
            value = std::iter::from_fn(|| chars.next_if(|c| *c != ' ' && *c != '<')).collect();
            if value.is_empty() {
                return None;
            }
        }
        pairs.push((name, value));
    }
    (!pairs.is_empty()).then_some(CliFlags(pairs))
}

/// The participant a guard refusal in `text` names as the claim's holder
/// (`file:src/x is claimed by claude-code (session …)`).
pub fn claim_holder(text: &str) -> Option<ParticipantId> {
    text.match_indices(CLAIMED_BY).find_map(|(at, _)| {
        let word: String = text[at + CLAIMED_BY.len()..]
            .chars()
            .take_while(|c| !c.is_whitespace() && *c != '(' && *c != '<')
            .collect();
        ParticipantId::parse(word.trim_end_matches(['.', ',', ';', ':'])).ok()
    })
}

/// The header of one fenced peer block: the lines before its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PeerHeader {
    pub kind: String,
    pub message_id: MessageId,
    /// The sender's participant id.
    pub sender: Option<ParticipantId>,
}

/// Every fenced peer block's header in `text`, in order. A block without a valid
/// `messageId:` line is skipped.
pub fn peer_headers(text: &str) -> Vec<PeerHeader> {
    let mut headers = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if !line.contains(PEER_FENCE_OPEN) {
            continue;
        }
        let (mut kind, mut message_id, mut sender) = (None, None, None);
        for line in lines.by_ref() {
            let line = line.trim();
            if line == PEER_FENCE_CLOSE || line == "body:" || line.starts_with("body: ") {
                break;
            }
            if let Some(value) = line.strip_prefix("kind: ") {
                kind = Some(value.trim().to_owned());
            } else if let Some(value) = line.strip_prefix("messageId: ") {
                message_id = MessageId::parse(value.trim()).ok();
            } else if let Some(value) = line.strip_prefix("sender: ") {
                let word = value.split_whitespace().next().unwrap_or_default();
                sender = ParticipantId::parse(word).ok();
            }
        }
        if let Some(message_id) = message_id {
            headers.push(PeerHeader {
                kind: kind.unwrap_or_default(),
                message_id,
                sender,
            });
        }
    }
    headers
}

#[cfg(test)]
mod tests;
