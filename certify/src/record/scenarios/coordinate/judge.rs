//! The coordination judge: observations in, one verdict per step out. Pure, so a pair
//! bundle's `observations.json` can be judged again at any time.
//!
//! Every step is decided from acc's store and the contested file after the run it belongs
//! to (claims, message envelopes, a digest), never by searching what a model or a client
//! printed. The one look at a request is structural: the owner's first model request of its
//! second run must carry a fenced peer block whose `messageId:` line names the question.

use std::fmt;

use serde::Serialize;

use super::observations::{
    COORDINATION_SCHEMA, ClaimFact, CoordinationObservations, MessageFact, RunObservation,
    StoreFacts, Turn,
};
use crate::doubles::Protocol;
use crate::record::kit::model_text::block_names_message;
use crate::record::kit::verdict::is_conversation;

/// The steps of the scenario, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Step {
    /// The owner's model holds a guarded claim on the resource after its first run.
    Claimed,
    /// The asker's write into the claim did not happen, and its client told the model so.
    Refused,
    /// The asker's model sent the claim's holder a question.
    Asked,
    /// The owner's next run showed its model the question.
    Shown,
    /// The owner's model answered that question.
    Answered,
    /// The owner's model released the claim, and the file was still untouched.
    Released,
    /// The asker's next run wrote the file.
    Wrote,
}

impl Step {
    pub const ALL: [Step; 7] = [
        Step::Claimed,
        Step::Refused,
        Step::Asked,
        Step::Shown,
        Step::Answered,
        Step::Released,
        Step::Wrote,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Step::Claimed => "claimed",
            Step::Refused => "refused",
            Step::Asked => "asked",
            Step::Shown => "shown",
            Step::Answered => "answered",
            Step::Released => "released",
            Step::Wrote => "wrote",
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StepVerdict {
    pub step: Step,
    pub passed: bool,
    /// Why, in words that name no session id, path or peer text.
    pub reasons: Vec<String>,
}

/// The pair's verdict: it passes when every step does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CoordinationVerdict {
    pub passed: bool,
    pub steps: Vec<StepVerdict>,
}

impl CoordinationVerdict {
    fn from_steps(steps: Vec<StepVerdict>) -> CoordinationVerdict {
        CoordinationVerdict {
            passed: steps.iter().all(|s| s.passed),
            steps,
        }
    }

    /// The first step that failed.
    pub fn first_failure(&self) -> Option<&StepVerdict> {
        self.steps.iter().find(|s| !s.passed)
    }
}

/// Collects one step's failures.
struct Check {
    step: Step,
    failures: Vec<String>,
}

impl Check {
    fn new(step: Step) -> Check {
        Check {
            step,
            failures: Vec::new(),
        }
    }

    fn fail(&mut self, reason: impl Into<String>) {
        self.failures.push(reason.into());
    }

    fn finish(self, success: &str) -> StepVerdict {
        let passed = self.failures.is_empty();
        StepVerdict {
            step: self.step,
            passed,
            reasons: if passed {
                vec![success.to_owned()]
            } else {
                self.failures
            },
        }
    }
}

/// Judges a pair run.
pub fn judge(obs: &CoordinationObservations) -> CoordinationVerdict {
    let offline = obs.runs.iter().find_map(|run| {
        run.run
            .network_problem()
            .map(|problem| format!("the {} run: {problem}", run.turn.name()))
    });
    let unusable = (obs.schema_version != COORDINATION_SCHEMA).then(|| {
        format!(
            "observations use schema {} but this judge reads schema {COORDINATION_SCHEMA}",
            obs.schema_version
        )
    });
    if let Some(reason) = unusable.or(offline) {
        return CoordinationVerdict::from_steps(
            Step::ALL
                .iter()
                .map(|&step| StepVerdict {
                    step,
                    passed: false,
                    reasons: vec![reason.clone()],
                })
                .collect(),
        );
    }
    let judge = Judge { obs };
    let claim = judge.owner_claim(Turn::OwnerClaims);
    let question = judge.question();
    CoordinationVerdict::from_steps(vec![
        judge.claimed(claim.as_ref()),
        judge.refused(),
        judge.asked(question.as_ref()),
        judge.shown(question.as_ref()),
        judge.answered(question.as_ref()),
        judge.released(),
        judge.wrote(),
    ])
}

struct Judge<'a> {
    obs: &'a CoordinationObservations,
}

