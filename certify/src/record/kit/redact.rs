//! Redaction for everything a recording writes: sandbox paths become placeholders (so a
//! bundle says `<ws>/src/x`, whatever temporary directory the run used), and credentials
//! never leave the run even though they are dummies.

use std::path::Path;

use serde_json::{Map, Value};

use crate::doubles::LoggedRequest;

/// Header names whose values are credentials.
const SECRET_HEADERS: [&str; 5] = [
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "api-key",
    "proxy-authorization",
];
/// Query parameters whose values are credentials (Gemini may send `?key=`).
const SECRET_PARAMS: [&str; 2] = ["key", "api_key"];
pub const REDACTED: &str = "<redacted>";

/// Replaces known absolute paths by placeholders, longest first so that `<ws>` wins over
/// the sandbox root that contains it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactor {
    pairs: Vec<(String, String)>,
}

impl Redactor {
    pub fn new() -> Redactor {
        Redactor::default()
    }

    /// Adds `path` (and its canonical form, when that differs) as `placeholder`.
    pub fn path(mut self, path: &Path, placeholder: &str) -> Redactor {
        let mut forms = vec![path.display().to_string()];
        if let Ok(real) = path.canonicalize() {
            forms.push(real.display().to_string());
        }
        for form in forms {
            // A root directory would turn every absolute path into a placeholder.
            if form.len() > 1 && !self.pairs.iter().any(|(from, _)| *from == form) {
                self.pairs.push((form, placeholder.to_owned()));
            }
        }
        self.pairs
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        self
    }

    /// Adds a literal secret value, replaced wherever it appears.
    pub fn secret(mut self, value: &str) -> Redactor {
        if !value.is_empty() {
            self.pairs.push((value.to_owned(), REDACTED.to_owned()));
            self.pairs
                .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        }
        self
    }

    pub fn text(&self, text: &str) -> String {
        let mut out = text.to_owned();
        for (from, to) in &self.pairs {
            if out.contains(from.as_str()) {
                out = out.replace(from.as_str(), to);
            }
        }
        out
    }

    /// Redacts every string in `value`, object keys included.
    pub fn value(&self, value: &Value) -> Value {
        match value {
            Value::String(s) => Value::String(self.text(s)),
            Value::Array(items) => Value::Array(items.iter().map(|v| self.value(v)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.text(k), self.value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }

    /// A logged request with paths replaced and credential headers and parameters masked.
    pub fn request(&self, request: &LoggedRequest) -> LoggedRequest {
        let headers: Map<String, Value> = request
            .headers
            .iter()
            .map(|(name, value)| {
                let value = if SECRET_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
                    Value::String(REDACTED.to_owned())
                } else {
                    self.value(value)
                };
                (name.clone(), value)
            })
            .collect();
        LoggedRequest {
            t: request.t,
            n: request.n,
            method: request.method.clone(),
            path: self.text(&request.path),
            query: request.query.as_deref().map(|q| self.text(&mask_query(q))),
            headers,
            body: self.value(&request.body),
            answered: request.answered.clone(),
        }
    }
}

/// `a=1&key=abc` -> `a=1&key=<redacted>`.
fn mask_query(query: &str) -> String {
    query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if SECRET_PARAMS.contains(&name) => format!("{name}={REDACTED}"),
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_longest_path_wins_and_canonical_forms_are_covered() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sandbox");
        std::fs::create_dir_all(root.join("workspace")).unwrap();
        let redactor = Redactor::new()
            .path(&root, "<sandbox>")
            .path(&root.join("workspace"), "<ws>");
        let text = format!(
            "{}/src/x and {}/tmp",
            root.join("workspace").display(),
            root.display()
        );
        assert_eq!(redactor.text(&text), "<ws>/src/x and <sandbox>/tmp");
        let real = root.join("workspace").canonicalize().unwrap();
        assert_eq!(redactor.text(&real.display().to_string()), "<ws>");
        assert_eq!(
            Redactor::new().path(Path::new("/"), "<root>").text("/x"),
            "/x"
        );
    }

    #[test]
    fn credentials_are_masked_in_headers_queries_and_text() {
        let redactor = Redactor::new()
            .path(Path::new("/sb/ws"), "<ws>")
            .secret("sk-dummy-123");
        let request = LoggedRequest {
            t: 1.0,
            n: 1,
            method: "POST".into(),
            path: "/v1beta/models/m:streamGenerateContent".into(),
            query: Some("alt=sse&key=sk-dummy-123".into()),
            headers: json!({"Authorization": "Bearer sk-dummy-123", "x-goog-api-key": "k", "user-agent": "ua /sb/ws"})
                .as_object()
                .unwrap()
                .clone(),
            body: json!({"/sb/ws/a": ["/sb/ws/src/x", 3, "key sk-dummy-123"]}),
            answered: "final_text".into(),
        };
        let out = redactor.request(&request);
        assert_eq!(out.query.as_deref(), Some("alt=sse&key=<redacted>"));
        assert_eq!(out.header("authorization"), Some(REDACTED));
        assert_eq!(out.header("x-goog-api-key"), Some(REDACTED));
        assert_eq!(out.header("user-agent"), Some("ua <ws>"));
        assert_eq!(
            out.body,
            json!({"<ws>/a": ["<ws>/src/x", 3, "key <redacted>"]})
        );
    }
}
