//! A client's hook events as one table: each event's name as the client spells it, any
//! other spelling it is also sent under, and what it means to core.
//!
//! [`client_events!`](macro@crate::client_events) turns the table into an enum with `ALL`,
//! `name`, `aliases`, `kind`, `has_tool` and `parse`, so an adapter writes only its
//! client's facts.

/// Declares a client's event enum from a table of `Variant | "alias"... => EventKind` rows,
/// `[tool]` after the kind marking an event whose payload must name its tool. The
/// variant's own name is the client's spelling; matching is exact.
///
/// ```
/// acc_sdk::client_events! {
///     /// The events of a made-up client.
///     pub enum ClientEvent {
///         SessionStart => SessionStart,
///         /// Also sent in snake_case.
///         PreToolUse | "pre_tool_use" => BeforeTool [tool],
///         Notification => Other,
///     }
/// }
///
/// use acc_sdk::event::EventKind;
/// assert_eq!(ClientEvent::parse("pre_tool_use"), Some(ClientEvent::PreToolUse));
/// assert_eq!(ClientEvent::parse("PreToolUse").map(ClientEvent::kind), Some(EventKind::BeforeTool));
/// assert_eq!(ClientEvent::parse("notification"), None);
/// assert_eq!(ClientEvent::ALL.len(), 3);
/// assert!(ClientEvent::PreToolUse.has_tool() && !ClientEvent::Notification.has_tool());
/// ```
#[macro_export]
macro_rules! client_events {
    (@has_tool) => {
        false
    };
    (@has_tool tool) => {
        true
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident {
            $(
                $(#[$variant_meta:meta])*
                $variant:ident $(| $alias:literal)* => $kind:ident $([$tool:ident])?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        $vis enum $name {
            $(
                $(#[$variant_meta])*
                $variant,
            )*
        }

        impl $name {
            /// Every event, in table order.
            pub const ALL: [$name; [$(stringify!($variant)),*].len()] = [$($name::$variant),*];

            /// The name as the client spells it.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => stringify!($variant),)*
                }
            }

            /// Other spellings the client sends the event under.
            pub fn aliases(self) -> &'static [&'static str] {
                match self {
                    $($name::$variant => &[$($alias),*],)*
                }
            }

            /// What the event means to core.
            pub fn kind(self) -> $crate::event::EventKind {
                match self {
                    $($name::$variant => $crate::event::EventKind::$kind,)*
                }
            }

            /// Whether the event's payload must name the tool it is about.
            pub fn has_tool(self) -> bool {
                match self {
                    $($name::$variant => $crate::client_events!(@has_tool $($tool)?),)*
                }
            }

            /// The event spelt exactly `name` (case-sensitive), or by one of its aliases.
            pub fn parse(name: &str) -> ::core::option::Option<Self> {
                Self::ALL
                    .into_iter()
                    .find(|e| e.name() == name || e.aliases().contains(&name))
            }
        }

        impl $crate::claude_hooks::HookEvent for $name {
            fn name(self) -> &'static str {
                $name::name(self)
            }

            fn kind(self) -> $crate::event::EventKind {
                $name::kind(self)
            }

            fn has_tool(self) -> bool {
                $name::has_tool(self)
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::event::EventKind;

    crate::client_events! {
        enum Sample {
            Start => SessionStart,
            Stop | "stop" | "halt" => TurnEnd [tool],
            Ping => Other,
        }
    }

    #[test]
    fn the_table_gives_names_kinds_and_order() {
        assert_eq!(Sample::ALL, [Sample::Start, Sample::Stop, Sample::Ping]);
        let names: Vec<&str> = Sample::ALL.iter().map(|e| e.name()).collect();
        assert_eq!(names, ["Start", "Stop", "Ping"]);
        assert_eq!(Sample::Stop.kind(), EventKind::TurnEnd);
        assert_eq!(Sample::Ping.kind(), EventKind::Other);
        assert_eq!(Sample::Start.aliases(), &[] as &[&str]);
        let with_tool: Vec<Sample> = Sample::ALL.into_iter().filter(|e| e.has_tool()).collect();
        assert_eq!(with_tool, [Sample::Stop]);
    }

    #[test]
    fn parsing_is_exact_or_by_alias() {
        for e in Sample::ALL {
            assert_eq!(Sample::parse(e.name()), Some(e));
        }
        assert_eq!(Sample::parse("halt"), Some(Sample::Stop));
        assert_eq!(Sample::parse("stop"), Some(Sample::Stop));
        for unknown in ["start", "STOP", "", "Stop "] {
            assert_eq!(Sample::parse(unknown), None, "{unknown:?}");
        }
    }
}
