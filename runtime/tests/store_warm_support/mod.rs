//! Shared by the `store_warm*` tests: the workspace and genesis their stores are opened
//! with, and a write every connection can see.
#![allow(dead_code)]

use acc_runtime::ids::WorkspaceId;
use acc_runtime::store::{Genesis, Store};

pub fn ws() -> WorkspaceId {
    WorkspaceId::parse("ws1").unwrap()
}

pub fn genesis() -> Genesis {
    Genesis {
        now_ms: 1000,
        event_id: "event_genesis".into(),
    }
}

/// Sets `meta.key` to `value` in a write transaction of `store`'s connection.
pub fn put(store: &mut Store, key: &str, value: &str) {
    store
        .write(|c| {
            c.execute(
                "INSERT OR REPLACE INTO meta (key, value) VALUES (?1, ?2)",
                [key, value],
            )?;
            Ok(())
        })
        .unwrap();
}
