//! `acc-certify native`: the static version rule, eligibility against a probe, or a
//! handshake verdict, for one client version. There is no platform input.

use acc_sdk::define::Declaration;
use acc_sdk::error::Problem;
use serde_json::{Value, json};

/// What to judge the client version against.
pub enum NativeInput {
    Static,
    Probe(Value),
    Handshake(Value),
}

/// The verdict as JSON data (`eligible` for the static rule and a probe, `ok` for a
/// handshake), or the malformed-input problem.
pub fn judge(
    declaration: &Declaration,
    client_version: &str,
    input: &NativeInput,
) -> Result<Value, Problem> {
    let version = Some(client_version);
    Ok(match input {
        NativeInput::Static => {
            let v = declaration.evaluate_version_contract(version, None);
            json!({
                "eligible": v.reason_code.is_none(),
                "reasonCode": v.reason_code,
                "minimumVersion": v.minimum_version,
                "protocolContract": v.protocol_contract,
                "modes": [],
            })
        }
        NativeInput::Probe(probe) => {
            serde_json::to_value(declaration.evaluate_native_eligibility(version, Some(probe))?)
                .expect("an eligibility serialises")
        }
        NativeInput::Handshake(h) => {
            serde_json::to_value(declaration.validate_native_handshake(version, Some(h))?)
                .expect("a handshake verdict serialises")
        }
    })
}

/// `key: value` lines, in the JSON's order.
pub fn human(data: &Value) -> String {
    let mut out = String::new();
    if let Some(obj) = data.as_object() {
        for (k, v) in obj {
            let text = match v {
                Value::Null => "-".to_owned(),
                Value::Bool(b) => if *b { "yes" } else { "no" }.to_owned(),
                Value::String(s) => s.clone(),
                Value::Array(items) if items.is_empty() => "-".to_owned(),
                Value::Array(items) => items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(", "),
                other => other.to_string(),
            };
            out.push_str(&format!("{k}: {text}\n"));
        }
    }
    out
}
