//! The per-client facts the recorder needs, as read from `adapters/<id>/recorder.toml`:
//! where the client comes from, how it is launched headless, resumed and quit, its
//! environment, where its config lives and the base config that points it at the double.
//!
//! Placeholders, replaced as text: `{prompt}` in argument lists; `{base_url}`
//! (`http://127.0.0.1:<port>`), `{double_port}` and `{key}` in env values and the base
//! config text.

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;

use crate::doubles::Protocol;

/// The API key the clients are given (`{key}`); the double ignores it.
pub const DUMMY_KEY: &str = "dummy";

/// One client's recorder file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct RecorderFile {
    /// The adapter id; the same as the folder the file is in.
    pub id: String,
    /// The wire protocol the client speaks to its model ([`Protocol::id`]).
    pub protocol: String,
    pub package: Package,
    pub headless: Headless,
    pub resume: Resume,
    /// Variables of every run, after the sandbox's.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Variables added when the run approves every tool call unasked.
    #[serde(default)]
    pub unasked_env: BTreeMap<String, String>,
    /// `VAR = "dir"`: directories under `$HOME` the sandbox creates and exports as `VAR`.
    #[serde(default)]
    pub home_vars: BTreeMap<String, String>,
    pub config: Config,
    /// How the recorder drives the terminal interface; absent where it cannot.
    pub interactive: Option<Interactive>,
    #[serde(default)]
    pub scenarios: Scenarios,
    #[serde(default)]
    pub evidence: Evidence,
}

