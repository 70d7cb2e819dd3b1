//! `adapter.json`: the declarative half of an adapter, readable without compiling vendor code.
//!
//! A closed object: `id`, `displayName`, `client {command, certificationName, versionArgs,
//! variants}`, `capabilities` and an optional `nativeDelivery`. The reading is split into
//! stages because `define_adapter` interleaves them with the certification checks in a
//! fixed order (identity, certification, variants, evidence clients, native contract,
//! capabilities).

use serde::Serialize;
use serde_json::Value;

use crate::capabilities::CapabilitySet;
use crate::error::{MANIFEST_FILE, Problem, ProblemCode};

/// A portable adapter id: usable as a file name on every platform.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct AdapterId(String);

/// `^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$`
fn is_portable_id(text: &str) -> bool {
    let bytes = text.as_bytes();
    (1..=200).contains(&bytes.len())
        && bytes[0].is_ascii_alphanumeric()
        && bytes[1..]
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

impl AdapterId {
    /// Accepts `^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$` without a trailing `.` and without a
    /// Windows device name as its stem, because ids become file names.
    pub fn parse(text: &str) -> Result<Self, String> {
        if !is_portable_id(text) {
            return Err(
                "use 1 to 200 letters, digits, '.', '_' or '-', starting with a letter or digit"
                    .into(),
            );
        }
        if text.ends_with('.') {
            return Err("an id may not end with '.'".into());
        }
        let stem = text.split('.').next().unwrap_or(text).to_ascii_lowercase();
        if is_windows_device(&stem) {
            return Err(format!("{stem} is a Windows device name"));
        }
        Ok(Self(text.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for AdapterId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn is_windows_device(stem: &str) -> bool {
    matches!(stem, "con" | "prn" | "aux" | "nul")
        || ["com", "lpt"].iter().any(|p| {
            stem.strip_prefix(p)
                .is_some_and(|n| n.len() == 1 && matches!(n.as_bytes()[0], b'1'..=b'9'))
        })
}

/// Another product that runs the same hooks on a version line of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Variant {
    pub certification_name: String,
    pub display_name: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientSpec {
    /// The binary the client installs: the version probe and the process-walk name.
    pub command: String,
    /// The name evidence rows use; `command` when absent.
    pub certification_name: Option<String>,
    /// Arguments that make `command` print its version.
    pub version_args: Vec<String>,
    pub variants: Vec<Variant>,
}

impl ClientSpec {
    /// The primary client's certification name: `certificationName`, else `command`.
    pub fn primary(&self) -> &str {
        self.certification_name.as_deref().unwrap_or(&self.command)
    }

    /// The primary first, then every variant.
    pub fn client_names(&self) -> Vec<&str> {
        std::iter::once(self.primary())
            .chain(self.variants.iter().map(|v| v.certification_name.as_str()))
            .collect()
    }

    pub fn declares(&self, name: &str) -> bool {
        self.client_names().contains(&name)
    }

    pub fn is_variant(&self, name: &str) -> bool {
        self.variants.iter().any(|v| v.certification_name == name)
    }
}

/// A validated `adapter.json`, without its native contract (which needs the evidence to
/// validate; see [`crate::define::Declaration`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    pub id: AdapterId,
    pub display_name: String,
    pub client: ClientSpec,
    pub capabilities: CapabilitySet,
}

const TOP_FIELDS: [&str; 5] = [
    "id",
    "displayName",
    "client",
    "capabilities",
    "nativeDelivery",
];
const CLIENT_FIELDS: [&str; 4] = ["command", "certificationName", "versionArgs", "variants"];
const VARIANT_FIELDS: [&str; 2] = ["certificationName", "displayName"];
/// Removed field refused by name at its own stage rather than as an unknown field.
const CERTIFICATION_FLOOR: &str = "certificationFloor";

fn problem(code: ProblemCode, field: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem::new(code, MANIFEST_FILE, field, message)
}

/// Parses `adapter.json` bytes as JSON, naming the file when they are not.
pub fn parse_json(file: &str, bytes: &[u8]) -> Result<Value, Problem> {
    serde_json::from_slice(bytes).map_err(|e| {
        Problem::new(
            ProblemCode::InvalidJson,
            file,
            "",
            format!("{file} is not valid JSON: {e}"),
        )
    })
}

/// The identity stage: the object, its closed keys, id, displayName and the client's own
/// fields. Variants, capabilities and the native contract are later stages.
pub(crate) struct Head {
    pub id: AdapterId,
    pub display_name: String,
    pub command: String,
    pub certification_name: Option<String>,
    pub version_args: Vec<String>,
}

fn non_empty_text(value: Option<&Value>) -> Option<&str> {
    value
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

pub(crate) fn read_head(value: &Value) -> Result<Head, Vec<Problem>> {
    let Some(obj) = value.as_object() else {
        return Err(vec![problem(
            ProblemCode::ManifestNotObject,
            "",
            "adapter.json must be a JSON object",
        )]);
    };
    let mut problems: Vec<Problem> = obj
        .keys()
        .filter(|k| !TOP_FIELDS.contains(&k.as_str()) && k.as_str() != CERTIFICATION_FLOOR)
        .map(|k| {
            problem(
                ProblemCode::ManifestUnknownField,
                k.as_str(),
                format!("unknown adapter field {k}"),
            )
        })
        .collect();

    let id = match obj.get("id") {
        None | Some(Value::Null) => {
            problems.push(problem(
                ProblemCode::MissingId,
                "id",
                "an adapter must declare an id",
            ));
            None
        }
        Some(Value::String(text)) if !text.is_empty() => match AdapterId::parse(text) {
            Ok(id) => Some(id),
            Err(why) => {
                problems.push(problem(
                    ProblemCode::InvalidId,
                    "id",
                    format!("invalid adapter id {text:?}: {why}"),
                ));
                None
            }
        },
        Some(Value::String(_)) => {
            problems.push(problem(
                ProblemCode::MissingId,
                "id",
                "an adapter must declare an id",
            ));
            None
        }
        Some(other) => {
            problems.push(problem(
                ProblemCode::InvalidId,
                "id",
                format!("invalid adapter id {other}: it must be text"),
            ));
            None
        }
    };

    let display_name = non_empty_text(obj.get("displayName")).map(str::to_owned);
    if display_name.is_none() {
        problems.push(problem(
            ProblemCode::MissingDisplayName,
            "displayName",
            "an adapter must declare a displayName",
        ));
    }

    let client = obj.get("client").and_then(Value::as_object);
    let command = client
        .and_then(|c| non_empty_text(c.get("command")))
        .map(str::to_owned);
    if command.is_none() {
        problems.push(problem(
            ProblemCode::MissingClientCommand,
            "client.command",
            "an adapter must declare client.command, the binary its client installs",
        ));
    }
    let mut certification_name = None;
    let mut version_args = vec!["--version".to_owned()];
    if let Some(client) = client {
        problems.extend(
            client
                .keys()
                .filter(|k| !CLIENT_FIELDS.contains(&k.as_str()))
                .map(|k| {
                    problem(
                        ProblemCode::ClientUnknownField,
                        format!("client.{k}"),
                        format!("unknown client field {k}"),
                    )
                }),
        );
        match client.get("certificationName") {
            None => {}
            Some(v) => match non_empty_text(Some(v)) {
                Some(name) => certification_name = Some(name.to_owned()),
                None => problems.push(problem(
                    ProblemCode::InvalidCertificationName,
                    "client.certificationName",
                    "client.certificationName must be a non-empty string",
                )),
            },
        }
        if let Some(args) = client.get("versionArgs") {
            match read_version_args(args) {
                Some(args) => version_args = args,
                None => problems.push(problem(
                    ProblemCode::InvalidVersionArgs,
                    "client.versionArgs",
                    "client.versionArgs must be an array of non-empty strings",
                )),
            }
        }
    }

    match (id, display_name, command) {
        (Some(id), Some(display_name), Some(command)) if problems.is_empty() => Ok(Head {
            id,
            display_name,
            command,
            certification_name,
            version_args,
        }),
        _ => Err(problems),
    }
}

fn read_version_args(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|a| a.as_str().filter(|s| !s.is_empty()).map(str::to_owned))
        .collect()
}

/// `client.variants`: closed entries with unique names, none repeating the primary's.
pub(crate) fn read_variants(value: &Value, primary: &str) -> Result<Vec<Variant>, Vec<Problem>> {
    let Some(raw) = value.get("client").and_then(|c| c.get("variants")) else {
        return Ok(Vec::new());
    };
    let Some(entries) = raw.as_array() else {
        return Err(vec![problem(
            ProblemCode::VariantsNotArray,
            "client.variants",
            "client.variants must be an array",
        )]);
    };
    let mut problems = Vec::new();
    let mut taken = vec![primary.to_owned()];
    let mut variants = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        let field = format!("client.variants[{i}]");
        let Some(obj) = entry.as_object() else {
            problems.push(problem(
                ProblemCode::VariantNotObject,
                field,
                format!("client.variants entry {i} must be an object"),
            ));
            continue;
        };
        problems.extend(
            obj.keys()
                .filter(|k| !VARIANT_FIELDS.contains(&k.as_str()))
                .map(|k| {
                    problem(
                        ProblemCode::VariantUnknownField,
                        format!("{field}.{k}"),
                        format!("client.variants entry {i} has unknown field {k}"),
                    )
                }),
        );
        let name = non_empty_text(obj.get("certificationName"));
        if name.is_none() {
            problems.push(problem(
                ProblemCode::VariantCertificationName,
                format!("{field}.certificationName"),
                format!("client.variants entry {i} certificationName must be a non-empty string"),
            ));
        }
        let display = non_empty_text(obj.get("displayName"));
        if display.is_none() {
            problems.push(problem(
                ProblemCode::VariantDisplayName,
                format!("{field}.displayName"),
                format!("client.variants entry {i} displayName must be a non-empty string"),
            ));
        }
        if let Some(name) = name {
            if taken.iter().any(|t| t == name) {
                problems.push(problem(
                    ProblemCode::VariantRepeats,
                    format!("{field}.certificationName"),
                    format!("client.variants entry {i} repeats {name}"),
                ));
            } else {
                taken.push(name.to_owned());
            }
        }
        if let (Some(name), Some(display)) = (name, display) {
            variants.push(Variant {
                certification_name: name.to_owned(),
                display_name: display.to_owned(),
            });
        }
    }
    if problems.is_empty() {
        Ok(variants)
    } else {
        Err(problems)
    }
}

pub(crate) fn read_certification_floor(value: &Value) -> Option<Problem> {
    value.get(CERTIFICATION_FLOOR).map(|_| {
        problem(
            ProblemCode::CertificationFloorRemoved,
            CERTIFICATION_FLOOR,
            "certificationFloor was removed: certification evidence applies forward from the version that recorded it",
        )
    })
}

pub(crate) fn read_capabilities(value: &Value) -> Result<CapabilitySet, Vec<Problem>> {
    match value.get("capabilities") {
        None => Ok(CapabilitySet::none()),
        Some(caps) => CapabilitySet::from_json(caps),
    }
}

pub(crate) fn native_delivery_raw(value: &Value) -> Option<&Value> {
    value.get("nativeDelivery")
}

impl Manifest {
    /// Reads every stage that does not need the evidence, reporting all their problems.
    pub fn from_value(value: &Value) -> Result<Manifest, Vec<Problem>> {
        let head = read_head(value)?;
        let primary = head
            .certification_name
            .clone()
            .unwrap_or_else(|| head.command.clone());
        let mut problems = Vec::new();
        let variants = read_variants(value, &primary).unwrap_or_else(|p| {
            problems.extend(p);
            Vec::new()
        });
        problems.extend(read_certification_floor(value));
        let capabilities = read_capabilities(value).unwrap_or_else(|p| {
            problems.extend(p);
            CapabilitySet::none()
        });
        if !problems.is_empty() {
            return Err(problems);
        }
        Ok(Manifest::assemble(head, variants, capabilities))
    }

    pub(crate) fn assemble(
        head: Head,
        variants: Vec<Variant>,
        capabilities: CapabilitySet,
    ) -> Manifest {
        Manifest {
            id: head.id,
            display_name: head.display_name,
            client: ClientSpec {
                command: head.command,
                certification_name: head.certification_name,
                version_args: head.version_args,
                variants,
            },
            capabilities,
        }
    }

    /// Parses `adapter.json` bytes (see [`Manifest::from_value`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, Vec<Problem>> {
        let value = parse_json(MANIFEST_FILE, bytes).map_err(|p| vec![p])?;
        Self::from_value(&value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn base() -> Value {
        json!({
            "id": "example",
            "displayName": "Example CLI",
            "client": {"command": "example", "certificationName": "example-cli", "versionArgs": ["--version"],
                       "variants": [{"certificationName": "example-desktop", "displayName": "Example Desktop"}]},
            "capabilities": {"delivery": {"nextTurn": true}}
        })
    }

    fn with(path: &[&str], value: Value) -> Value {
        let mut v = base();
        let mut cur = &mut v;
        for key in &path[..path.len() - 1] {
            cur = cur.get_mut(*key).unwrap();
        }
        cur.as_object_mut()
            .unwrap()
            .insert(path[path.len() - 1].to_owned(), value);
        v
    }

    fn without(path: &[&str]) -> Value {
        let mut v = base();
        let mut cur = &mut v;
        for key in &path[..path.len() - 1] {
            cur = cur.get_mut(*key).unwrap();
        }
        cur.as_object_mut().unwrap().remove(path[path.len() - 1]);
        v
    }

    #[test]
    fn reads_the_issue_example() {
        let m = Manifest::from_value(&base()).unwrap();
        assert_eq!(m.id.as_str(), "example");
        assert_eq!(m.client.primary(), "example-cli");
        assert_eq!(
            m.client.client_names(),
            vec!["example-cli", "example-desktop"]
        );
        assert!(m.client.is_variant("example-desktop"));
        assert!(!m.client.declares("example"));
    }

    #[test]
    fn primary_falls_back_to_command_and_version_args_default() {
        let v = json!({"id": "x", "displayName": "X", "client": {"command": "xcli"}});
        let m = Manifest::from_value(&v).unwrap();
        assert_eq!(m.client.primary(), "xcli");
        assert_eq!(m.client.version_args, vec!["--version"]);
        assert_eq!(m.capabilities, CapabilitySet::none());
    }

    #[test]
    fn portable_ids() {
        let cases = [
            ("claude-code", true),
            ("a", true),
            ("A1._-z", true),
            (&*"a".repeat(200), true),
            (&*"a".repeat(201), false),
            ("-lead", false),
            ("_lead", false),
            ("trailing.", false),
            ("con", false),
            ("CON", false),
            ("com1", false),
            ("lpt9", false),
            ("com0", true),
            ("nul.txt", false),
            ("console", true),
            ("has space", false),
            ("slash/x", false),
            ("", false),
            ("caf\u{e9}", false),
            ("id\n", false),
            ("9lives", true),
        ];
        for (id, ok) in cases {
            assert_eq!(AdapterId::parse(id).is_ok(), ok, "{id:?}");
        }
    }

    #[test]
    fn each_refusal_names_its_field_code_and_wording() {
        let cases: Vec<(Value, ProblemCode, &str, &str)> = vec![
            (
                json!([]),
                ProblemCode::ManifestNotObject,
                "",
                "adapter.json must be a JSON object",
            ),
            (
                with(&["extra"], json!(1)),
                ProblemCode::ManifestUnknownField,
                "extra",
                "unknown adapter field extra",
            ),
            (
                without(&["id"]),
                ProblemCode::MissingId,
                "id",
                "an adapter must declare an id",
            ),
            (
                with(&["id"], json!("")),
                ProblemCode::MissingId,
                "id",
                "an adapter must declare an id",
            ),
            (
                with(&["id"], json!("aux")),
                ProblemCode::InvalidId,
                "id",
                "invalid adapter id \"aux\": aux is a Windows device name",
            ),
            (
                without(&["displayName"]),
                ProblemCode::MissingDisplayName,
                "displayName",
                "an adapter must declare a displayName",
            ),
            (
                with(&["displayName"], json!("  ")),
                ProblemCode::MissingDisplayName,
                "displayName",
                "an adapter must declare a displayName",
            ),
            (
                without(&["client", "command"]),
                ProblemCode::MissingClientCommand,
                "client.command",
                "an adapter must declare client.command, the binary its client installs",
            ),
            (
                with(&["client", "argv"], json!([])),
                ProblemCode::ClientUnknownField,
                "client.argv",
                "unknown client field argv",
            ),
            (
                with(&["client", "certificationName"], json!("")),
                ProblemCode::InvalidCertificationName,
                "client.certificationName",
                "client.certificationName must be a non-empty string",
            ),
            (
                with(&["client", "versionArgs"], json!(["--version", 2])),
                ProblemCode::InvalidVersionArgs,
                "client.versionArgs",
                "client.versionArgs must be an array of non-empty strings",
            ),
            (
                with(&["client", "variants"], json!({})),
                ProblemCode::VariantsNotArray,
                "client.variants",
                "client.variants must be an array",
            ),
            (
                with(&["client", "variants"], json!(["x"])),
                ProblemCode::VariantNotObject,
                "client.variants[0]",
                "client.variants entry 0 must be an object",
            ),
            (
                with(
                    &["client", "variants"],
                    json!([{"certificationName": "d", "displayName": "D", "command": "d"}]),
                ),
                ProblemCode::VariantUnknownField,
                "client.variants[0].command",
                "client.variants entry 0 has unknown field command",
            ),
            (
                with(&["client", "variants"], json!([{"displayName": "D"}])),
                ProblemCode::VariantCertificationName,
                "client.variants[0].certificationName",
                "client.variants entry 0 certificationName must be a non-empty string",
            ),
            (
                with(
                    &["client", "variants"],
                    json!([{"certificationName": "d", "displayName": ""}]),
                ),
                ProblemCode::VariantDisplayName,
                "client.variants[0].displayName",
                "client.variants entry 0 displayName must be a non-empty string",
            ),
            (
                with(
                    &["client", "variants"],
                    json!([{"certificationName": "example-cli", "displayName": "Again"}]),
                ),
                ProblemCode::VariantRepeats,
                "client.variants[0].certificationName",
                "client.variants entry 0 repeats example-cli",
            ),
            (
                with(
                    &["client", "variants"],
                    json!([{"certificationName": "d", "displayName": "D"}, {"certificationName": "d", "displayName": "E"}]),
                ),
                ProblemCode::VariantRepeats,
                "client.variants[1].certificationName",
                "client.variants entry 1 repeats d",
            ),
            (
                with(&["certificationFloor"], json!("1.0.0")),
                ProblemCode::CertificationFloorRemoved,
                "certificationFloor",
                "certificationFloor was removed: certification evidence applies forward from the version that recorded it",
            ),
            (
                with(&["capabilities"], json!({"guards": {"beforeDelete": true}})),
                ProblemCode::UnknownCapability,
                "capabilities.guards.beforeDelete",
                "unknown capability: guards.beforeDelete",
            ),
        ];
        for (input, code, field, message) in cases {
            let problems = Manifest::from_value(&input).unwrap_err();
            let p = &problems[0];
            assert_eq!(
                (p.code, p.field.as_str(), p.message.as_str()),
                (code, field, message),
                "{input}"
            );
            assert_eq!(p.file, "adapter.json");
        }
    }

    #[test]
    fn bytes_that_are_not_json_name_the_file() {
        let problems = Manifest::from_bytes(b"{nope").unwrap_err();
        assert_eq!(problems[0].code, ProblemCode::InvalidJson);
        assert!(
            problems[0]
                .message
                .starts_with("adapter.json is not valid JSON"),
            "{}",
            problems[0].message
        );
    }
}
