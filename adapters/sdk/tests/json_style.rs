//! Editing users' JSON files in their own style: detection, exact round trips on
//! hand-written fixtures and on anything the renderer produced, and clear refusals.

use std::path::{Path, PathBuf};

use acc_sdk::json_style::{
    FileFormat, Indent, JsonStyle, LineEnding, detect_json_style, parse_json_document,
    render_json_document,
};
use serde_json::{Map, Value, json};

fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/json_fixtures")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn round_trip(bytes: &[u8]) -> Vec<u8> {
    let (value, style) = parse_json_document(bytes, Path::new("settings.json")).unwrap();
    render_json_document(&value, &style)
}

const EXACT: &[(&str, JsonStyle)] = &[
    (
        "two-spaces.json",
        style(Indent::Spaces(2), LineEnding::Lf, true, false),
    ),
    (
        "four-spaces-no-newline.json",
        style(Indent::Spaces(4), LineEnding::Lf, false, false),
    ),
    (
        "tabs.json",
        style(Indent::Tabs, LineEnding::Lf, true, false),
    ),
    (
        "crlf.json",
        style(Indent::Spaces(2), LineEnding::Crlf, true, false),
    ),
    (
        "crlf-no-newline.json",
        style(Indent::Spaces(4), LineEnding::Crlf, false, false),
    ),
    (
        "bom.json",
        style(Indent::Spaces(2), LineEnding::Lf, true, true),
    ),
    (
        "one-line-compact.json",
        style(
            Indent::SingleLine {
                colon_space: false,
                comma_space: false,
            },
            LineEnding::Lf,
            false,
            false,
        ),
    ),
    (
        "one-line-spaced.json",
        style(
            Indent::SingleLine {
                colon_space: true,
                comma_space: true,
            },
            LineEnding::Lf,
            true,
            false,
        ),
    ),
    (
        "empty-object.json",
        style(
            Indent::SingleLine {
                colon_space: false,
                comma_space: false,
            },
            LineEnding::Lf,
            true,
            false,
        ),
    ),
    (
        "top-level-array.json",
        style(Indent::Spaces(2), LineEnding::Lf, true, false),
    ),
];

const fn style(
    indent: Indent,
    line_ending: LineEnding,
    trailing_newline: bool,
    bom: bool,
) -> JsonStyle {
    JsonStyle {
        indent,
        line_ending,
        trailing_newline,
        bom,
    }
}

#[test]
fn hand_written_fixtures_are_detected_and_round_trip_byte_for_byte() {
    for (name, expected) in EXACT {
        let bytes = fixture(name);
        let (_, detected) = parse_json_document(&bytes, Path::new(name)).unwrap();
        assert_eq!(detected, *expected, "{name}");
        assert_eq!(detect_json_style(&bytes), *expected, "{name}");
        let again = round_trip(&bytes);
        assert!(
            again == bytes,
            "{name} changed:\n{}\n---\n{}",
            String::from_utf8_lossy(&bytes),
            String::from_utf8_lossy(&again)
        );
    }
}

#[test]
fn an_edit_keeps_the_style_and_key_order() {
    let bytes = fixture("tabs.json");
    let (mut value, style) = parse_json_document(&bytes, Path::new("tabs.json")).unwrap();
    value["enabledPlugins"]["agents-can-communicate@acc-local"] = json!(true);
    let edited = String::from_utf8(render_json_document(&value, &style)).unwrap();
    assert!(
        edited.contains(
            "\t\"enabledPlugins\": {\n\t\t\"agents-can-communicate@acc-local\": true\n\t},"
        ),
        "{edited}"
    );
    let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
    assert_eq!(keys[..3], ["$schema", "model", "permissions"]);
    // Removing the entry again gives back the original bytes.
    value["enabledPlugins"].as_object_mut().unwrap().clear();
    assert_eq!(render_json_document(&value, &style), bytes);
}

#[test]
fn crlf_edits_stay_crlf() {
    let bytes = fixture("crlf.json");
    let (mut value, style) = parse_json_document(&bytes, Path::new("crlf.json")).unwrap();
    value["added"] = json!({"nested": [1, 2]});
    let out = render_json_document(&value, &style);
    let lf_only = out
        .windows(2)
        .enumerate()
        .any(|(i, w)| w[1] == b'\n' && (i == 0 || w[0] != b'\r'));
    assert!(!lf_only, "a bare LF slipped in");
    assert!(out.ends_with(b"}\r\n"));
}

#[test]
fn empty_object_in_pretty_style_is_braces() {
    let out = render_json_document(&json!({}), &JsonStyle::default());
    assert_eq!(out, b"{}\n");
    let nested = render_json_document(
        &json!({"a": {}, "b": []}),
        &style(Indent::Spaces(4), LineEnding::Crlf, false, false),
    );
    assert_eq!(
        String::from_utf8(nested).unwrap(),
        "{\r\n    \"a\": {},\r\n    \"b\": []\r\n}"
    );
}