/// Where the client is installed from.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Package {
    pub registry: Registry,
    /// The npm or PyPI package name.
    pub name: String,
    /// The pinned version `record` uses unless told otherwise.
    pub version: String,
    /// The program name the package installs.
    pub bin: String,
    /// PyPI: the file inside `site-packages` that is the program.
    pub binary: Option<String>,
    /// npm-with-node: the PyPI wheel carrying Node, and its version.
    pub node_package: Option<String>,
    pub node_version: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Registry {
    Npm,
    Pypi,
    NpmWithNode,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Headless {
    /// The command line after the program.
    pub args: Vec<String>,
    /// The command line when every tool call runs unasked; `args` when absent.
    pub unasked_args: Option<Vec<String>>,
    /// How an evidence row says the headless run was launched.
    pub described: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Resume {
    /// Resumes the most recent conversation in the workspace, headless.
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Config {
    /// The user-level file the client reads hooks from, relative to `$HOME`.
    pub hooks: String,
    /// The config pointing the client at the double; none where the environment does it.
    pub base: Option<BaseConfig>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BaseConfig {
    /// Relative to `$HOME`.
    pub file: String,
    pub format: ConfigFormat,
    /// The document, with placeholders.
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ConfigFormat {
    Json,
    Toml,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Interactive {
    /// What the person types to leave.
    pub quit: String,
    /// Text the interface shows once it takes input.
    pub ready: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Scenarios {
    /// heartbeat: the client's heartbeat is its idle prompt's notification, so the scenario
    /// drives its terminal interface.
    #[serde(default)]
    pub heartbeat_idle_prompt: bool,
    /// coordinate: the client is paired with Claude Code, in both roles.
    #[serde(default)]
    pub coordinate_with_claude_code: bool,
    /// child-sessions: the hook events for a subagent's start and end.
    pub subagent_events: Option<[String; 2]>,
    /// before-read: the pre-tool matcher acc installs and the read tool it is widened to.
    pub before_read: Option<BeforeRead>,
    /// guard-bridge: the client's tool that runs another tool by name (see
    /// `record/scenarios/guard_bridge`); absent where the client has none.
    pub guard_bridge: Option<GuardBridge>,
}

/// A tool that dispatches another: the model calls `tool` with `{name-key: inner,
/// arguments-key: {path-key: <file>, content-key: <text>}}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GuardBridge {
    pub tool: String,
    pub name_key: String,
    pub arguments_key: String,
    /// The file-writing tool the bridge is asked to run.
    pub inner: String,
    pub path_key: String,
    pub content_key: String,
    /// JSON merged into the file `[config] hooks` names before the run, where the client
    /// only bridges to tools it does not offer directly (deep merge: objects by key).
    pub settings: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct BeforeRead {
    pub matcher: String,
    pub read_tool: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Evidence {
    /// Limitations every headless capture of the client carries.
    #[serde(default)]
    pub notes: Vec<String>,
    /// By capability name (`beforeRead`): what the capture showed, in place of the
    /// capability's general limitation.
    #[serde(default)]
    pub capability_notes: BTreeMap<String, String>,
}

/// Why a recorder file was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecorderFileError {
    /// The adapter folder the file is in.
    pub adapter: String,
    pub reason: String,
}

impl RecorderFileError {
    pub fn code(&self) -> &'static str {
        "client.recorder-file"
    }
}

impl fmt::Display for RecorderFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: adapters/{}/recorder.toml: {}; fix the file (certify/src/clients/recorder_file.rs describes its keys)",
            self.code(),
            self.adapter,
            self.reason
        )
    }
}

impl std::error::Error for RecorderFileError {}

impl RecorderFile {
    /// Parses and checks the file of adapter folder `adapter`.
    pub fn parse(adapter: &str, text: &str) -> Result<RecorderFile, RecorderFileError> {
        let refuse = |reason: String| RecorderFileError {
            adapter: adapter.to_owned(),
            reason,
        };
        let file: RecorderFile = toml::from_str(text).map_err(|e| refuse(e.to_string()))?;
        if file.id != adapter {
            return Err(refuse(format!(
                "id {:?} is not the folder's name {adapter:?}",
                file.id
            )));
        }
        if file.protocol().is_none() {
            let known: Vec<&str> = Protocol::ALL.iter().map(|p| p.id()).collect();
            return Err(refuse(format!(
                "protocol {:?} is none of {}",
                file.protocol,
                known.join(", ")
            )));
        }
        if semver::Version::parse(&file.package.version).is_err() {
            return Err(refuse(format!(
                "package.version {:?} is not an exact version",
                file.package.version
            )));
        }
        let package = &file.package;
        let needs = match package.registry {
            Registry::Npm => vec![],
            Registry::Pypi => vec![("binary", package.binary.is_some())],
            Registry::NpmWithNode => vec![
                ("node-package", package.node_package.is_some()),
                ("node-version", package.node_version.is_some()),
            ],
        };
        if let Some((key, _)) = needs.iter().find(|(_, present)| !present) {
            return Err(refuse(format!(
                "package.{key} is required for this registry"
            )));
        }
        let prompted = |args: &[String]| args.iter().any(|a| a == "{prompt}");
        for (what, args) in [
            ("headless.args", Some(&file.headless.args)),
            ("headless.unasked-args", file.headless.unasked_args.as_ref()),
            ("resume.args", Some(&file.resume.args)),
        ] {
            if let Some(args) = args
                && !prompted(args)
            {
                return Err(refuse(format!("{what} has no \"{{prompt}}\" argument")));
            }
        }
        if let Some(base) = &file.config.base {
            file.render_base(base, 1)
                .map_err(|reason| refuse(format!("config.base.text: {reason}")))?;
        }
        if let Some(settings) = file
            .scenarios
            .guard_bridge
            .as_ref()
            .and_then(|b| b.settings.as_deref())
            && !matches!(
                serde_json::from_str(settings),
                Ok(serde_json::Value::Object(_))
            )
        {
            return Err(refuse(
                "scenarios.guard-bridge.settings is not a JSON object".to_owned(),
            ));
        }
        Ok(file)
    }

    pub fn protocol(&self) -> Option<Protocol> {
        Protocol::ALL.into_iter().find(|p| p.id() == self.protocol)
    }

    /// `args` with `{prompt}` replaced.
    pub fn with_prompt(args: &[String], prompt: &str) -> Vec<String> {
        args.iter()
            .map(|arg| {
                if arg == "{prompt}" {
                    prompt.to_owned()
                } else {
                    arg.clone()
                }
            })
            .collect()
    }

    /// An env value or base config text with the double's address and the key filled in.
    pub fn fill(text: &str, double_port: u16) -> String {
        text.replace("{base_url}", &format!("http://127.0.0.1:{double_port}"))
            .replace("{double_port}", &double_port.to_string())
            .replace("{key}", DUMMY_KEY)
    }

    /// The base config for a double on `double_port`, parsed.
    pub fn render_base(&self, base: &BaseConfig, double_port: u16) -> Result<BaseDocument, String> {
        let text = Self::fill(&base.text, double_port);
        match base.format {
            ConfigFormat::Toml => text
                .parse::<toml::Table>()
                .map(BaseDocument::Toml)
                .map_err(|e| e.to_string()),
            ConfigFormat::Json => match serde_json::from_str(&text) {
                Ok(value @ serde_json::Value::Object(_)) => Ok(BaseDocument::Json(value)),
                Ok(_) => Err("the top level is not an object".to_owned()),
                Err(e) => Err(e.to_string()),
            },
        }
    }
}

/// A rendered base config.
#[derive(Debug, Clone, PartialEq)]
pub enum BaseDocument {
    Json(serde_json::Value),
    Toml(toml::Table),
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
id = "x"
protocol = "anthropic-messages"
[package]
registry = "npm"
name = "x"
version = "1.2.3"
bin = "x"
[headless]
args = ["-p", "{prompt}"]
described = "`x -p`"
[resume]
args = ["-p", "{prompt}", "--continue"]
[config]
hooks = ".x/settings.json"
"#;

    #[test]
    fn a_minimal_file_parses() {
        let file = RecorderFile::parse("x", MINIMAL).unwrap();
        assert_eq!(file.protocol(), Some(Protocol::AnthropicMessages));
        assert!(file.interactive.is_none());
        assert_eq!(
            RecorderFile::with_prompt(&file.resume.args, "go"),
            ["-p", "go", "--continue"]
        );
    }

    #[test]
    fn mistakes_are_refused_naming_the_file() {
        let cases = [
            (MINIMAL.replace("id = \"x\"", "id = \"y\""), "folder"),
            (
                MINIMAL.replace("anthropic-messages", "smoke-signals"),
                "protocol",
            ),
            (MINIMAL.replace("1.2.3", "^1"), "exact version"),
            (MINIMAL.replace("\"npm\"", "\"pypi\""), "package.binary"),
            (
                MINIMAL.replace("\"{prompt}\", \"--continue\"", "\"--continue\""),
                "resume.args",
            ),
            (format!("{MINIMAL}surprise = 1\n"), "unknown field"),
            (
                format!(
                    "{MINIMAL}[config.base]\nfile = \"a\"\nformat = \"json\"\ntext = \"[1]\"\n"
                ),
                "not an object",
            ),
        ];
        for (text, expected) in cases {
            let err = RecorderFile::parse("x", &text).unwrap_err();
            let shown = err.to_string();
            assert!(shown.contains(expected), "{shown}");
            assert!(shown.starts_with("client.recorder-file: adapters/x/recorder.toml: "));
        }
    }

    #[test]
    fn placeholders_are_filled() {
        assert_eq!(
            RecorderFile::fill("{base_url} {double_port} {key}", 42),
            "http://127.0.0.1:42 42 dummy"
        );
    }
}
