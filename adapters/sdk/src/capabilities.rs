//! The fourteen capabilities in four groups, and the set of booleans a manifest declares.
//!
//! Every capability is false by default; a manifest's `capabilities` object names only the
//! ones it turns on, and anything it names must be one of the fourteen.

use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::{MANIFEST_FILE, Problem, ProblemCode};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CapabilityGroup {
    Lifecycle,
    Context,
    Guards,
    Delivery,
}

impl CapabilityGroup {
    pub const ALL: [CapabilityGroup; 4] = [
        CapabilityGroup::Lifecycle,
        CapabilityGroup::Context,
        CapabilityGroup::Guards,
        CapabilityGroup::Delivery,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            CapabilityGroup::Lifecycle => "lifecycle",
            CapabilityGroup::Context => "context",
            CapabilityGroup::Guards => "guards",
            CapabilityGroup::Delivery => "delivery",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|g| g.as_str() == text)
    }

    /// The capabilities of this group, in declaration order.
    pub fn members(self) -> impl Iterator<Item = Capability> {
        Capability::ALL
            .into_iter()
            .filter(move |c| c.group() == self)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Capability {
    SessionStart,
    SessionResume,
    SessionEnd,
    Heartbeat,
    ChildSessions,
    StartupInjection,
    BeforeTurnInjection,
    SafePointInjection,
    BeforeRead,
    BeforeWrite,
    BeforeShell,
    NextTurn,
    LivePush,
    ReplyRoute,
}

impl Capability {
    pub const ALL: [Capability; 14] = [
        Capability::SessionStart,
        Capability::SessionResume,
        Capability::SessionEnd,
        Capability::Heartbeat,
        Capability::ChildSessions,
        Capability::StartupInjection,
        Capability::BeforeTurnInjection,
        Capability::SafePointInjection,
        Capability::BeforeRead,
        Capability::BeforeWrite,
        Capability::BeforeShell,
        Capability::NextTurn,
        Capability::LivePush,
        Capability::ReplyRoute,
    ];

    pub fn group(self) -> CapabilityGroup {
        use Capability::*;
        match self {
            SessionStart | SessionResume | SessionEnd | Heartbeat | ChildSessions => {
                CapabilityGroup::Lifecycle
            }
            StartupInjection | BeforeTurnInjection | SafePointInjection => CapabilityGroup::Context,
            BeforeRead | BeforeWrite | BeforeShell => CapabilityGroup::Guards,
            NextTurn | LivePush | ReplyRoute => CapabilityGroup::Delivery,
        }
    }

    /// The name within its group (`sessionStart`).
    pub fn name(self) -> &'static str {
        use Capability::*;
        match self {
            SessionStart => "sessionStart",
            SessionResume => "sessionResume",
            SessionEnd => "sessionEnd",
            Heartbeat => "heartbeat",
            ChildSessions => "childSessions",
            StartupInjection => "startupInjection",
            BeforeTurnInjection => "beforeTurnInjection",
            SafePointInjection => "safePointInjection",
            BeforeRead => "beforeRead",
            BeforeWrite => "beforeWrite",
            BeforeShell => "beforeShell",
            NextTurn => "nextTurn",
            LivePush => "livePush",
            ReplyRoute => "replyRoute",
        }
    }

    /// `group.name`, as evidence rows and reports spell it.
    pub fn key(self) -> &'static str {
        use Capability::*;
        match self {
            SessionStart => "lifecycle.sessionStart",
            SessionResume => "lifecycle.sessionResume",
            SessionEnd => "lifecycle.sessionEnd",
            Heartbeat => "lifecycle.heartbeat",
            ChildSessions => "lifecycle.childSessions",
            StartupInjection => "context.startupInjection",
            BeforeTurnInjection => "context.beforeTurnInjection",
            SafePointInjection => "context.safePointInjection",
            BeforeRead => "guards.beforeRead",
            BeforeWrite => "guards.beforeWrite",
            BeforeShell => "guards.beforeShell",
            NextTurn => "delivery.nextTurn",
            LivePush => "delivery.livePush",
            ReplyRoute => "delivery.replyRoute",
        }
    }

    /// Parses `group.name`.
    pub fn parse(key: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.key() == key)
    }

    pub fn from_parts(group: CapabilityGroup, name: &str) -> Option<Self> {
        group.members().find(|c| c.name() == name)
    }

    fn index(self) -> usize {
        Self::ALL
            .iter()
            .position(|c| *c == self)
            .expect("every capability is listed")
    }
}

impl std::fmt::Display for Capability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key())
    }
}

impl Serialize for Capability {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.key())
    }
}

/// Fourteen booleans, all false by default.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct CapabilitySet([bool; 14]);

impl CapabilitySet {
    pub fn none() -> Self {
        Self::default()
    }

    pub fn get(&self, cap: Capability) -> bool {
        self.0[cap.index()]
    }

    pub fn set(&mut self, cap: Capability, value: bool) {
        self.0[cap.index()] = value;
    }

    pub fn with(mut self, cap: Capability, value: bool) -> Self {
        self.set(cap, value);
        self
    }

