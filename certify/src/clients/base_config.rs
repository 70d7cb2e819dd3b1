//! Each client's base configuration for running against a double (REAL-CLIENTS §2.2, §3.2,
//! §4.3). No hooks: those come from acc's installer, run after this.

use serde_json::{Value, json};

/// The fake provider's id in Codex's `config.toml`.
pub const CODEX_PROVIDER: &str = "acc-double";
/// A slug in Codex's bundled catalog: an unknown one loses the `apply_patch` tool.
pub const CODEX_MODEL: &str = "gpt-5.5";
/// Pinning the model keeps Gemini CLI from making routing side calls.
pub const GEMINI_MODEL: &str = "gemini-2.5-flash";

/// Codex features that reach past the provider (OpenAI's plugin and app catalogs,
/// connectors, browsers, in-app updates), all off: 0.171.0 turns plugins, remote plugins and
/// apps on by default and looked a host up in an end-to-end run. Unknown keys are ignored
/// by Codex (`codex features list` reads this table), so older builds take it too.
pub const CODEX_NETWORK_FEATURES: [&str; 12] = [
    "plugins",
    "remote_plugin",
    "plugin_sharing",
    "recommended_plugins",
    "apps",
    "connectors",
    "enable_mcp_apps",
    "browser_use",
    "browser_use_external",
    "computer_use",
    "in_app_browser",
    "in_app_updates",
];

/// Codex: the fake provider at the double, no approvals, no sandbox, and nothing that
/// reaches the network on its own: no update check, analytics or feedback upload, and
/// every feature in [`CODEX_NETWORK_FEATURES`] off.
pub fn codex_config(double_port: u16) -> toml::Table {
    let features: String = CODEX_NETWORK_FEATURES
        .iter()
        .map(|f| format!("{f} = false\n"))
        .collect();
    let text = format!(
        r#"model = "{CODEX_MODEL}"
model_provider = "{CODEX_PROVIDER}"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

[features]
{features}

[model_providers.{CODEX_PROVIDER}]
name = "acc-certify model double"
base_url = "http://127.0.0.1:{double_port}/v1"
wire_api = "responses"
env_key = "{key}"
"#,
        key = super::environment::CODEX_KEY_VAR,
    );
    text.parse().expect("the Codex base config is valid TOML")
}

/// Gemini CLI: API-key auth (else it resolves `gateway` and exits 41), a pinned model,
/// folder trust and telemetry off. The keys are the ones 0.61.0 migrates to on start, so the
/// CLI has nothing to rewrite.
pub fn gemini_settings() -> Value {
    json!({
        "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        "privacy": {"usageStatisticsEnabled": false},
        "telemetry": {"enabled": false},
        "security": {"folderTrust": {"enabled": false}, "auth": {"selectedType": "gemini-api-key"}},
        "model": {"name": GEMINI_MODEL},
    })
}

/// Grok: the double as its models endpoint (which also selects API-key auth, no login),
/// no update check, no telemetry.
pub fn grok_config(double_port: u16) -> toml::Table {
    let text = format!(
        r#"[endpoints]
models_base_url = "http://127.0.0.1:{double_port}/v1"

[cli]
auto_update = false

[features]
telemetry = false
"#
    );
    text.parse().expect("the Grok base config is valid TOML")
}

/// Kimi Code: one `anthropic`-type provider at the double and a model using it as the
/// default, so a headless run needs no login.
pub fn kimi_config(double_port: u16) -> toml::Table {
    let text = format!(
        r#"default_model = "double"

[providers.double]
type = "anthropic"
base_url = "http://127.0.0.1:{double_port}"
api_key = "{key}"

[models.double]
provider = "double"
model = "kimi-double"
max_context_size = 200000
"#,
        key = super::environment::DUMMY_KEY,
    );
    text.parse().expect("the Kimi base config is valid TOML")
}

/// OpenCode's custom provider id and model, as `opencode.json` names them.
pub const OPENCODE_MODEL: &str = "acc-double/chat-double";

/// OpenCode: one custom provider through `@ai-sdk/openai-compatible` (bundled in the
/// binary, so nothing is installed at start) at the double, its model the default, no
/// update check and no sharing.
pub fn opencode_config(double_port: u16) -> Value {
    json!({
        "$schema": "https://opencode.ai/config.json",
        "provider": {
            "acc-double": {
                "npm": "@ai-sdk/openai-compatible",
                "name": "acc-certify model double",
                "options": {
                    "baseURL": format!("http://127.0.0.1:{double_port}/v1"),
                    "apiKey": super::environment::DUMMY_KEY,
                },
                "models": {"chat-double": {"name": "chat-double", "tool_call": true}},
            }
        },
        "model": OPENCODE_MODEL,
        "small_model": OPENCODE_MODEL,
        "autoupdate": false,
        "share": "disabled",
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codex_points_its_provider_at_the_double() {
        let config = codex_config(31337);
        assert_eq!(config["model"].as_str(), Some("gpt-5.5"));
        assert_eq!(config["model_provider"].as_str(), Some(CODEX_PROVIDER));
        assert_eq!(config["approval_policy"].as_str(), Some("never"));
        assert_eq!(config["sandbox_mode"].as_str(), Some("danger-full-access"));
        let provider = &config["model_providers"][CODEX_PROVIDER];
        assert_eq!(
            provider["base_url"].as_str(),
            Some("http://127.0.0.1:31337/v1")
        );
        assert_eq!(provider["wire_api"].as_str(), Some("responses"));
        assert_eq!(provider["env_key"].as_str(), Some("ACC_DOUBLE_API_KEY"));
    }

    #[test]
    fn codex_runs_with_every_network_feature_off() {
        let config = codex_config(1);
        assert_eq!(config["check_for_update_on_startup"].as_bool(), Some(false));
        assert_eq!(config["analytics"]["enabled"].as_bool(), Some(false));
        assert_eq!(config["feedback"]["enabled"].as_bool(), Some(false));
        let features = config["features"].as_table().unwrap();
        for feature in ["plugins", "remote_plugin", "apps"] {
            assert_eq!(features[feature].as_bool(), Some(false), "{feature}");
        }
        assert_eq!(features.len(), CODEX_NETWORK_FEATURES.len());
        assert!(features.values().all(|v| v.as_bool() == Some(false)));
    }

    #[test]
    fn grok_lists_models_at_the_double() {
        let config = grok_config(9);
        assert_eq!(
            config["endpoints"]["models_base_url"].as_str(),
            Some("http://127.0.0.1:9/v1")
        );
        assert_eq!(config["cli"]["auto_update"].as_bool(), Some(false));
    }

    #[test]
    fn kimi_defaults_to_an_anthropic_provider_at_the_double() {
        let config = kimi_config(77);
        assert_eq!(config["default_model"].as_str(), Some("double"));
        let provider = &config["providers"]["double"];
        assert_eq!(provider["type"].as_str(), Some("anthropic"));
        assert_eq!(provider["base_url"].as_str(), Some("http://127.0.0.1:77"));
        assert_eq!(
            config["models"]["double"]["provider"].as_str(),
            Some("double")
        );
        assert!(config.get("hooks").is_none());
    }

    #[test]
    fn gemini_uses_api_key_auth_and_a_pinned_model() {
        let settings = gemini_settings();
        assert_eq!(
            settings["security"]["auth"]["selectedType"],
            "gemini-api-key"
        );
        assert_eq!(settings["security"]["folderTrust"]["enabled"], false);
        assert_eq!(settings["model"]["name"], "gemini-2.5-flash");
        assert_eq!(settings["telemetry"]["enabled"], false);
        assert!(settings.get("hooks").is_none());
    }
}
