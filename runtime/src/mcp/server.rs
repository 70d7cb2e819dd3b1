//! The request dispatcher: the handshake state, the methods, and the session that tool calls
//! act as.
//!
//! Sequencing rule: until `initialize` has been answered, only `initialize` and `ping` are
//! served; any other request gets `-32600` (invalid request) naming the fix. `-32002` is not
//! used for this because MCP gives that code to "resource not found".

use super::jsonrpc::{self, ErrorKind, Incoming, RequestId, RpcError};
use super::lifecycle::{self, ProtocolVersion};
use super::resources::{self, AccResource};
use super::session::SessionSlot;
use super::settings::Settings;
use super::tools::exec::SessionEffect;
use super::tools::{self, Tool, input, outcome};
use crate::env::Env;
use crate::error::{AccError, Result};
use crate::store::OpenMode;
use serde_json::{Map, Value, json};
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    AwaitingInitialize,
    Ready(ProtocolVersion),
}

/// One server: its handshake state, its settings, and its session.
pub struct Server {
    phase: Phase,
    settings: std::result::Result<Settings, AccError>,
    session: SessionSlot,
}

type Reply = std::result::Result<Value, RpcError>;

impl Server {
    /// A server for `env`, started in `cwd`. Bad settings do not stop it: they are reported
    /// on every call that needs them, so the client shows the reason to its user.
    pub fn new(env: &Env, cwd: &Path) -> Server {
        Server {
            phase: Phase::AwaitingInitialize,
            settings: Settings::from_env(env, cwd),
            session: SessionSlot::default(),
        }
    }

    /// Why the settings are unusable, if they are.
    pub fn settings_problem(&self) -> Option<&AccError> {
        self.settings.as_ref().err()
    }

    /// The negotiated protocol version, once initialized.
    pub fn protocol_version(&self) -> Option<ProtocolVersion> {
        match self.phase {
            Phase::Ready(v) => Some(v),
            Phase::AwaitingInitialize => None,
        }
    }

    /// Serves one line; returns the reply to write, if any.
    pub fn handle_line(&mut self, line: &str) -> Option<Value> {
        match jsonrpc::classify(line) {
            Err(reply) => Some(reply),
            Ok(Incoming::Notification { .. } | Incoming::ClientResponse) => None,
            Ok(Incoming::Request { id, method, params }) => {
                Some(self.answer(&id, &method, params.as_ref()))
            }
        }
    }

    /// A reply to a frame that could not be read as text.
    pub fn unreadable(why: &str) -> Value {
        jsonrpc::error_reply(None, &RpcError::new(ErrorKind::ParseError, why))
    }

    fn answer(
        &mut self,
        id: &RequestId,
        method: &str,
        params: Option<&Map<String, Value>>,
    ) -> Value {
        match self.dispatch(method, params) {
            Ok(result) => jsonrpc::result_reply(id, result),
            Err(e) => jsonrpc::error_reply(Some(id), &e),
        }
    }

    fn dispatch(&mut self, method: &str, params: Option<&Map<String, Value>>) -> Reply {
        match (method, self.phase) {
            ("ping", _) => Ok(json!({})),
            ("initialize", Phase::AwaitingInitialize) => {
                let (version, result) = lifecycle::initialize(params)?;
                self.phase = Phase::Ready(version);
                Ok(result)
            }
            ("initialize", Phase::Ready(_)) => Err(RpcError::new(
                ErrorKind::InvalidRequest,
                "the server is already initialized; initialize is sent once per connection",
            )),
            (_, Phase::AwaitingInitialize) => Err(RpcError::new(
                ErrorKind::InvalidRequest,
                format!("{method} before initialize: send initialize first"),
            )),
            ("tools/list", _) => {
                refuse_cursor(params)?;
                Ok(tools::list())
            }
            ("tools/call", Phase::Ready(version)) => self.call_tool(version, params),
            ("resources/list", _) => {
                refuse_cursor(params)?;
                Ok(resources::list())
            }
            ("resources/templates/list", _) => {
                refuse_cursor(params)?;
                Ok(json!({ "resourceTemplates": [] }))
            }
            ("resources/read", _) => self.read_resource(params),
            _ => Err(RpcError::new(
                ErrorKind::MethodNotFound,
                format!("method not found: {method}"),
            )),
        }
    }