    /// Every capability with its value, in canonical order.
    pub fn iter(&self) -> impl Iterator<Item = (Capability, bool)> + '_ {
        Capability::ALL.into_iter().map(|c| (c, self.get(c)))
    }

    /// The capabilities that are true.
    pub fn enabled(&self) -> impl Iterator<Item = Capability> + '_ {
        self.iter().filter(|(_, on)| *on).map(|(c, _)| c)
    }

    /// The full nested shape: every group with every one of its names.
    pub fn to_json(&self) -> Value {
        let mut groups = Map::new();
        for group in CapabilityGroup::ALL {
            let members: Map<String, Value> = group
                .members()
                .map(|c| (c.name().to_owned(), Value::Bool(self.get(c))))
                .collect();
            groups.insert(group.as_str().to_owned(), Value::Object(members));
        }
        Value::Object(groups)
    }

    /// Reads a manifest's `capabilities` object. Names left out are false. Refuses an
    /// unknown group, an unknown name and a non-boolean value, in the seed's words; every
    /// problem is reported, in document order.
    pub fn from_json(value: &Value) -> Result<Self, Vec<Problem>> {
        let mut set = Self::none();
        let mut problems = Vec::new();
        let problem = |code, field: String, message: String| {
            Problem::new(code, MANIFEST_FILE, field, message)
        };
        let Some(groups) = value.as_object() else {
            return Err(vec![problem(
                ProblemCode::CapabilitiesNotObject,
                "capabilities".into(),
                "capabilities must be an object of groups".into(),
            )]);
        };
        for (group_name, members) in groups {
            let field = format!("capabilities.{group_name}");
            let Some(group) = CapabilityGroup::parse(group_name) else {
                problems.push(problem(
                    ProblemCode::UnknownCapabilityGroup,
                    field,
                    format!("unknown capability group: {group_name}"),
                ));
                continue;
            };
            let Some(members) = members.as_object() else {
                problems.push(problem(
                    ProblemCode::CapabilityGroupNotObject,
                    field,
                    format!("capability group {group_name} must be an object"),
                ));
                continue;
            };
            for (name, flag) in members {
                let field = format!("capabilities.{group_name}.{name}");
                let Some(cap) = Capability::from_parts(group, name) else {
                    problems.push(problem(
                        ProblemCode::UnknownCapability,
                        field,
                        format!("unknown capability: {group_name}.{name}"),
                    ));
                    continue;
                };
                match flag {
                    Value::Bool(on) => set.set(cap, *on),
                    _ => problems.push(problem(
                        ProblemCode::CapabilityNotBoolean,
                        field,
                        format!("capability {} must be a boolean", cap.key()),
                    )),
                }
            }
        }
        if problems.is_empty() {
            Ok(set)
        } else {
            Err(problems)
        }
    }
}

impl Serialize for CapabilitySet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn there_are_fourteen_in_four_groups() {
        let counts: Vec<usize> = CapabilityGroup::ALL
            .iter()
            .map(|g| g.members().count())
            .collect();
        assert_eq!(counts, vec![5, 3, 3, 3]);
        for cap in Capability::ALL {
            assert_eq!(
                cap.key(),
                format!("{}.{}", cap.group().as_str(), cap.name())
            );
            assert_eq!(Capability::parse(cap.key()), Some(cap));
            assert_eq!(Capability::from_parts(cap.group(), cap.name()), Some(cap));
        }
    }

    #[test]
    fn parsing_refuses_unknown_and_cross_group_names() {
        for bad in [
            "lifecycle.nextTurn",
            "delivery.sessionStart",
            "guards",
            "guards.beforeWrite.x",
            "",
            "Guards.beforeWrite",
        ] {
            assert_eq!(Capability::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn sets_default_to_false_and_round_trip_through_json() {
        let set = CapabilitySet::none();
        assert!(Capability::ALL.iter().all(|c| !set.get(*c)));
        let json = json!({"lifecycle": {"sessionStart": true}, "guards": {"beforeWrite": true, "beforeRead": false}});
        let set = CapabilitySet::from_json(&json).unwrap();
        let on: Vec<Capability> = set.enabled().collect();
        assert_eq!(on, vec![Capability::SessionStart, Capability::BeforeWrite]);
        let full = set.to_json();
        assert_eq!(full["delivery"]["nextTurn"], json!(false));
        assert_eq!(full["lifecycle"]["sessionStart"], json!(true));
        assert_eq!(full.as_object().unwrap().len(), 4);
        assert_eq!(CapabilitySet::from_json(&full).unwrap(), set);
    }

    #[test]
    fn refusals_use_the_seed_wording() {
        let cases = [
            (
                json!({"memory": {}}),
                ProblemCode::UnknownCapabilityGroup,
                "unknown capability group: memory",
            ),
            (
                json!({"guards": {"beforeDelete": true}}),
                ProblemCode::UnknownCapability,
                "unknown capability: guards.beforeDelete",
            ),
            (
                json!({"delivery": {"nextTurn": "yes"}}),
                ProblemCode::CapabilityNotBoolean,
                "capability delivery.nextTurn must be a boolean",
            ),
            (
                json!({"delivery": {"nextTurn": 1}}),
                ProblemCode::CapabilityNotBoolean,
                "capability delivery.nextTurn must be a boolean",
            ),
            (
                json!({"delivery": true}),
                ProblemCode::CapabilityGroupNotObject,
                "capability group delivery must be an object",
            ),
            (
                json!([]),
                ProblemCode::CapabilitiesNotObject,
                "capabilities must be an object of groups",
            ),
        ];
        for (input, code, message) in cases {
            let problems = CapabilitySet::from_json(&input).unwrap_err();
            assert_eq!(problems[0].code, code, "{input}");
            assert_eq!(problems[0].message, message);
            assert_eq!(problems[0].file, "adapter.json");
        }
        let problems =
            CapabilitySet::from_json(&json!({"guards": {"x": true, "beforeRead": null}}))
                .unwrap_err();
        let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
        assert_eq!(
            fields,
            vec!["capabilities.guards.x", "capabilities.guards.beforeRead"]
        );
    }
}
