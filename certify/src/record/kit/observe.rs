//! Turning what a run left behind into observations: the double's log into request facts,
//! the workspace into file facts.

use std::path::Path;

use crate::doubles::{LoggedRequest, Protocol};
use crate::record::kit::model_text::{acc_lines, peer_blocks};
use crate::record::kit::observations::{FileFact, RequestFact, ToolResultFact};

/// One fact per logged request (already redacted): what tools answered and which of acc's
/// texts the model was shown.
pub fn request_facts(protocol: Protocol, requests: &[LoggedRequest]) -> Vec<RequestFact> {
    requests
        .iter()
        .map(|request| {
            let visible = protocol.model_visible_text(&request.body);
            RequestFact {
                n: request.n,
                method: request.method.clone(),
                path: request.path.clone(),
                tool_results: protocol
                    .tool_results(&request.body)
                    .into_iter()
                    .map(|r| ToolResultFact {
                        call_id: r.call_id,
                        text: r.text,
                        is_error: r.is_error,
                    })
                    .collect(),
                peer_blocks: peer_blocks(&visible),
                acc_lines: acc_lines(&visible),
            }
        })
        .collect()
}

/// Whether each workspace-relative path exists now.
pub fn file_facts(workspace: &Path, paths: &[&str]) -> Vec<FileFact> {
    paths
        .iter()
        .map(|path| FileFact {
            path: (*path).to_owned(),
            exists: workspace.join(path).exists(),
            sha256: None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Map, json};

    fn logged(n: u64, body: serde_json::Value) -> LoggedRequest {
        LoggedRequest {
            t: 0.0,
            n,
            method: "POST".into(),
            path: "/v1/messages".into(),
            query: None,
            headers: Map::new(),
            body,
            answered: String::new(),
        }
    }

    #[test]
    fn tool_results_and_injected_blocks_are_read_from_anthropic_bodies() {
        let body = json!({
            "system": [{"type": "text", "text": "UserPromptSubmit hook additional context: ACC (load the acc skill):\n```acc-peer-message\nmessageId: message_1\n```"}],
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Write", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "PreToolUse:Write hook error: file:src/x is claimed by peer (session s)", "is_error": true}]}
            ]
        });
        let facts = request_facts(Protocol::AnthropicMessages, &[logged(1, body)]);
        assert_eq!(facts.len(), 1);
        let fact = &facts[0];
        assert_eq!(fact.tool_results.len(), 1);
        assert!(fact.tool_results[0].is_error);
        assert!(
            fact.tool_results[0]
                .text
                .contains("file:src/x is claimed by peer")
        );
        assert_eq!(fact.peer_blocks.len(), 1);
        assert_eq!(fact.acc_lines.len(), 2);
    }

    #[test]
    fn files_are_checked_relative_to_the_workspace() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("free.txt"), "x").unwrap();
        let facts = file_facts(dir.path(), &["src/x", "free.txt"]);
        assert_eq!(
            facts,
            [
                FileFact {
                    path: "src/x".into(),
                    exists: false,
                    sha256: None,
                },
                FileFact {
                    path: "free.txt".into(),
                    exists: true,
                    sha256: None,
                }
            ]
        );
    }
}