#[test]
fn unusual_layouts_keep_their_content_and_settle_after_one_write() {
    for name in ["unusual-spacing.json", "inline-arrays.json"] {
        let bytes = fixture(name);
        let (value, style) = parse_json_document(&bytes, Path::new(name)).unwrap();
        let first = render_json_document(&value, &style);
        assert_ne!(first, bytes, "{name}: documented as not exact");
        let (reparsed, _) = parse_json_document(&first, Path::new(name)).unwrap();
        assert_eq!(reparsed, value, "{name}: content changed");
        assert_eq!(
            round_trip(&first),
            first,
            "{name}: not stable after one write"
        );
    }
}

#[test]
fn comments_are_refused_with_their_position() {
    let cases: &[(&str, usize, usize, &str)] = &[
        ("{\n  // keep me\n  \"a\": 1\n}\n", 2, 3, "`//`"),
        ("{\n\t\"a\": 1 /* why */\n}", 2, 9, "`/* */`"),
        ("{\"é\": 1, // x\n}", 1, 10, "`//`"),
    ];
    for (text, line, column, kind) in cases {
        let err = parse_json_document(text.as_bytes(), Path::new("/home/u/.gemini/settings.json"))
            .unwrap_err();
        assert_eq!((err.line, err.column), (*line, *column), "{text:?}");
        assert_eq!(err.format, FileFormat::Json);
        assert!(err.message.contains(kind), "{}", err.message);
        assert!(err.to_string().starts_with(&format!(
            "/home/u/.gemini/settings.json:{line}:{column}: not valid JSON: "
        )));
    }
    // Slashes inside strings are not comments.
    let ok = parse_json_document(
        br#"{"url": "https://x/*y*/", "p": "a//b"}"#,
        Path::new("s.json"),
    );
    assert!(ok.is_ok());
}

#[test]
fn malformed_json_names_file_line_and_column() {
    let err =
        parse_json_document(b"{\n  \"a\": 1,\n}\n", Path::new("/cfg/settings.json")).unwrap_err();
    assert_eq!((err.line, err.column), (3, 1));
    insta::assert_snapshot!(err.to_string(), @"/cfg/settings.json:3:1: not valid JSON: trailing comma");

    let err = parse_json_document(b"{\"caf\xc3\xa9\": tru}", Path::new("x.json")).unwrap_err();
    assert_eq!(err.line, 1);
    // serde_json stops at the `}` after `tru`: byte 14, character 13.
    assert_eq!(err.column, 13, "columns count characters, not bytes");

    let err = parse_json_document(b"", Path::new("empty.json")).unwrap_err();
    assert_eq!((err.line, err.column), (1, 1));

    let err = parse_json_document(b"{\"a\": \"\xff\"}", Path::new("bin.json")).unwrap_err();
    assert_eq!((err.line, err.column), (1, 8));
    assert_eq!(
        err.to_string(),
        "bin.json:1:8: not valid JSON: the file is not UTF-8 text"
    );
    assert_eq!(err.code(), "malformed_user_file");
}

/// A tiny deterministic generator for the round-trip property.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "hooks",
    "é ✓ 日本",
    "quote \" and \\",
    "line\nbreak\ttab",
    "\u{1}\u{1f}",
    "//not a comment",
    "/*x*/",
];

fn random_value(rng: &mut XorShift, depth: u32) -> Value {
    let pick = if depth >= 4 {
        rng.below(5)
    } else {
        rng.below(7)
    };
    match pick {
        0 => Value::Null,
        1 => Value::Bool(rng.below(2) == 0),
        2 => json!(rng.below(1_000_000) as i64 - 500_000),
        3 => json!(rng.below(10_000) as f64 / 8.0 + 0.5),
        4 => Value::String(STRINGS[rng.below(STRINGS.len() as u64) as usize].to_owned()),
        5 => Value::Array(
            (0..rng.below(4))
                .map(|_| random_value(rng, depth + 1))
                .collect(),
        ),
        _ => {
            let mut map = Map::new();
            for i in 0..rng.below(5) {
                let key = format!("{}{i}", STRINGS[rng.below(STRINGS.len() as u64) as usize]);
                map.insert(key, random_value(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

fn random_style(rng: &mut XorShift) -> JsonStyle {
    let indent = match rng.below(4) {
        0 => Indent::Spaces(1 + rng.below(8) as usize),
        1 => Indent::Tabs,
        _ => Indent::SingleLine {
            colon_space: rng.below(2) == 0,
            comma_space: rng.below(2) == 0,
        },
    };
    let line_ending = if rng.below(2) == 0 {
        LineEnding::Lf
    } else {
        LineEnding::Crlf
    };
    style(indent, line_ending, rng.below(2) == 0, rng.below(4) == 0)
}

#[test]
fn anything_rendered_parses_and_renders_back_identically() {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    for _ in 0..3000 {
        let value = random_value(&mut rng, 0);
        let style = random_style(&mut rng);
        let bytes = render_json_document(&value, &style);
        let (parsed, _) = parse_json_document(&bytes, Path::new("gen.json")).unwrap();
        assert_eq!(parsed, value);
        let again = round_trip(&bytes);
        assert!(
            again == bytes,
            "{style:?}\n{}\n---\n{}",
            String::from_utf8_lossy(&bytes),
            String::from_utf8_lossy(&again)
        );
    }
}
