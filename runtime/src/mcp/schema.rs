//! The closed input schemas of the MCP tools, as typed values.
//!
//! One [`ObjectSchema`] value is both what `tools/list` publishes (as JSON Schema) and what
//! `tools/call` enforces, so the advertised contract and the checked one cannot drift. Only
//! the few constructs the tools need exist: strings (length bounds, enums), integers
//! (bounds), booleans and arrays of strings (item bounds, uniqueness), inside one object that
//! never admits an undeclared property.
//!
//! There is deliberately no top-level `oneOf`: several model APIs refuse a tool whose input
//! schema has one, which would make the whole server unusable for those clients. Conditional
//! shapes (`acc_work`, `acc_claim`, `acc_inbox`) are checked by the tool inputs instead.

use serde_json::{Map, Value, json};

/// The rules of one string value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Text {
    pub min_len: usize,
    pub max_len: usize,
    /// Allowed spellings; empty means any.
    pub choices: &'static [&'static str],
}

impl Text {
    /// A string of `min_len..=max_len` characters.
    pub const fn bounded(min_len: usize, max_len: usize) -> Text {
        Text {
            min_len,
            max_len,
            choices: &[],
        }
    }

    /// One of `choices`.
    pub const fn one_of(choices: &'static [&'static str]) -> Text {
        Text {
            min_len: 0,
            max_len: 0,
            choices,
        }
    }

    fn to_json(self, into: &mut Map<String, Value>) {
        into.insert("type".into(), json!("string"));
        if self.choices.is_empty() {
            into.insert("minLength".into(), json!(self.min_len));
            into.insert("maxLength".into(), json!(self.max_len));
        } else {
            into.insert("enum".into(), json!(self.choices));
        }
    }

    fn check(self, v: &Value) -> Result<(), String> {
        let Some(s) = v.as_str() else {
            return Err(format!("must be a string, got {}", kind_of(v)));
        };
        if !self.choices.is_empty() {
            if self.choices.contains(&s) {
                return Ok(());
            }
            return Err(format!(
                "must be one of {}, got {s:?}",
                self.choices.join(", ")
            ));
        }
        let n = s.chars().count();
        if self.min_len == self.max_len && n != self.min_len {
            return Err(format!(
                "must be exactly {} characters long, got {n}",
                self.min_len
            ));
        }
        if n == 0 && self.min_len > 0 {
            return Err("must not be empty".to_string());
        }
        if n < self.min_len {
            return Err(format!(
                "must be at least {} characters long, got {n}",
                self.min_len
            ));
        }
        if n > self.max_len {
            return Err(format!(
                "must be at most {} characters long, got {n}",
                self.max_len
            ));
        }
        Ok(())
    }
}

/// What a property holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text(Text),
    Integer {
        min: u64,
        max: u64,
    },
    Boolean,
    TextList {
        item: Text,
        min_items: usize,
        max_items: usize,
        unique: bool,
    },
}

impl Kind {
    fn to_json(self, into: &mut Map<String, Value>) {
        match self {
            Kind::Text(t) => t.to_json(into),
            Kind::Integer { min, max } => {
                into.insert("type".into(), json!("integer"));
                into.insert("minimum".into(), json!(min));
                into.insert("maximum".into(), json!(max));
            }
            Kind::Boolean => {
                into.insert("type".into(), json!("boolean"));
            }
            Kind::TextList {
                item,
                min_items,
                max_items,
                unique,
            } => {
                into.insert("type".into(), json!("array"));
                let mut items = Map::new();
                item.to_json(&mut items);
                into.insert("items".into(), Value::Object(items));
                into.insert("minItems".into(), json!(min_items));
                into.insert("maxItems".into(), json!(max_items));
                if unique {
                    into.insert("uniqueItems".into(), json!(true));
                }
            }
        }
    }

