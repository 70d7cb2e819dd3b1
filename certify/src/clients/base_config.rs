//! Each client's base configuration for running against a double (REAL-CLIENTS §2.2, §3.2,
//! §4.3), from its recorder file's `[config.base]`. No hooks: those come from acc's
//! installer, run after this.

use super::Client;
use super::recorder_file::BaseDocument;

/// The model Codex's base config names: the interactive scenarios answer its model
/// migration notice for it. A slug in Codex's bundled catalog: an unknown one loses the
/// `apply_patch` tool.
pub const CODEX_MODEL: &str = "gpt-5.5";

/// The client's base config for a double on `double_port` and its path relative to `$HOME`;
/// `None` where the environment alone points the client at the double (Claude Code).
pub fn base_config(client: Client, double_port: u16) -> Option<(&'static str, BaseDocument)> {
    let base = client.recorder().config.base.as_ref()?;
    let document = client
        .recorder()
        .render_base(base, double_port)
        .expect("parsing rendered the base config once already");
    Some((base.file.as_str(), document))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The Codex provider's id in the base config.
    const CODEX_PROVIDER: &str = "acc-double";

    fn toml_of(client: Client, port: u16) -> toml::Table {
        match base_config(client, port) {
            Some((_, BaseDocument::Toml(table))) => table,
            other => panic!("{client}: {other:?}"),
        }
    }

    fn json_of(client: Client) -> Value {
        match base_config(client, 1) {
            Some((_, BaseDocument::Json(value))) => value,
            other => panic!("{client}: {other:?}"),
        }
    }

    #[test]
    fn codex_points_its_provider_at_the_double() {
        let config = toml_of(Client::Codex, 31337);
        assert_eq!(config["model"].as_str(), Some(CODEX_MODEL));
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
        assert!(
            Client::Codex
                .recorder()
                .env
                .contains_key("ACC_DOUBLE_API_KEY")
        );
    }

    #[test]
    fn codex_runs_with_every_network_feature_off() {
        let config = toml_of(Client::Codex, 1);
        assert_eq!(config["check_for_update_on_startup"].as_bool(), Some(false));
        assert_eq!(config["analytics"]["enabled"].as_bool(), Some(false));
        assert_eq!(config["feedback"]["enabled"].as_bool(), Some(false));
        let features = config["features"].as_table().unwrap();
        for feature in ["plugins", "remote_plugin", "apps", "in_app_updates"] {
            assert_eq!(features[feature].as_bool(), Some(false), "{feature}");
        }
        assert_eq!(features.len(), 12);
        assert!(features.values().all(|v| v.as_bool() == Some(false)));
    }

    #[test]
    fn grok_lists_models_at_the_double() {
        let config = toml_of(Client::Grok, 9);
        assert_eq!(
            config["endpoints"]["models_base_url"].as_str(),
            Some("http://127.0.0.1:9/v1")
        );
        assert_eq!(config["cli"]["auto_update"].as_bool(), Some(false));
    }

    #[test]
    fn kimi_defaults_to_an_anthropic_provider_at_the_double() {
        let config = toml_of(Client::KimiCode, 77);
        assert_eq!(config["default_model"].as_str(), Some("double"));
        let provider = &config["providers"]["double"];
        assert_eq!(provider["type"].as_str(), Some("anthropic"));
        assert_eq!(provider["base_url"].as_str(), Some("http://127.0.0.1:77"));
        assert_eq!(provider["api_key"].as_str(), Some("dummy"));
        assert_eq!(
            config["models"]["double"]["provider"].as_str(),
            Some("double")
        );
        assert!(config.get("hooks").is_none());
    }

    #[test]
    fn gemini_uses_api_key_auth_and_a_pinned_model() {
        let settings = json_of(Client::GeminiCli);
        assert_eq!(
            settings["security"]["auth"]["selectedType"],
            "gemini-api-key"
        );
        assert_eq!(settings["security"]["folderTrust"]["enabled"], false);
        assert_eq!(settings["model"]["name"], "gemini-2.5-flash");
        assert_eq!(settings["telemetry"]["enabled"], false);
        assert!(settings.get("hooks").is_none());
    }

    #[test]
    fn claude_code_needs_no_base_config() {
        assert_eq!(base_config(Client::ClaudeCode, 1), None);
    }
}
