//! Each client's base configuration for running against a double (REAL-CLIENTS §2.2, §3.2,
//! §4.3). No hooks: those come from acc's installer, run after this.

use serde_json::{Value, json};

/// The fake provider's id in Codex's `config.toml`.
pub const CODEX_PROVIDER: &str = "acc-double";
/// A slug in Codex's bundled catalog: an unknown one loses the `apply_patch` tool.
pub const CODEX_MODEL: &str = "gpt-5.5";
/// Pinning the model keeps Gemini CLI from making routing side calls.
pub const GEMINI_MODEL: &str = "gemini-2.5-flash";

/// Codex: the fake provider at the double, no approvals, no sandbox, no update check.
pub fn codex_config(double_port: u16) -> toml::Table {
    let text = format!(
        r#"model = "{CODEX_MODEL}"
model_provider = "{CODEX_PROVIDER}"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

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