    fn check(self, v: &Value) -> Result<(), String> {
        match self {
            Kind::Text(t) => t.check(v),
            Kind::Integer { min, max } => {
                let out_of_range = |n: &dyn std::fmt::Display| {
                    Err(format!("must be between {min} and {max}, got {n}"))
                };
                match (v.as_u64(), v.as_i64()) {
                    (Some(n), _) if (min..=max).contains(&n) => Ok(()),
                    (Some(n), _) => out_of_range(&n),
                    (None, Some(negative)) => out_of_range(&negative),
                    (None, None) => Err(format!("must be an integer, got {}", kind_of(v))),
                }
            }
            Kind::Boolean => match v {
                Value::Bool(_) => Ok(()),
                other => Err(format!("must be a boolean, got {}", kind_of(other))),
            },
            Kind::TextList {
                item,
                min_items,
                max_items,
                unique,
            } => {
                let Some(list) = v.as_array() else {
                    return Err(format!("must be an array, got {}", kind_of(v)));
                };
                if list.len() < min_items || list.len() > max_items {
                    return Err(format!(
                        "must hold {min_items} to {max_items} item(s), got {}",
                        list.len()
                    ));
                }
                for (i, x) in list.iter().enumerate() {
                    item.check(x).map_err(|why| format!("item {i} {why}"))?;
                }
                if unique {
                    for (i, x) in list.iter().enumerate() {
                        if list[..i].contains(x) {
                            return Err(format!("item {i} repeats an earlier item"));
                        }
                    }
                }
                Ok(())
            }
        }
    }
}

/// One declared property.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Property {
    pub name: &'static str,
    pub description: &'static str,
    pub kind: Kind,
}

/// A closed object: only the declared properties, the required ones present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectSchema {
    pub properties: Vec<Property>,
    pub required: &'static [&'static str],
}

/// One way the arguments break the schema. `pointer` is a JSON Pointer into the arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub pointer: String,
    pub problem: String,
}

impl Violation {
    pub fn new(pointer: impl Into<String>, problem: impl Into<String>) -> Self {
        Violation {
            pointer: pointer.into(),
            problem: problem.into(),
        }
    }
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.pointer.is_empty() {
            f.write_str(&self.problem)
        } else {
            write!(f, "{} {}", self.pointer, self.problem)
        }
    }
}

fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(n) if n.is_f64() => "a fractional number",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

impl ObjectSchema {
    /// The JSON Schema published in `tools/list`.
    pub fn to_json(&self) -> Value {
        let mut props = Map::new();
        for p in &self.properties {
            let mut one = Map::new();
            p.kind.to_json(&mut one);
            one.insert("description".into(), json!(p.description));
            props.insert(p.name.into(), Value::Object(one));
        }
        json!({
            "type": "object",
            "properties": props,
            "required": self.required,
            "additionalProperties": false,
        })
    }

    /// Every violation of `args`, in a stable order: undeclared properties (in argument
    /// order), then declared ones with a wrong value, then missing required ones.
    pub fn violations(&self, args: &Value) -> Vec<Violation> {
        let Some(obj) = args.as_object() else {
            return vec![Violation::new(
                "",
                format!("arguments must be an object, got {}", kind_of(args)),
            )];
        };
        let mut out = Vec::new();
        for key in obj.keys() {
            if !self.properties.iter().any(|p| p.name == key) {
                let allowed: Vec<&str> = self.properties.iter().map(|p| p.name).collect();
                let allowed = if allowed.is_empty() {
                    "this tool takes no arguments".to_string()
                } else {
                    format!("allowed: {}", allowed.join(", "))
                };
                out.push(Violation::new(
                    format!("/{}", escape_pointer(key)),
                    format!("is not a property of this tool ({allowed})"),
                ));
            }
        }
        for p in &self.properties {
            if let Some(v) = obj.get(p.name)
                && let Err(problem) = p.kind.check(v)
            {
                out.push(Violation::new(format!("/{}", p.name), problem));
            }
        }
        for name in self.required {
            if !obj.contains_key(*name) {
                out.push(Violation::new(format!("/{name}"), "is required"));
            }
        }
        out
    }
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schema() -> ObjectSchema {
        ObjectSchema {
            properties: vec![
                Property {
                    name: "name",
                    description: "a name",
                    kind: Kind::Text(Text::bounded(1, 5)),
                },
                Property {
                    name: "mode",
                    description: "a mode",
                    kind: Kind::Text(Text::one_of(&["a", "b"])),
                },
                Property {
                    name: "limit",
                    description: "a limit",
                    kind: Kind::Integer { min: 1, max: 10 },
                },
                Property {
                    name: "flag",
                    description: "a flag",
                    kind: Kind::Boolean,
                },
                Property {
                    name: "list",
                    description: "a list",
                    kind: Kind::TextList {
                        item: Text::bounded(1, 3),
                        min_items: 1,
                        max_items: 2,
                        unique: true,
                    },
                },
            ],
            required: &["name"],
        }
    }

