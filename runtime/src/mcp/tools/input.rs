//! Tool arguments as typed values. Arguments are first checked against the published schema,
//! then read into these structs, then checked for the conditional shapes the schema cannot
//! express without a top-level `oneOf`. Every failure here is one [`InvalidArguments`]:
//! under protocol 2025-11-25 it is answered as a tool execution error (`isError: true`), as
//! that revision asks (SEP-1303), so the model can read it and correct its call; under
//! 2025-06-18 it is a JSON-RPC invalid-params error. What the core then refuses (a malformed
//! id, a text rule) is a tool error under both.

use super::Tool;
use super::catalog;
use crate::error::{AccError, ErrorCode};
use crate::mcp::jsonrpc::RpcError;
use crate::mcp::schema::Violation;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SyncArgs {
    pub cursor: Option<String>,
    pub scope: Option<String>,
    pub limit: Option<usize>,
    pub kind: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorkArgs {
    pub summary: Option<String>,
    pub mode: Option<String>,
    pub state: Option<String>,
    pub resource_hints: Option<Vec<String>>,
    pub clear: Option<bool>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ClaimArgs {
    pub action: String,
    pub resource: Option<String>,
    pub claim_id: Option<String>,
    pub mode: Option<String>,
    pub reason: Option<String>,
    pub lease_seconds: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReleaseArgs {
    pub claim_id: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MessageArgs {
    pub to: Vec<String>,
    pub subject: String,
    pub body: String,
    pub kind: Option<String>,
    pub obligation: Option<String>,
    pub supersedes: Option<Vec<String>>,
    pub withdraws: Option<Vec<String>>,
    pub client_message_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RequestArgs {
    pub to_participant_id: String,
    pub title: String,
    pub detail: Option<String>,
    pub client_message_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InboxArgs {
    pub message_id: Option<String>,
    pub cursor: Option<String>,
    pub limit: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplyArgs {
    pub message_id: String,
    pub body: String,
    pub subject: Option<String>,
    pub client_message_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AckArgs {
    pub message_id: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FinishArgs {
    pub goal: String,
    pub status: Option<String>,
    #[serde(default)]
    pub completed: Vec<String>,
    #[serde(default)]
    pub remaining: Vec<String>,
    #[serde(default)]
    pub blockers: Vec<String>,
    pub to_participant_id: Option<String>,
    pub client_message_id: Option<String>,
}

/// A validated call.
#[derive(Debug, Clone, PartialEq)]
pub enum Input {
    Status,
    Sync(SyncArgs),
    Work(WorkArgs),
    Claim(ClaimArgs),
    Release(ReleaseArgs),
    Message(MessageArgs),
    Request(RequestArgs),
    Inbox(InboxArgs),
    Reply(ReplyArgs),
    Ack(AckArgs),
    Finish(FinishArgs),
}

/// Arguments that break a tool's schema or its conditional shapes: the tool and each
/// violation, with a JSON Pointer to the offending property.
#[derive(Debug, Clone, PartialEq)]
pub struct InvalidArguments {
    pub tool: Tool,
    pub violations: Vec<Violation>,
}

impl InvalidArguments {
    /// `invalid arguments for acc_claim: /resource is required with action acquire`
    pub fn message(&self) -> String {
        let listed: Vec<String> = self.violations.iter().map(ToString::to_string).collect();
        format!(
            "invalid arguments for {}: {}",
            self.tool.name(),
            listed.join("; ")
        )
    }

    fn data(&self) -> Value {
        json!({
            "tool": self.tool.name(),
            "violations": self
                .violations
                .iter()
                .map(|v| json!({ "pointer": v.pointer, "problem": v.problem }))
                .collect::<Vec<_>>(),
        })
    }

    /// The JSON-RPC `-32602` error (protocol 2025-06-18), its `data` naming each violation.
    pub fn to_rpc(&self) -> RpcError {
        RpcError::invalid_params(self.message()).with_data(self.data())
    }

    /// The usage error a tool execution error carries (protocol 2025-11-25): exit class 2,
    /// reason `invalid_argument`, the same message, and the violations in its details.
    pub fn to_acc(&self) -> AccError {
        let data = self.data();
        AccError::new(ErrorCode::InvalidArgument, self.message())
            .with("tool", data["tool"].clone())
            .with("violations", data["violations"].clone())
    }
}

fn invalid(tool: Tool, violations: Vec<Violation>) -> InvalidArguments {
    InvalidArguments { tool, violations }
}

fn read<T: DeserializeOwned>(tool: Tool, args: &Value) -> Result<T, InvalidArguments> {
    // The schema check ran first, so this fails only if the structs and schema disagree.
    serde_json::from_value(args.clone())
        .map_err(|e| invalid(tool, vec![Violation::new("", e.to_string())]))
}

/// The properties of `excluded` that appear although `present` rules them out.
fn exclusive(args: &Value, present: &str, excluded: &[&str], why: &str) -> Vec<Violation> {
    if args.get(present).is_none() {
        return Vec::new();
    }
    excluded
        .iter()
        .filter(|k| args.get(**k).is_some())
        .map(|k| Violation::new(format!("/{k}"), format!("is not allowed {why}")))
        .collect()
}

fn conditional(tool: Tool, args: &Value) -> Vec<Violation> {
    let mut out = Vec::new();
    match tool {
        Tool::Work => {
            if args.get("clear") == Some(&Value::Bool(true)) {
                out.extend(exclusive(
                    args,
                    "clear",
                    &["summary", "mode", "state", "resourceHints"],
                    "with clear: true",
                ));
            } else {
                for k in ["summary", "mode"] {
                    if args.get(k).is_none() {
                        out.push(Violation::new(
                            format!("/{k}"),
                            "is required unless clear is true",
                        ));
                    }
                }
            }
        }
        Tool::Claim => {
            let (needed, refused) = match args.get("action").and_then(Value::as_str) {
                Some("renew") => ("claimId", "resource"),
                _ => ("resource", "claimId"),
            };
            let action = if needed == "claimId" {
                "renew"
            } else {
                "acquire"
            };
            if args.get(needed).is_none() {
                out.push(Violation::new(
                    format!("/{needed}"),
                    format!("is required with action {action}"),
                ));
            }
            if args.get(refused).is_some() {
                out.push(Violation::new(
                    format!("/{refused}"),
                    format!("is not allowed with action {action}"),
                ));
            }
        }
        Tool::Inbox => out.extend(exclusive(
            args,
            "messageId",
            &["cursor", "limit"],
            "with messageId",
        )),
        Tool::Message => {
            out.extend(exclusive(
                args,
                "supersedes",
                &["withdraws"],
                "with supersedes",
            ));
            let changes = args.get("supersedes").is_some() || args.get("withdraws").is_some();
            let kind = args.get("kind").and_then(Value::as_str).unwrap_or("note");
            if changes && kind != "decision" {
                let field = if args.get("supersedes").is_some() {
                    "supersedes"
                } else {
                    "withdraws"
                };
                out.push(Violation::new(
                    format!("/{field}"),
                    format!("is allowed only with kind decision, not {kind}"),
                ));
            }
        }
        _ => {}
    }
    out
}

/// Validates `args` (absent means `{}`) for `tool` and reads them.
pub fn parse(tool: Tool, args: Option<&Value>) -> Result<Input, InvalidArguments> {
    let empty = json!({});
    let args = args.unwrap_or(&empty);
    let schema = catalog::entry(tool).schema;
    let mut violations = schema.violations(args);
    if violations.is_empty() {
        violations = conditional(tool, args);
    }
    if !violations.is_empty() {
        return Err(invalid(tool, violations));
    }
    Ok(match tool {
        Tool::Status => Input::Status,
        Tool::Sync => Input::Sync(read(tool, args)?),
        Tool::Work => Input::Work(read(tool, args)?),
        Tool::Claim => Input::Claim(read(tool, args)?),
        Tool::Release => Input::Release(read(tool, args)?),
        Tool::Message => Input::Message(read(tool, args)?),
        Tool::Request => Input::Request(read(tool, args)?),
        Tool::Inbox => Input::Inbox(read(tool, args)?),
        Tool::Reply => Input::Reply(read(tool, args)?),
        Tool::Ack => Input::Ack(read(tool, args)?),
        Tool::Finish => Input::Finish(read(tool, args)?),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(tool: Tool, args: Value) -> String {
        parse(tool, Some(&args)).unwrap_err().message()
    }

    #[test]
    fn conforming_arguments_are_read() {
        assert_eq!(parse(Tool::Status, None).unwrap(), Input::Status);
        let Input::Claim(c) = parse(
            Tool::Claim,
            Some(&json!({"action": "acquire", "resource": "file:a", "leaseSeconds": 60})),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(c.lease_seconds, Some(60));
        let Input::Finish(f) = parse(Tool::Finish, Some(&json!({"goal": "g"}))).unwrap() else {
            panic!()
        };
        assert!(f.completed.is_empty());
    }

    #[test]
    fn work_needs_summary_and_mode_unless_clearing() {
        assert_eq!(
            message(Tool::Work, json!({"summary": "x"})),
            "invalid arguments for acc_work: /mode is required unless clear is true"
        );
        assert_eq!(
            message(Tool::Work, json!({"clear": true, "summary": "x"})),
            "invalid arguments for acc_work: /summary is not allowed with clear: true"
        );
        assert!(parse(Tool::Work, Some(&json!({"clear": true}))).is_ok());
        assert!(
            parse(
                Tool::Work,
                Some(&json!({"clear": false, "summary": "s", "mode": "edit"}))
            )
            .is_ok()
        );
    }

    #[test]
    fn claim_actions_need_their_own_field() {
        assert_eq!(
            message(Tool::Claim, json!({"action": "acquire"})),
            "invalid arguments for acc_claim: /resource is required with action acquire"
        );
        assert_eq!(
            message(
                Tool::Claim,
                json!({"action": "renew", "resource": "file:a"})
            ),
            "invalid arguments for acc_claim: /claimId is required with action renew; /resource is not allowed with action renew"
        );
    }

    #[test]
    fn inbox_exact_read_excludes_paging() {
        assert_eq!(
            message(Tool::Inbox, json!({"messageId": "m", "limit": 3})),
            "invalid arguments for acc_inbox: /limit is not allowed with messageId"
        );
    }

    #[test]
    fn decision_changes_are_one_of_two_and_only_on_decisions() {
        let Input::Message(m) = parse(
            Tool::Message,
            Some(
                &json!({"to": [], "subject": "s", "body": "b", "kind": "decision",
                         "supersedes": ["message_a", "message_b"]}),
            ),
        )
        .unwrap() else {
            panic!()
        };
        assert_eq!(m.supersedes.unwrap(), ["message_a", "message_b"]);
        assert_eq!(
            message(
                Tool::Message,
                json!({"to": [], "subject": "s", "body": "b", "kind": "decision",
                       "supersedes": ["message_a"], "withdraws": ["message_b"]})
            ),
            "invalid arguments for acc_message: /withdraws is not allowed with supersedes"
        );
        assert_eq!(
            message(
                Tool::Message,
                json!({"to": [], "subject": "s", "body": "b", "withdraws": ["message_a"]})
            ),
            "invalid arguments for acc_message: /withdraws is allowed only with kind decision, not note"
        );
        let seventeen: Vec<String> = (0..17).map(|i| format!("message_{i}")).collect();
        let e = message(
            Tool::Message,
            json!({"to": [], "subject": "s", "body": "b", "kind": "decision",
                   "supersedes": seventeen}),
        );
        assert!(e.contains("/supersedes"), "{e}");
        let e = message(
            Tool::Message,
            json!({"to": [], "subject": "s", "body": "b", "kind": "decision",
                   "withdraws": ["message_a", "message_a"]}),
        );
        assert!(e.contains("/withdraws"), "{e}");
        let e = message(
            Tool::Message,
            json!({"to": [], "subject": "s", "body": "b", "kind": "decision", "supersedes": []}),
        );
        assert!(e.contains("/supersedes"), "{e}");
    }

    #[test]
    fn schema_violations_carry_pointers_in_data() {
        let bad = parse(Tool::Ack, Some(&json!({"messageId": "m", "extra": 1}))).unwrap_err();
        let e = bad.to_rpc();
        assert_eq!(e.kind.code(), -32602);
        assert_eq!(e.message, bad.message());
        let data = e.data.unwrap();
        assert_eq!(data["tool"], "acc_ack");
        assert_eq!(data["violations"][0]["pointer"], "/extra");
        let e = parse(Tool::Ack, Some(&json!("m"))).unwrap_err();
        assert_eq!(
            e.message(),
            "invalid arguments for acc_ack: arguments must be an object, got a string"
        );
    }

    #[test]
    fn as_a_tool_error_violations_are_a_usage_error_with_the_same_pointers() {
        let bad = parse(Tool::Claim, Some(&json!({"action": "acquire"}))).unwrap_err();
        let e = bad.to_acc();
        assert_eq!(e.code, ErrorCode::InvalidArgument);
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.message,
            "invalid arguments for acc_claim: /resource is required with action acquire"
        );
        assert_eq!(e.details["tool"], "acc_claim");
        assert_eq!(
            e.details["violations"],
            json!([{"pointer": "/resource", "problem": "is required with action acquire"}])
        );
    }
}