    fn call_tool(
        &mut self,
        version: ProtocolVersion,
        params: Option<&Map<String, Value>>,
    ) -> Reply {
        let params = params
            .ok_or_else(|| RpcError::invalid_params("tools/call needs params with a name"))?;
        let name = match params.get("name") {
            Some(Value::String(n)) => n.as_str(),
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "name must be a string, got {other}"
                )));
            }
            None => return Err(RpcError::invalid_params("tools/call needs a tool name")),
        };
        let tool = Tool::from_name(name).ok_or_else(|| {
            RpcError::invalid_params(format!("unknown tool: {name}")).with_data(json!({
                "tool": name,
                "tools": Tool::ALL.iter().map(|t| t.name()).collect::<Vec<_>>(),
            }))
        })?;
        let args = match params.get("arguments") {
            None | Some(Value::Null) => None,
            Some(a) => Some(a),
        };
        let input = match input::parse(tool, args) {
            Ok(input) => input,
            Err(bad) if version.argument_errors_are_tool_errors() => {
                return Ok(outcome::failure(&bad.to_acc()));
            }
            Err(bad) => return Err(bad.to_rpc()),
        };
        Ok(match self.run_tool(input) {
            Ok(value) => outcome::success(value),
            Err(e) => outcome::failure(&e),
        })
    }

    fn run_tool(&mut self, input: input::Input) -> Result<Value> {
        let settings = self.settings.as_ref().map_err(Clone::clone)?;
        let attached = self.session.ensure(settings)?;
        match tools::exec::run(&mut attached.core, &attached.owner, input) {
            Ok(mut done) => {
                if let Some((m, duplicate)) = &done.sent {
                    let live = crate::live::router::offer_committed(
                        settings.env(),
                        &mut attached.core,
                        &attached.owner,
                        m,
                        *duplicate,
                    );
                    done.value["live"] = serde_json::to_value(live).unwrap_or_default();
                }
                match done.effect {
                    SessionEffect::Kept => {}
                    SessionEffect::Closed => self.session.forget(),
                    SessionEffect::RetriedFinish => {
                        if let Some(Err(e)) = self.session.detach() {
                            log(&format!("could not close the session: {}", e.message));
                        }
                    }
                }
                Ok(done.value)
            }
            Err(e) => {
                self.session.note_failure(e.code);
                Err(e)
            }
        }
    }

    fn read_resource(&mut self, params: Option<&Map<String, Value>>) -> Reply {
        let uri = match params.and_then(|p| p.get("uri")) {
            Some(Value::String(u)) => u.as_str(),
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "uri must be a string, got {other}"
                )));
            }
            None => return Err(RpcError::invalid_params("resources/read needs a uri")),
        };
        let resource = AccResource::from_uri(uri).ok_or_else(|| {
            RpcError::new(
                ErrorKind::ResourceNotFound,
                format!("resource not found: {uri}"),
            )
            .with_data(json!({ "uri": uri }))
        })?;
        let document = self.resource_document(resource).map_err(|e| {
            RpcError::new(ErrorKind::InternalError, e.message.clone())
                .with_data(outcome::error_object(&e))
        })?;
        Ok(resources::contents(resource, &document))
    }

    fn resource_document(&mut self, resource: AccResource) -> Result<Value> {
        let settings = self.settings.as_ref().map_err(Clone::clone)?;
        if resource.needs_session() {
            self.session.ensure(settings)?;
        }
        let result = match self.session.current() {
            Some(a) => resources::read(resource, &mut a.core, Some(&a.owner)),
            // Without a session, look without creating anything on disk.
            None => {
                let mut core = settings.open_core(OpenMode::ReadOnly)?;
                resources::read(resource, &mut core, None)
            }
        };
        if let Err(e) = &result {
            self.session.note_failure(e.code);
        }
        result
    }

    /// The handle a signal thread closes this server's session through.
    pub fn last_word(&self) -> super::session::LastWord {
        self.session.last_word()
    }

    /// Closes the session, if one is attached (end of input).
    pub fn shutdown(&mut self) -> Option<Result<()>> {
        self.session.detach()
    }
}

/// Every listing here fits on one page, so any cursor is one this server never issued.
fn refuse_cursor(params: Option<&Map<String, Value>>) -> std::result::Result<(), RpcError> {
    match params.and_then(|p| p.get("cursor")) {
        None | Some(Value::Null) => Ok(()),
        Some(c) => Err(RpcError::invalid_params(format!(
            "unknown cursor {c}: every list fits on one page"
        ))),
    }
}

/// One line on stderr; stdout carries only JSON-RPC. Errors may quote the store, so what
/// is hidden in the line is escaped.
pub fn log(line: &str) {
    use std::io::Write;
    let line = acc_sdk::peer_text::escape_hidden(line);
    let _ = writeln!(std::io::stderr(), "acc-mcp: {line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn server() -> (Server, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let env = Env::new().with("ACC_DATA_HOME", "/nonexistent-acc-mcp-test-home");
        (Server::new(&env, dir.path()), dir)
    }

    #[test]
    fn the_negotiated_version_is_kept_and_notifications_get_nothing() {
        let (mut s, _dir) = server();
        assert_eq!(s.protocol_version(), None);
        assert_eq!(
            s.handle_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#),
            None
        );
        let r = s
            .handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}"#)
            .unwrap();
        assert_eq!(r["result"]["protocolVersion"], "2025-06-18");
        assert_eq!(s.protocol_version(), Some(ProtocolVersion::V2025_06_18));
        assert_eq!(
            s.handle_line(
                r#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"acc_status"}}"#
            ),
            None,
            "a notification is never answered, not even a misdirected call"
        );
    }

    #[test]
    fn settings_problems_surface_as_tool_errors() {
        let dir = tempfile::tempdir().unwrap();
        let env = Env::new().with(crate::mcp::settings::WORKSPACE_VAR, "not/absolute");
        let mut s = Server::new(&env, dir.path());
        assert!(s.settings_problem().is_some());
        s.handle_line(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}"#);
        let r = s
            .handle_line(
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"acc_status"}}"#,
            )
            .unwrap();
        assert_eq!(r["result"]["isError"], true);
        assert_eq!(r["result"]["structuredContent"]["error"]["code"], 2);
        assert!(s.shutdown().is_none(), "nothing was attached");
    }
}
