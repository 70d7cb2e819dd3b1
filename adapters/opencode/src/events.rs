//! The events acc's plugin hands to `acc-hook`, each named for the plugin hook or bus event
//! of OpenCode (1.18.33) it comes from, and what each means to core.
//!
//! OpenCode runs no hook commands; its plugins get awaited hooks (`chat.message`,
//! `tool.execute.before`, `tool.execute.after`, `dispose`) and bus events (`event`). The
//! plugin (`plugin.js`) sends:
//! - `SessionStart` on `session.created`, or on the first `chat.message` of a session this
//!   process did not create (a resumed one);
//! - `ChatMessage` on `chat.message`, before the user's message is stored and sent;
//! - `ToolExecuteBefore` / `ToolExecuteAfter` around every tool call;
//! - `SessionIdle` on `session.idle`, when a turn is over;
//! - `Heartbeat` every 60 s from a timer in the client's own process;
//! - `SessionEnd` on `session.deleted`, and for every session still open at `dispose`,
//!   when OpenCode shuts the instance down.

acc_sdk::client_events! {
    pub enum ClientEvent {
        SessionStart => SessionStart,
        ChatMessage => BeforeTurn,
        ToolExecuteBefore => BeforeTool [tool],
        ToolExecuteAfter => AfterTool [tool],
        SessionIdle => TurnEnd,
        Heartbeat => Heartbeat,
        SessionEnd => SessionEnd,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_to_its_event() {
        for e in ClientEvent::ALL {
            assert_eq!(ClientEvent::parse(e.name()), Some(e));
        }
        assert_eq!(ClientEvent::parse("tool.execute.before"), None);
        assert_eq!(ClientEvent::parse("PreToolUse"), None);
    }
}
