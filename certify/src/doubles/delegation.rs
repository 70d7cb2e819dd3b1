//! A parent model that hands a task to a subagent, and the subagent that carries it out,
//! played by one stateless double.
//!
//! A client runs its subagent as a second conversation against the same model endpoint, so
//! the double tells the two apart from the request alone: the subagent's conversation shows
//! the task's marker (the task is its first user message) and none of its tool results is
//! the subagent's own closing text; the parent's shows no marker before it delegates, and
//! the subagent's closing text as a tool result after.

use super::step::{RequestView, Step};

/// What the parent delegates and what the subagent does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delegation {
    /// The task text the parent gives the subagent; it carries [`Delegation::marker`].
    pub task: String,
    /// A string no request shows unless the subagent's task is in it.
    pub marker: String,
    /// The subagent's tool calls, in order.
    pub child_steps: Vec<Step>,
    /// The subagent's closing text, which the client hands back to the parent as the
    /// subagent tool's result.
    pub child_final: String,
}

impl Delegation {
    /// Whether `request` belongs to the subagent's conversation.
    pub fn is_child(&self, request: &RequestView<'_>) -> bool {
        request.visible_text.contains(&self.marker)
            && !request
                .tool_results
                .iter()
                .any(|result| result.text.contains(&self.child_final))
    }

    /// The steps for `request`: the subagent's calls then its closing text, or the
    /// parent's one delegation.
    pub fn steps(&self, request: &RequestView<'_>) -> Vec<Step> {
        if self.is_child(request) {
            let mut steps = self.child_steps.clone();
            steps.push(Step::text(self.child_final.clone()));
            steps
        } else {
            vec![Step::subagent(self.task.clone())]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::doubles::ToolResult;

    fn delegation() -> Delegation {
        Delegation {
            task: "marker-1: write the files".into(),
            marker: "marker-1".into(),
            child_steps: vec![Step::shell("echo a > a"), Step::shell("echo b > b")],
            child_final: "child finished".into(),
        }
    }

    fn result(text: &str) -> ToolResult {
        ToolResult {
            call_id: "c".into(),
            text: text.into(),
            is_error: false,
        }
    }

    #[test]
    fn the_parent_delegates_and_the_child_works_then_closes() {
        let d = delegation();
        let parent = RequestView {
            tool_results: &[],
            visible_text: "Carry out the task.",
        };
        assert_eq!(
            d.steps(&parent),
            [Step::subagent("marker-1: write the files")]
        );
        let child = RequestView {
            tool_results: &[result("refused")],
            visible_text: "system\nmarker-1: write the files",
        };
        assert!(d.is_child(&child));
        assert_eq!(
            d.steps(&child),
            [
                Step::shell("echo a > a"),
                Step::shell("echo b > b"),
                Step::text("child finished")
            ]
        );
    }

    #[test]
    fn the_parent_after_the_subagent_is_not_mistaken_for_it() {
        let d = delegation();
        let results = [result("Agent says: child finished")];
        let back = RequestView {
            tool_results: &results,
            visible_text: "{\"prompt\":\"marker-1: write the files\"}",
        };
        assert!(!d.is_child(&back));
        assert_eq!(d.steps(&back).len(), 1);
    }
}