    fn problems(args: Value) -> Vec<String> {
        schema()
            .violations(&args)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn publishes_a_closed_object_with_bounds() {
        let j = schema().to_json();
        assert_eq!(j["additionalProperties"], false);
        assert_eq!(j["required"], json!(["name"]));
        assert_eq!(j["properties"]["name"]["maxLength"], 5);
        assert_eq!(j["properties"]["mode"]["enum"], json!(["a", "b"]));
        assert_eq!(j["properties"]["limit"]["minimum"], 1);
        assert_eq!(j["properties"]["list"]["items"]["type"], "string");
        assert_eq!(j["properties"]["list"]["uniqueItems"], true);
        let names: Vec<&String> = j["properties"].as_object().unwrap().keys().collect();
        assert_eq!(names, ["name", "mode", "limit", "flag", "list"]);
    }

    #[test]
    fn accepts_a_conforming_object() {
        let ok = json!({"name": "x", "mode": "b", "limit": 10, "flag": false, "list": ["a", "bb"]});
        assert!(problems(ok).is_empty());
    }

    #[test]
    fn reports_every_violation_in_order() {
        let got = problems(json!({"zzz": 1, "mode": "c", "limit": 0}));
        assert_eq!(
            got,
            [
                "/zzz is not a property of this tool (allowed: name, mode, limit, flag, list)",
                "/mode must be one of a, b, got \"c\"",
                "/limit must be between 1 and 10, got 0",
                "/name is required",
            ]
        );
    }

    #[test]
    fn checks_types_lengths_and_items() {
        assert_eq!(problems(json!({"name": ""})), ["/name must not be empty"]);
        let exact = ObjectSchema {
            properties: vec![Property {
                name: "code",
                description: "four digits",
                kind: Kind::Text(Text::bounded(4, 4)),
            }],
            required: &[],
        };
        assert_eq!(
            exact.violations(&json!({"code": "12"}))[0].to_string(),
            "/code must be exactly 4 characters long, got 2"
        );
        let ranged = ObjectSchema {
            properties: vec![Property {
                name: "word",
                description: "two to five",
                kind: Kind::Text(Text::bounded(2, 5)),
            }],
            required: &[],
        };
        assert_eq!(
            ranged.violations(&json!({"word": "x"}))[0].to_string(),
            "/word must be at least 2 characters long, got 1"
        );
        assert_eq!(
            problems(json!({"name": "toolong"})),
            ["/name must be at most 5 characters long, got 7"]
        );
        assert_eq!(
            problems(json!({"name": 3})),
            ["/name must be a string, got a number"]
        );
        assert_eq!(
            problems(json!({"name": "x", "limit": 2.5})),
            ["/limit must be an integer, got a fractional number"]
        );
        assert_eq!(
            problems(json!({"name": "x", "limit": -3})),
            ["/limit must be between 1 and 10, got -3"]
        );
        assert_eq!(
            problems(json!({"name": "x", "limit": "3"})),
            ["/limit must be an integer, got a string"]
        );
        assert_eq!(
            problems(json!({"name": "x", "flag": "yes"})),
            ["/flag must be a boolean, got a string"]
        );
        assert_eq!(
            problems(json!({"name": "x", "list": ["a", "a"]})),
            ["/list item 1 repeats an earlier item"]
        );
        assert_eq!(
            problems(json!({"name": "x", "list": []})),
            ["/list must hold 1 to 2 item(s), got 0"]
        );
        assert_eq!(
            problems(json!({"name": "x", "list": ["abcd"]})),
            ["/list item 0 must be at most 3 characters long, got 4"]
        );
        assert_eq!(
            problems(json!({"name": "x", "list": "a"})),
            ["/list must be an array, got a string"]
        );
    }

    #[test]
    fn non_objects_and_odd_keys() {
        assert_eq!(
            problems(json!(["x"])),
            ["arguments must be an object, got an array"]
        );
        assert_eq!(
            problems(json!({"name": "x", "a/b": 1}))[0],
            "/a~1b is not a property of this tool (allowed: name, mode, limit, flag, list)"
        );
        let empty = ObjectSchema {
            properties: vec![],
            required: &[],
        };
        assert_eq!(
            empty.violations(&json!({"x": 1}))[0].to_string(),
            "/x is not a property of this tool (this tool takes no arguments)"
        );
    }
}
