//! Editing TOML only inside the managed block: inspection refusals, in-place replacement,
//! line-ending preservation, and exact removal over many generated files.

use std::path::Path;

use acc_sdk::json_style::FileFormat;
use acc_sdk::toml_block::{
    ACC_BLOCK_MARKERS, BlockErrorKind, BlockMarkers, BlockState, inspect, remove_block,
    upsert_block, validate_toml,
};

const M: BlockMarkers<'static> = ACC_BLOCK_MARKERS;
const BODY: &str =
    "[marketplaces.acc-local]\nsource_type = \"local\"\nsource = \"/home/u/.agents/acc-local\"\n";

#[test]
fn default_markers() {
    assert_eq!(
        M.begin,
        "# >>> agents-can-communicate (managed; edits here are overwritten)"
    );
    assert_eq!(M.end, "# <<< agents-can-communicate");
    assert_eq!(BlockMarkers::default(), M);
}

#[test]
fn appends_after_the_users_text() {
    let user = "model = \"o3\"\n\n[profiles.fast]\nmodel = \"mini\"\n";
    let out = upsert_block(user, M, BODY).unwrap();
    insta::assert_snapshot!(out);
    let BlockState::Present { start, end, body } = inspect(&out, M).unwrap() else {
        panic!("no block")
    };
    assert_eq!(start, user.len());
    assert_eq!(end, out.len());
    assert_eq!(body, BODY);
    validate_toml(&out, Path::new("config.toml")).unwrap();
}

#[test]
fn no_trailing_newline_gets_one_separator_and_keeps_ending_bare() {
    let out = upsert_block("model = \"o3\"", M, BODY).unwrap();
    assert!(out.starts_with("model = \"o3\"\n# >>> agents-can-communicate"));
    assert!(out.ends_with("# <<< agents-can-communicate"), "{out:?}");
    assert_eq!(remove_block(&out, M).unwrap(), "model = \"o3\"");
}

#[test]
fn crlf_files_stay_crlf() {
    let user = "a = 1\r\nb = 2\r\n";
    let out = upsert_block(user, M, BODY).unwrap();
    assert_eq!(
        out.matches('\n').count(),
        out.matches("\r\n").count(),
        "bare LF in {out:?}"
    );
    assert_eq!(remove_block(&out, M).unwrap(), user);
    let bare = "a = 1\r\nb = 2";
    let out = upsert_block(bare, M, BODY).unwrap();
    assert!(out.starts_with("a = 1\r\nb = 2\r\n# >>>"));
    assert_eq!(remove_block(&out, M).unwrap(), bare);
}

#[test]
fn replaces_in_place_and_is_idempotent() {
    let user = "a = 1\n";
    let once = upsert_block(user, M, BODY).unwrap();
    let with_tail = format!("{once}\n[user.later]\nx = 2\n");
    let updated = upsert_block(
        &with_tail,
        M,
        "[plugins.\"agents-can-communicate@acc-local\"]\nenabled = true",
    )
    .unwrap();
    assert!(updated.starts_with("a = 1\n# >>> agents-can-communicate"));
    assert!(
        updated.contains("enabled = true\n# <<< agents-can-communicate\n\n[user.later]\nx = 2\n"),
        "{updated}"
    );
    assert!(!updated.contains("source_type"));
    assert_eq!(
        upsert_block(
            &updated,
            M,
            "[plugins.\"agents-can-communicate@acc-local\"]\nenabled = true"
        )
        .unwrap(),
        updated
    );
    assert_eq!(upsert_block(&once, M, BODY).unwrap(), once);
    assert_eq!(
        remove_block(&updated, M).unwrap(),
        "a = 1\n\n[user.later]\nx = 2\n"
    );
}

#[test]
fn inspection_refusals_carry_the_line() {
    let b = M.begin;
    let e = M.end;
    let cases = [
        (
            format!("x = 1\n{b}\n{b}\n{e}\n"),
            BlockErrorKind::NestedBegin,
            3,
        ),
        (format!("x = 1\n{e}\n"), BlockErrorKind::EndWithoutBegin, 2),
        (format!("{b}\nx = 1\n"), BlockErrorKind::BeginWithoutEnd, 1),
        (
            format!("{b}\n{e}\nx = 1\n{b}\n{e}\n"),
            BlockErrorKind::SecondBlock,
            4,
        ),
        (
            format!("{b}\n{e}\n{e}\n"),
            BlockErrorKind::EndWithoutBegin,
            3,
        ),
    ];
    for (text, kind, line) in cases {
        let err = inspect(&text, M).unwrap_err();
        assert_eq!((err.kind, err.line), (kind, line), "{text:?}");
        assert_eq!(
            upsert_block(&text, M, BODY).unwrap_err(),
            err,
            "upsert must refuse too"
        );
        assert_eq!(
            remove_block(&text, M).unwrap_err(),
            err,
            "remove must refuse too"
        );
    }
    let err = inspect(&format!("{b}\n"), M).unwrap_err();
    insta::assert_snapshot!(
        format!("{}: {err}", err.code()),
        @"block_begin_without_end: line 1: a BEGIN marker whose managed block never ends; fix the markers by hand so there is one block, or remove them"
    );
}

