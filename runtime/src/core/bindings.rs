//! Hook bindings: which acc session a client's own session id maps to, so every hook
//! invocation of one client conversation acts as the same acc session and generation.

use super::sessions::check_owner;
use super::{Core, Owner};
use crate::clock::to_iso;
use crate::error::Result;
use crate::ids::{Generation, SessionId, check_portable_id};
use crate::store::engine::{OptionalExtension, params};
use crate::text;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// The binding key of a client session id: the first 32 hex digits of its sha256, so the raw
/// client id is never stored.
pub fn binding_key(client_session_id: &str) -> String {
    crate::ids::lower_hex(&Sha256::digest(client_session_id.as_bytes())[..16])
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookBinding {
    pub binding_key: String,
    pub session_id: SessionId,
    pub generation: Generation,
    pub client_name: String,
    pub client_version: Option<String>,
    pub client_pid: Option<u32>,
    pub updated_at: String,
}

/// Whether any hook binding is recorded: one row read. The claims proof asks it too, on the
/// same connection, so a claim compiles it once.
pub(crate) const ANY_BINDING: &str = "SELECT EXISTS (SELECT 1 FROM hook_bindings)";

impl Core {
    /// Binds `key` to the owner session (which must be open at that generation).
    pub fn put_binding(
        &mut self,
        key: &str,
        owner: &Owner,
        client_name: &str,
        client_version: Option<&str>,
        client_pid: Option<u32>,
    ) -> Result<HookBinding> {
        check_portable_id("binding key", key)?;
        text::check_line("client name", client_name)?;
        if let Some(v) = client_version {
            text::check_line("client version", v)?;
        }
        let now = self.ports.now();
        self.store.write(|tx| {
            check_owner(tx, owner)?;
            tx.execute(
                "INSERT INTO hook_bindings (binding_key, session_id, generation, client_name,
                    client_version, client_pid, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
                 ON CONFLICT (binding_key) DO UPDATE SET session_id = excluded.session_id,
                    generation = excluded.generation, client_name = excluded.client_name,
                    client_version = excluded.client_version, client_pid = excluded.client_pid,
                    updated_at = excluded.updated_at",
                params![
                    key,
                    owner.session.as_str(),
                    owner.generation.as_str(),
                    client_name,
                    client_version,
                    client_pid.map(|p| p as i64),
                    now
                ],
            )?;
            Ok(HookBinding {
                binding_key: key.to_string(),
                session_id: owner.session.clone(),
                generation: owner.generation.clone(),
                client_name: client_name.to_string(),
                client_version: client_version.map(str::to_string),
                client_pid,
                updated_at: to_iso(now),
            })
        })
    }

    /// The binding stored under `key`, if any.
    pub fn binding(&mut self, key: &str) -> Result<Option<HookBinding>> {
        self.store.read(|c| {
            Ok(c.prepare_cached(
                "SELECT binding_key, session_id, generation, client_name, client_version,
                    client_pid, updated_at FROM hook_bindings WHERE binding_key = ?1",
            )?
            .query_row(params![key], |r| {
                Ok(HookBinding {
                    binding_key: r.get(0)?,
                    session_id: SessionId::from_store(r.get(1)?),
                    generation: Generation::from_store(r.get(2)?),
                    client_name: r.get(3)?,
                    client_version: r.get(4)?,
                    client_pid: r.get::<_, Option<i64>>(5)?.map(|p| p as u32),
                    updated_at: to_iso(r.get(6)?),
                })
            })
            .optional()?)
        })
    }

    /// Whether any hook binding is recorded: without one (and without a pin naming a client
    /// process) no hooked client is known, and a command's caller needs no judging against
    /// one ([`Self::hooked_client_pids`], [`Self::client_pid_of_session`] are then empty).
    pub fn has_hook_bindings(&mut self) -> Result<bool> {
        self.store
            .read(|c| Ok(c.prepare_cached(ANY_BINDING)?.query_row([], |r| r.get(0))?))
    }

    /// Every client pid a hook binding recorded, whatever its session's state: a process
    /// that ran a hooked conversation is an agent's client for as long as it lives. A client
    /// whose hooks run under a shared host (Codex's app-server daemon, which also runs its
    /// agents' shell commands) records no client pid; its session's host counts instead.
    pub fn hooked_client_pids(&mut self) -> Result<Vec<u32>> {
        self.store.read(|c| {
            let mut stmt = c.prepare_cached(
                "SELECT client_pid FROM hook_bindings WHERE client_pid IS NOT NULL
                 UNION
                 SELECT CAST(json_extract(s.extensions, '$.client.hostPid') AS INTEGER)
                   FROM hook_bindings b JOIN sessions s ON s.session_id = b.session_id
                  WHERE b.client_pid IS NULL
                    AND json_extract(s.extensions, '$.client.hostPid') IS NOT NULL
                 ORDER BY 1",
            )?;
            let pids = stmt
                .query_map([], |r| r.get::<_, i64>(0))?
                .filter_map(|p| p.ok().and_then(|p| u32::try_from(p).ok()))
                .collect();
            Ok(pids)
        })
    }

    /// The sessions a hooked client process acts as: every session a hook binding of
    /// `client_pid` names, and their child sessions (subagents), whatever their state.
    pub fn sessions_of_client(&mut self, client_pid: u32) -> Result<Vec<SessionId>> {
        self.store.read(|c| {
            let mut stmt = c.prepare_cached(
                "WITH own(id) AS (
                    SELECT session_id FROM hook_bindings WHERE client_pid = ?1
                    UNION
                    SELECT b.session_id FROM hook_bindings b
                      JOIN sessions s ON s.session_id = b.session_id
                     WHERE b.client_pid IS NULL
                       AND CAST(json_extract(s.extensions, '$.client.hostPid') AS INTEGER) = ?1)
                 SELECT id FROM own
                 UNION SELECT session_id FROM sessions WHERE parent_session_id IN own",
            )?;
            let ids = stmt
                .query_map(params![i64::from(client_pid)], |r| r.get::<_, String>(0))?
                .filter_map(|id| id.ok().map(SessionId::from_store))
                .collect();
            Ok(ids)
        })
    }

    /// The client process a hook recorded for `session` (or for the parent it runs under, a
    /// subagent's), the newest binding's, else the shared host its hooks ran under; `None`
    /// when no hook bound it with either.
    pub fn client_pid_of_session(&mut self, session: &SessionId) -> Result<Option<u32>> {
        self.store.read(|c| {
            let pid: Option<i64> = c
                .prepare_cached(
                    "SELECT coalesce(b.client_pid,
                                     CAST(json_extract(s.extensions, '$.client.hostPid') AS INTEGER))
                       FROM hook_bindings b JOIN sessions s ON s.session_id = b.session_id
                      WHERE (b.session_id = ?1 OR b.session_id =
                             (SELECT parent_session_id FROM sessions WHERE session_id = ?1))
                        AND (b.client_pid IS NOT NULL
                             OR json_extract(s.extensions, '$.client.hostPid') IS NOT NULL)
                      ORDER BY b.updated_at DESC LIMIT 1",
                )?
                .query_row(params![session.as_str()], |r| r.get(0))
                .optional()?;
            Ok(pid.and_then(|p| u32::try_from(p).ok()))
        })
    }

    /// Removes the binding under `key`; returns whether there was one.
    pub fn delete_binding(&mut self, key: &str) -> Result<bool> {
        self.store.write(|tx| {
            Ok(tx.execute(
                "DELETE FROM hook_bindings WHERE binding_key = ?1",
                params![key],
            )? > 0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::testkit::kit;

    #[test]
    fn keys_are_32_hex_digits() {
        let k = binding_key("8f2c-client-session");
        assert_eq!(k.len(), 32);
        assert!(k.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(k, binding_key("8f2c-client-session"));
        assert_ne!(k, binding_key("other"));
    }

    #[test]
    fn a_session_whose_hooks_ran_under_a_shared_host_counts_that_host_as_its_client() {
        use crate::core::sessions::OpenSession;
        use crate::ids::ParticipantId;
        let mut kit = kit();
        let mut req = OpenSession::new(ParticipantId::parse("codex").unwrap(), "hook", 60_000);
        req.extensions.insert(
            "client".into(),
            serde_json::json!({"name": "codex", "pid": null, "hostPid": 58}),
        );
        kit.pids.0.lock().unwrap().insert(58);
        let s = kit.core.open_session(req).unwrap();
        let owner = Owner::new(s.session_id.clone(), s.generation.clone());
        kit.core
            .put_binding(&binding_key("thread-1"), &owner, "codex-cli", None, None)
            .unwrap();
        let other = kit.attach("alice");
        kit.core
            .put_binding(
                &binding_key("conv-2"),
                &other,
                "claude-code",
                None,
                Some(99),
            )
            .unwrap();
        assert_eq!(kit.core.hooked_client_pids().unwrap(), vec![58, 99]);
        assert_eq!(
            kit.core.sessions_of_client(58).unwrap(),
            vec![s.session_id.clone()]
        );
        assert_eq!(
            kit.core.client_pid_of_session(&s.session_id).unwrap(),
            Some(58)
        );
        assert_eq!(
            kit.core.client_pid_of_session(&other.session).unwrap(),
            Some(99)
        );
    }

    #[test]
    fn put_get_delete() {
        let mut kit = kit();
        let o = kit.attach("alice");
        let key = binding_key("client-1");
        assert!(kit.core.binding(&key).unwrap().is_none());
        kit.core
            .put_binding(&key, &o, "claude-code", Some("2.1.332"), Some(99))
            .unwrap();
        let b = kit.core.binding(&key).unwrap().unwrap();
        assert_eq!(b.session_id, o.session);
        assert_eq!(b.client_pid, Some(99));
        assert_eq!(kit.core.hooked_client_pids().unwrap(), vec![99]);
        assert!(kit.core.delete_binding(&key).unwrap());
        assert!(!kit.core.delete_binding(&key).unwrap());
        kit.core.close_session(&o, None).unwrap();
        assert_eq!(
            kit.core
                .put_binding(&key, &o, "x", None, None)
                .unwrap_err()
                .exit_code(),
            5
        );
    }
}
