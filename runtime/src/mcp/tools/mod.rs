//! The eleven tools: their names, their published definitions, their typed inputs, how each
//! runs against the core, and how a result or an acc error becomes a `tools/call` result.

pub mod catalog;
pub mod exec;
pub mod input;
pub mod outcome;

use serde_json::{Value, json};

/// One tool of this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tool {
    Status,
    Sync,
    Work,
    Claim,
    Release,
    Message,
    Request,
    Inbox,
    Reply,
    Ack,
    Finish,
}

impl Tool {
    /// In the order `tools/list` publishes them.
    pub const ALL: [Tool; 11] = [
        Tool::Status,
        Tool::Sync,
        Tool::Work,
        Tool::Claim,
        Tool::Release,
        Tool::Message,
        Tool::Request,
        Tool::Inbox,
        Tool::Reply,
        Tool::Ack,
        Tool::Finish,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tool::Status => "acc_status",
            Tool::Sync => "acc_sync",
            Tool::Work => "acc_work",
            Tool::Claim => "acc_claim",
            Tool::Release => "acc_release",
            Tool::Message => "acc_message",
            Tool::Request => "acc_request",
            Tool::Inbox => "acc_inbox",
            Tool::Reply => "acc_reply",
            Tool::Ack => "acc_ack",
            Tool::Finish => "acc_finish",
        }
    }

    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The definition `tools/list` publishes.
    pub fn definition(self) -> Value {
        let entry = catalog::entry(self);
        json!({
            "name": self.name(),
            "title": entry.title,
            "description": entry.description,
            "inputSchema": entry.schema.to_json(),
            "annotations": entry.hints.to_json(),
        })
    }
}

/// The `tools/list` result: every tool, on one page.
pub fn list() -> Value {
    json!({ "tools": Tool::ALL.iter().map(|t| t.definition()).collect::<Vec<_>>() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_are_unique() {
        for t in Tool::ALL {
            assert_eq!(Tool::from_name(t.name()), Some(t));
        }
        assert_eq!(Tool::from_name("acc_nope"), None);
        let list = list();
        let names: Vec<&str> = list["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.len(), 11);
        let mut sorted = names.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 11);
    }

    #[test]
    fn every_schema_is_closed() {
        for t in Tool::ALL {
            let d = t.definition();
            assert_eq!(d["inputSchema"]["type"], "object", "{}", t.name());
            assert_eq!(
                d["inputSchema"]["additionalProperties"],
                false,
                "{}",
                t.name()
            );
            assert!(d["inputSchema"]["required"].is_array(), "{}", t.name());
            assert!(
                !d["description"].as_str().unwrap().is_empty(),
                "{}",
                t.name()
            );
        }
    }
}
