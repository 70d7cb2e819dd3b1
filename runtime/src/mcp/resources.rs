//! The three readable resources, each a JSON document of the room as the server's session
//! sees it.

use crate::core::model::SyncScope;
use crate::core::sync::{SyncRequest, SyncResult};
use crate::core::{Core, Owner};
use crate::error::{AccError, ErrorCode, Result};
use serde::Serialize;
use serde_json::{Value, json};

pub const MIME_TYPE: &str = "application/json";

/// One resource of this server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccResource {
    Snapshot,
    Roster,
    Inbox,
}

impl AccResource {
    pub const ALL: [AccResource; 3] = [
        AccResource::Snapshot,
        AccResource::Roster,
        AccResource::Inbox,
    ];

    pub fn uri(self) -> &'static str {
        match self {
            AccResource::Snapshot => "acc://snapshot",
            AccResource::Roster => "acc://roster",
            AccResource::Inbox => "acc://inbox",
        }
    }

    pub fn from_uri(uri: &str) -> Option<AccResource> {
        AccResource::ALL.into_iter().find(|r| r.uri() == uri)
    }

    fn name(self) -> &'static str {
        match self {
            AccResource::Snapshot => "snapshot",
            AccResource::Roster => "roster",
            AccResource::Inbox => "inbox",
        }
    }

    fn title(self) -> &'static str {
        match self {
            AccResource::Snapshot => "Room snapshot",
            AccResource::Roster => "Roster",
            AccResource::Inbox => "Your inbox",
        }
    }

    fn description(self) -> &'static str {
        match self {
            AccResource::Snapshot => {
                "The room as acc_status reports it: sessions with presence and intents, live claims, protection, attention and unread counts."
            }
            AccResource::Roster => {
                "The open sessions of this workspace with their participant, harness, branch and presence, and the current event cursor."
            }
            AccResource::Inbox => {
                "The first page of this participant's unresolved messages (summaries; read one in full with acc_inbox). Reading it attaches this server's session."
            }
        }
    }

    /// Whether reading needs the server's session (and so attaches it).
    pub fn needs_session(self) -> bool {
        self == AccResource::Inbox
    }

    fn definition(self) -> Value {
        json!({
            "uri": self.uri(),
            "name": self.name(),
            "title": self.title(),
            "description": self.description(),
            "mimeType": MIME_TYPE,
        })
    }
}

/// The `resources/list` result.
pub fn list() -> Value {
    json!({ "resources": AccResource::ALL.iter().map(|r| r.definition()).collect::<Vec<_>>() })
}

fn to_value<T: Serialize>(t: &T) -> Result<Value> {
    serde_json::to_value(t)
        .map_err(|e| AccError::new(ErrorCode::StoreIo, format!("could not serialise {e}")))
}

/// The document of `resource`. `owner` is the attached session, when there is one
/// (required for the inbox).
pub fn read(resource: AccResource, core: &mut Core, owner: Option<&Owner>) -> Result<Value> {
    match resource {
        AccResource::Snapshot => to_value(&core.status(owner, false)?),
        AccResource::Roster => {
            let r: SyncResult = core.sync(
                None,
                SyncRequest {
                    scope: SyncScope::Full,
                    ..SyncRequest::default()
                },
            )?;
            Ok(json!({ "cursor": r.cursor, "sessions": to_value(&r.roster)? }))
        }
        AccResource::Inbox => {
            let owner = owner.ok_or_else(|| {
                AccError::new(
                    ErrorCode::CallerIdentityUnresolved,
                    "the inbox needs this server's session",
                )
            })?;
            to_value(&core.inbox(owner, None, None)?)
        }
    }
}

/// The `resources/read` result for one document. Its text is the document's JSON with
/// every hidden character escaped: the same value, nothing a reader cannot see.
pub fn contents(resource: AccResource, document: &Value) -> Value {
    let text = acc_sdk::peer_text::json_escape_hidden(&document.to_string()).into_owned();
    json!({
        "contents": [{
            "uri": resource.uri(),
            "mimeType": MIME_TYPE,
            "text": text,
        }]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_and_only_the_inbox_needs_a_session() {
        for r in AccResource::ALL {
            assert_eq!(AccResource::from_uri(r.uri()), Some(r));
        }
        assert_eq!(AccResource::from_uri("acc://nope"), None);
        let needing: Vec<_> = AccResource::ALL
            .into_iter()
            .filter(|r| r.needs_session())
            .collect();
        assert_eq!(needing, [AccResource::Inbox]);
        assert_eq!(list()["resources"].as_array().unwrap().len(), 3);
    }
}
