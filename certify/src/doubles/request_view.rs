//! What a scripted turn is shown of a request, the same for every protocol: the tool results
//! always, the model-visible text only for a computed script (a plain script never reads it,
//! and rendering it for every request would cost each double a pass over the body).

use serde_json::Value;

use super::analysis::ToolResult;
use super::script::Script;

/// `tool_results` and `model_visible_text` are the protocol's own readers of `body`.
pub fn request_view(
    body: &Value,
    script: &Script,
    tool_results: fn(&Value) -> Vec<ToolResult>,
    model_visible_text: fn(&Value) -> String,
) -> (Vec<ToolResult>, String) {
    let visible = if script.is_computed() {
        model_visible_text(body)
    } else {
        String::new()
    };
    (tool_results(body), visible)
}