impl<'a> Judge<'a> {
    fn after(&self, turn: Turn) -> Result<&'a StoreFacts, String> {
        self.obs
            .run(turn)
            .map(|run| &run.after)
            .ok_or_else(|| format!("the {} run was not observed", turn.name()))
    }

    fn owner_ids(&self, facts: &'a StoreFacts) -> Vec<&'a str> {
        facts.participants_of(&self.obs.owner.adapter)
    }

    fn asker_ids(&self, facts: &'a StoreFacts) -> Vec<&'a str> {
        facts.participants_of(&self.obs.asker.adapter)
    }

    /// The owner's live claim on the resource after `turn`.
    fn owner_claim(&self, turn: Turn) -> Option<ClaimFact> {
        let facts = self.after(turn).ok()?;
        let owners = self.owner_ids(facts);
        facts
            .claims
            .iter()
            .find(|c| {
                c.resource == self.obs.expect.resource
                    && owners.contains(&c.owner_participant_id.as_str())
            })
            .cloned()
    }

    /// The asker's question to the owner, as the store holds it after the asker's run.
    fn question(&self) -> Option<MessageFact> {
        let facts = self.after(Turn::AskerWrites).ok()?;
        let (owners, askers) = (self.owner_ids(facts), self.asker_ids(facts));
        facts
            .messages
            .iter()
            .find(|m| {
                m.kind == "question"
                    && askers.contains(&m.from_participant_id.as_str())
                    && m.to_participant_ids
                        .iter()
                        .any(|to| owners.contains(&to.as_str()))
            })
            .cloned()
    }

    fn claimed(&self, claim: Option<&ClaimFact>) -> StepVerdict {
        let mut check = Check::new(Step::Claimed);
        match self.after(Turn::OwnerClaims) {
            Err(reason) => check.fail(reason),
            Ok(facts) if self.owner_ids(facts).is_empty() => check.fail(format!(
                "no session of the {} adapter reached acc's store",
                self.obs.owner.adapter
            )),
            Ok(_) => match claim {
                None => check.fail(format!(
                    "after its first run the owner's participant holds no live claim on {}",
                    self.obs.expect.resource
                )),
                Some(claim) if claim.enforcement != "guarded" => check.fail(format!(
                    "the owner's claim is {}, not guarded",
                    claim.enforcement
                )),
                Some(_) => {}
            },
        }
        check.finish("the owner's model claimed the resource, guarded, under its own participant")
    }

    fn refused(&self) -> StepVerdict {
        let mut check = Check::new(Step::Refused);
        match self.after(Turn::AskerWrites) {
            Err(reason) => check.fail(reason),
            Ok(facts) => {
                if facts.target.sha256.is_some() {
                    check.fail(format!(
                        "{} exists after the asker's first run: its write was not refused",
                        self.obs.expect.target
                    ));
                }
                if self.owner_claim(Turn::AskerWrites).is_none() {
                    check.fail("the owner's claim was not live while the asker wrote");
                }
                let reported = self
                    .obs
                    .run(Turn::AskerWrites)
                    .and_then(|run| first_tool_result_error(run, &self.obs.asker.protocol));
                if reported != Some(true) {
                    check.fail(
                        "the asker's client did not report the refused write to its model as failed",
                    );
                }
            }
        }
        check.finish("the guard refused the asker's write into the claim and its model was told")
    }

    fn asked(&self, question: Option<&MessageFact>) -> StepVerdict {
        let mut check = Check::new(Step::Asked);
        if let Err(reason) = self.after(Turn::AskerWrites) {
            check.fail(reason);
        } else if question.is_none() {
            check.fail(
                "after its first run the asker's participant had sent the owner's participant no question",
            );
        }
        check.finish("the asker's model sent a question to the participant holding the claim")
    }

    fn shown(&self, question: Option<&MessageFact>) -> StepVerdict {
        let mut check = Check::new(Step::Shown);
        let Some(question) = question else {
            check.fail("there was no question to show");
            return check.finish("");
        };
        let Some(run) = self.obs.run(Turn::OwnerAnswers) else {
            check.fail(format!(
                "the {} run was not observed",
                Turn::OwnerAnswers.name()
            ));
            return check.finish("");
        };
        let first = conversation(run, &self.obs.owner.protocol).next();
        match first {
            None => check.fail("the owner's second run made no model request"),
            Some(request)
                if !request
                    .peer_blocks
                    .iter()
                    .any(|block| block_names_message(block, &question.message_id)) =>
            {
                check.fail(
                    "the owner's first model request of its second run has no peer block naming the question",
                )
            }
            Some(_) => {}
        }
        check.finish("the question reached the owner's model in its next run's first request")
    }

    fn answered(&self, question: Option<&MessageFact>) -> StepVerdict {
        let mut check = Check::new(Step::Answered);
        match (self.after(Turn::OwnerAnswers), question) {
            (Err(reason), _) => check.fail(reason),
            (Ok(_), None) => check.fail("there was no question to answer"),
            (Ok(facts), Some(question)) => {
                let owners = self.owner_ids(facts);
                let answered = facts.messages.iter().any(|m| {
                    m.kind == "answer"
                        && m.in_reply_to.as_deref() == Some(question.message_id.as_str())
                        && owners.contains(&m.from_participant_id.as_str())
                });
                if !answered {
                    check.fail("the owner's participant recorded no answer to the question");
                }
            }
        }
        check.finish("the owner's model answered the question it was shown")
    }

    fn released(&self) -> StepVerdict {
        let mut check = Check::new(Step::Released);
        match self.after(Turn::OwnerAnswers) {
            Err(reason) => check.fail(reason),
            Ok(facts) => {
                if self.owner_claim(Turn::OwnerAnswers).is_some() {
                    check.fail(format!(
                        "the owner's participant still holds its claim on {} after its second run",
                        self.obs.expect.resource
                    ));
                }
                if facts.target.sha256.is_some() {
                    check.fail(format!(
                        "{} was written before the release was observed",
                        self.obs.expect.target
                    ));
                }
            }
        }
        check.finish("the owner's later session released the claim its first session made")
    }

    fn wrote(&self) -> StepVerdict {
        let mut check = Check::new(Step::Wrote);
        match self.after(Turn::AskerWritesAgain) {
            Err(reason) => check.fail(reason),
            Ok(facts) => match &facts.target.sha256 {
                Some(sha) if *sha == self.obs.expect.target_sha256 => {}
                Some(_) => check.fail(format!(
                    "{} does not hold the asker's bytes",
                    self.obs.expect.target
                )),
                None => check.fail(format!(
                    "{} does not exist after the asker's second run",
                    self.obs.expect.target
                )),
            },
        }
        check.finish("after the release the asker's next run wrote the file")
    }
}

fn conversation<'r>(
    run: &'r RunObservation,
    protocol: &str,
) -> impl Iterator<Item = &'r crate::record::kit::observations::RequestFact> {
    let protocol = protocol.parse::<Protocol>().ok();
    run.requests
        .iter()
        .filter(move |r| protocol.is_some_and(|p| is_conversation(p, &r.method, &r.path)))
}

/// Whether the run's first tool result, as its client sent it back in the request that
/// carried the most results, was marked failed.
fn first_tool_result_error(run: &RunObservation, protocol: &str) -> Option<bool> {
    conversation(run, protocol)
        .map(|r| &r.tool_results)
        .max_by_key(|results| results.len())
        .and_then(|results| results.first())
        .map(|result| result.is_error)
}

#[cfg(test)]
mod tests;
