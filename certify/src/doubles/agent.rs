//! A model that follows acc's skill, played by a double: it reads its identity, a guard's
//! refusal and its peers' messages out of the request ([`super::reading`]) and answers with
//! the `acc` commands the skill teaches, run through the client's shell tool.
//!
//! Nothing is remembered between requests. The steps are recomputed from each request (the
//! tool results it carries and the text it shows), so a client that replays its history
//! walks them one tool call at a time and a retried request gets the same answer.

use std::path::PathBuf;

use super::reading::{CliFlags, claim_holder, cli_flags, peer_headers};
use super::shell::quote;
use super::step::{RequestView, Step};

/// The command the skill's commands start with; the recorder puts it on the client's PATH.
pub const ACC: &str = "acc";
/// The peer message kind the asker sends and the owner answers.
pub const QUESTION: &str = "question";

/// What the agent set out to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Agent {
    /// Claims `resource` guarded. Once a peer's question reaches its context, answers the
    /// newest one and releases the claim.
    Owner { resource: String },
    /// Writes `content` to the absolute `path`. When acc's guard refuses the write, asks
    /// the participant the refusal names.
    Asker { path: PathBuf, content: String },
    /// Asks the participant `to` a question through acc's CLI as soon as its own identity
    /// line shows, then closes the turn.
    Questioner {
        to: String,
        subject: String,
        body: String,
    },
}

/// Texts the agents send; fixed, so a recording shows the same commands every time.
pub const CLAIM_REASON: &str = "refactoring this tree";
pub const QUESTION_SUBJECT: &str = "May I write my file in your claimed tree?";
pub const QUESTION_BODY: &str =
    "Your guarded claim refused my write. Please release it when you can.";
pub const ANSWER_BODY: &str = "Yes: I am releasing the claim now.";

impl Agent {
    /// The steps for `request`: the whole plan so far, of which the request's tool-result
    /// count picks the next.
    pub fn steps(&self, request: &RequestView<'_>) -> Vec<Step> {
        let flags = cli_flags(request.visible_text);
        match self {
            Agent::Owner { resource } => owner_steps(resource, flags.as_ref(), request),
            Agent::Asker { path, content } => {
                let mut steps = vec![Step::write_file(path.clone(), content.clone())];
                let holder = request
                    .tool_results
                    .first()
                    .and_then(|result| claim_holder(&result.text));
                if let (Some(holder), Some(flags)) = (holder, flags) {
                    steps.push(Step::shell(format!(
                        "{ACC} message --to {} --type {QUESTION} --subject {} --body {} {}",
                        holder.as_str(),
                        quote(QUESTION_SUBJECT),
                        quote(QUESTION_BODY),
                        flags.render()
                    )));
                }
                steps
            }
            Agent::Questioner { to, subject, body } => match flags {
                Some(flags) => vec![Step::shell(format!(
                    "{ACC} message --to {} --type {QUESTION} --subject {} --body {} {}",
                    quote(to),
                    quote(subject),
                    quote(body),
                    flags.render()
                ))],
                None => Vec::new(),
            },
        }
    }
}

/// Without an identity line the skill says to do nothing with acc, so there is no step.
fn owner_steps(resource: &str, flags: Option<&CliFlags>, request: &RequestView<'_>) -> Vec<Step> {
    let Some(flags) = flags else {
        return Vec::new();
    };
    let flags = flags.render();
    let question = peer_headers(request.visible_text)
        .into_iter()
        .rfind(|header| header.kind == QUESTION);
    match question {
        Some(question) => vec![
            Step::shell(format!(
                "{ACC} reply --message {} --body {} {flags}",
                question.message_id.as_str(),
                quote(ANSWER_BODY)
            )),
            Step::shell(format!(
                "{ACC} release --resource {} {flags}",
                quote(resource)
            )),
        ],
        None => vec![Step::shell(format!(
            "{ACC} claim --resource {} --enforcement guarded --reason {} {flags}",
            quote(resource),
            quote(CLAIM_REASON)
        ))],
    }
}

#[cfg(test)]
mod tests;