#[test]
fn markers_are_parameters() {
    let kimi = BlockMarkers {
        begin: "# BEGIN test",
        end: "# END test",
    };
    let out = upsert_block("", kimi, "[[hooks]]\nevent = \"Stop\"\n").unwrap();
    assert_eq!(
        out,
        "# BEGIN test\n[[hooks]]\nevent = \"Stop\"\n# END test\n"
    );
    assert_eq!(inspect(&out, M).unwrap(), BlockState::Absent);
    assert_eq!(remove_block(&out, kimi).unwrap(), "");
    // Indented or trailing-space marker lines still count as markers.
    let spaced = "  # BEGIN test  \nx = 1\n\t# END test\n";
    assert!(matches!(
        inspect(spaced, kimi).unwrap(),
        BlockState::Present { start: 0, .. }
    ));
}

#[test]
fn validate_toml_names_line_and_column() {
    validate_toml("a = 1\n[t]\nb = \"x\"\n", Path::new("config.toml")).unwrap();
    let err =
        validate_toml("a = 1\nb = = 2\n", Path::new("/home/u/.codex/config.toml")).unwrap_err();
    assert_eq!(err.format, FileFormat::Toml);
    assert_eq!((err.line, err.column), (2, 5));
    assert!(
        err.to_string()
            .starts_with("/home/u/.codex/config.toml:2:5: not valid TOML: "),
        "{err}"
    );
    let dup = validate_toml("[t]\na = 1\n[t]\n", Path::new("c.toml")).unwrap_err();
    assert_eq!(dup.line, 3);
}

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

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "a = 1",
    "[table]",
    "# comment",
    "",
    "   ",
    "\t",
    "key = \"v\"",
    "x = [1, 2]",
    "é = \"✓\"",
    "# >>> other marker",
    "[[hooks]]",
    "\r",
];

/// Random files: any mix of lines, LF or CRLF (or mixed), with or without a trailing line
/// ending, including empty files and files of blank lines.
fn random_file(rng: &mut XorShift) -> String {
    let lines = rng.below(7);
    let style = rng.below(3);
    let mut text = String::new();
    for i in 0..lines {
        text.push_str(PIECES[rng.below(PIECES.len())]);
        let last = i + 1 == lines;
        if !last || rng.below(2) == 0 {
            let crlf = match style {
                0 => false,
                1 => true,
                _ => rng.below(2) == 0,
            };
            text.push_str(if crlf { "\r\n" } else { "\n" });
        }
    }
    text
}

#[test]
fn remove_undoes_upsert_byte_for_byte() {
    let mut rng = XorShift(0x1234_5678_9ABC_DEF1);
    let bodies = [BODY, "", "x = 1", "a = 1\r\nb = 2\r\n", "\n\n"];
    for _ in 0..5000 {
        let text = random_file(&mut rng);
        let body = bodies[rng.below(bodies.len())];
        assert_eq!(inspect(&text, M).unwrap(), BlockState::Absent);
        let with_block = upsert_block(&text, M, body).unwrap();
        assert!(
            with_block.starts_with(&text),
            "user text must stay in front: {text:?}"
        );
        assert!(matches!(
            inspect(&with_block, M).unwrap(),
            BlockState::Present { .. }
        ));
        assert_eq!(remove_block(&with_block, M).unwrap(), text, "body {body:?}");
        // Idempotent, and a changed body still removes cleanly.
        assert_eq!(
            upsert_block(&with_block, M, body).unwrap(),
            with_block,
            "{text:?}"
        );
        let changed = upsert_block(&with_block, M, "changed = true\n").unwrap();
        assert_eq!(remove_block(&changed, M).unwrap(), text, "{text:?}");
        // What acc adds follows the file's first line ending.
        if text.contains("\r\n") && text.find('\n') == text.find("\r\n").map(|i| i + 1) {
            let added = &with_block[text.len()..];
            assert_eq!(
                added.matches('\n').count(),
                added.matches("\r\n").count(),
                "{text:?}"
            );
        }
    }
}
