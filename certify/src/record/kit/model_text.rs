//! Finding acc's injected text in what a model was shown.
//!
//! The skill acc installs quotes its own markers as documentation (an indented
//! `ACC CLI (append): --session <id> ...` line, `acc-peer-message` in single backticks), and
//! some clients show skill text to the model. Only text a hook injected matches here: a real
//! fence line, a header line, or an identity line carrying a real id.

use acc_runtime::hook::owner_line::YOU_ARE;
use acc_sdk::projector::{HEADER, PEER_FENCE_CLOSE, PEER_FENCE_OPEN};

/// The owner line's start; followed by a real id (never `<id>`) when a hook wrote it.
const OWNER_LINE: &str = "ACC CLI (append): --session ";
/// The line a projection with nothing but peers present shows.
const PRESENCE_MARK: &str = "peer participant(s) present";
/// The line that names the peers here; shown only beside a peer.
pub const PEERS_MARK: &str = "ACC peers here (";

/// Every fenced `acc-peer-message` block in `text`, fence lines included. An unterminated
/// block runs to the end of the text.
pub fn peer_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<&str>> = None;
    for line in text.lines() {
        match current.as_mut() {
            Some(lines) => {
                lines.push(line);
                if line.trim() == PEER_FENCE_CLOSE {
                    blocks.push(lines.join("\n"));
                    current = None;
                }
            }
            None if line.contains(PEER_FENCE_OPEN) => current = Some(vec![line]),
            None => {}
        }
    }
    if let Some(lines) = current {
        blocks.push(lines.join("\n"));
    }
    blocks
}

/// Every line of `text` that carries one of acc's injected markers.
pub fn acc_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| is_acc_line(line))
        .map(str::to_owned)
        .collect()
}

fn is_acc_line(line: &str) -> bool {
    line.contains(HEADER)
        || line.contains(PEER_FENCE_OPEN)
        || line.contains(PRESENCE_MARK)
        || line.contains(PEERS_MARK)
        || is_identity_line(line)
}

/// An identity line a hook injected (the owner line or `ACC you are:`), which every attached
/// session gets, alone or not: it carries nothing a peer wrote.
pub fn is_identity_line(line: &str) -> bool {
    [OWNER_LINE, YOU_ARE].iter().any(|mark| {
        line.match_indices(mark)
            .any(|(at, _)| !line[at + mark.len()..].starts_with('<'))
    })
}

/// Whether `block` names `message_id` on its own `messageId:` line.
pub fn block_names_message(block: &str, message_id: &str) -> bool {
    block
        .lines()
        .any(|line| line.trim() == format!("messageId: {message_id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const INJECTED: &str = "UserPromptSubmit hook additional context: ACC (load the acc skill):\n\
        ACC CLI (append): --session session_1 --generation generation_2 --cwd '<ws>'\n\
        ```acc-peer-message\n\
        untrusted peer message\n\
        kind: note\n\
        messageId: message_9\n\
        body: hi\n\
        ```\n\
        trailing prose";

    #[test]
    fn blocks_are_found_whole_and_name_their_message() {
        let blocks = peer_blocks(INJECTED);
        assert_eq!(blocks.len(), 1);
        assert!(blocks[0].starts_with("```acc-peer-message\n"));
        assert!(blocks[0].ends_with("\n```"));
        assert!(block_names_message(&blocks[0], "message_9"));
        assert!(!block_names_message(&blocks[0], "message_1"));
        assert!(!block_names_message("messageId: message_90", "message_9"));
    }

    #[test]
    fn an_unterminated_block_is_still_a_block() {
        let blocks = peer_blocks("x\n```acc-peer-message\nmessageId: m");
        assert_eq!(blocks, ["```acc-peer-message\nmessageId: m"]);
    }

    #[test]
    fn injected_headers_are_found_but_the_skills_own_examples_are_not() {
        assert_eq!(acc_lines(INJECTED).len(), 3);
        let skill = "begins with `ACC` and a line like:\n\n    ACC CLI (append): --session <id> --generation <g> --cwd '<dir>'\n    ACC you are: <participant>\n\
            Text inside `acc-peer-message` blocks comes from other agents.";
        assert!(acc_lines(skill).is_empty());
        assert!(peer_blocks(skill).is_empty());
        assert!(is_identity_line("ACC you are: codex-2"));
        let peers = "ACC peers here (address them with --to): codex";
        assert_eq!(acc_lines(peers), [peers]);
        assert!(
            !is_identity_line(peers),
            "a peers line fails the solo control"
        );
        assert!(!is_identity_line("ACC (load the acc skill):"));
        assert_eq!(
            acc_lines("x\nACC you are: codex\ny"),
            ["ACC you are: codex"]
        );
        assert_eq!(
            acc_lines("ACC: 1 peer participant(s) present. Load the acc skill before shared work."),
            ["ACC: 1 peer participant(s) present. Load the acc skill before shared work."]
        );
    }
}
