//! Model doubles: scripted local model servers speaking each client's wire protocol.
//!
//! A double answers from the request alone (see [`script`]), logs every request
//! ([`log::LoggedRequest`]), and listens on `127.0.0.1` only. Each protocol is a pure
//! `request -> reply` function ([`Protocol::respond`]) plus analysis helpers over the logged
//! request bodies ([`Protocol::tool_results`], [`Protocol::model_visible_text`]);
//! [`ModelDouble`] is the server glue.
//!
//! ```no_run
//! use acc_certify::doubles::{ModelDouble, Protocol, Script};
//! use std::path::Path;
//!
//! let script = Script::write_file(Path::new("/tmp/ws/hello.txt"), "hello\n").unwrap();
//! let double = ModelDouble::start(Protocol::AnthropicMessages, script).unwrap();
//! // ... run the client against double.base_url() ...
//! for request in double.requests() {
//!     let results = Protocol::AnthropicMessages.tool_results(&request.body);
//!     println!("{} {} -> {} ({} tool results)", request.n, request.path, request.answered, results.len());
//! }
//! ```

pub mod agent;
pub mod analysis;
pub mod anthropic;
pub mod chat;
pub mod delegation;
pub mod exchange;
pub mod gemini;
pub mod http;
pub mod log;
pub mod multi_agent;
pub mod openai;
pub mod reading;
pub mod request_view;
pub mod script;
pub mod server;
pub mod shell;
pub mod sse;
pub mod step;

use std::fmt;
use std::str::FromStr;

use serde_json::Value;

pub use agent::Agent;
pub use analysis::ToolResult;
pub use delegation::Delegation;
pub use exchange::{DoubleRequest, Reply};
pub use log::LoggedRequest;
pub use script::{RequestView, Script, ScriptError, Step, Turn};
pub use server::ModelDouble;

/// The wire protocols the doubles speak.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Protocol {
    /// Anthropic Messages, streamed (Claude Code).
    AnthropicMessages,
    /// OpenAI Responses, streamed (Codex).
    OpenAiResponses,
    /// Gemini v1beta `streamGenerateContent?alt=sse` (Gemini CLI).
    GeminiGenerateContent,
    /// OpenAI Chat Completions, streamed, with Grok's tool names (Grok).
    OpenAiChatCompletions,
}

impl Protocol {
    pub const ALL: [Protocol; 4] = [
        Protocol::AnthropicMessages,
        Protocol::OpenAiResponses,
        Protocol::GeminiGenerateContent,
        Protocol::OpenAiChatCompletions,
    ];

    /// Stable name, used in logs and reports.
    pub fn id(self) -> &'static str {
        match self {
            Protocol::AnthropicMessages => "anthropic-messages",
            Protocol::OpenAiResponses => "openai-responses",
            Protocol::GeminiGenerateContent => "gemini-generate-content",
            Protocol::OpenAiChatCompletions => "openai-chat-completions",
        }
    }

    /// The double's answer to one request under `script`.
    pub fn respond(self, request: &DoubleRequest, script: &Script) -> Reply {
        match self {
            Protocol::AnthropicMessages => anthropic::respond(request, script),
            Protocol::OpenAiResponses => openai::respond(request, script),
            Protocol::GeminiGenerateContent => gemini::respond(request, script),
            Protocol::OpenAiChatCompletions => chat::respond(request, script),
        }
    }

    /// The tool results a logged request body carries, in order. Their count is what selects
    /// the script step.
    pub fn tool_results(self, body: &Value) -> Vec<ToolResult> {
        match self {
            Protocol::AnthropicMessages => anthropic::tool_results(body),
            Protocol::OpenAiResponses => openai::tool_results(body),
            Protocol::GeminiGenerateContent => gemini::tool_results(body),
            Protocol::OpenAiChatCompletions => chat::tool_results(body),
        }
    }

    /// Every text the model is shown by a logged request body, one piece per line, for
    /// substring searches (markers, fenced `acc-peer-message` blocks). Tool definitions are
    /// left out; tool-call arguments and results are in.
    pub fn model_visible_text(self, body: &Value) -> String {
        match self {
            Protocol::AnthropicMessages => anthropic::model_visible_text(body),
            Protocol::OpenAiResponses => openai::model_visible_text(body),
            Protocol::GeminiGenerateContent => gemini::model_visible_text(body),
            Protocol::OpenAiChatCompletions => chat::model_visible_text(body),
        }
    }
}

impl fmt::Display for Protocol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.id())
    }
}

impl FromStr for Protocol {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Protocol::ALL
            .into_iter()
            .find(|protocol| protocol.id() == text)
            .ok_or_else(|| format!("unknown protocol {text:?}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protocol_names_round_trip() {
        for protocol in Protocol::ALL {
            assert_eq!(protocol.id().parse::<Protocol>(), Ok(protocol));
            assert_eq!(protocol.to_string(), protocol.id());
        }
        assert!("smtp".parse::<Protocol>().is_err());
    }
}
