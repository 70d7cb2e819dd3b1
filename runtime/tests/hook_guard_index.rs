//! The guard's snapshot read through its block index (the tenth round of issue 30): a deny
//! whose claim sorts far down a snapshot of many blocks is proved from the snapshot, and a
//! snapshot whose index lies, or one of the format before the index, is never believed by
//! the fast path: the store path (or, with the store unreadable, its snapshot fallback)
//! judges, and the covered write is refused either way.

mod hook_support;

use acc_runtime::store::{guard_snapshot, guard_token};
use hook_support::*;
use std::path::{Path, PathBuf};

const STORE_NOTE: &str = "the guard answered from its guarded-claims snapshot";

/// A sandbox whose peer holds `n` guarded trees `src/mNNN/**`, and "me" bound to it.
fn claimed(n: usize) -> (Sandbox, String) {
    let (sb, peer) = me_beside_a_guarded_peer((0..n).map(|i| format!("file:src/m{i:03}/**")));
    (sb, peer.session.to_string())
}

fn write(sb: &Sandbox, path: &str) -> HookRun {
    hook(
        sb.settings(certified, &[]),
        &write_payload("me", &sb.ws(), &[path]),
    )
}

fn store_file(sb: &Sandbox) -> PathBuf {
    sb.core().store_path().to_path_buf()
}

/// Runs `f` with the store overwritten in place by bytes SQLite cannot read, then puts it
/// back.
fn with_store_broken(store: &Path, f: impl FnOnce()) {
    let bytes = std::fs::read(store).unwrap();
    std::fs::write(store, vec![b'x'; bytes.len()]).unwrap();
    f();
    std::fs::write(store, bytes).unwrap();
}

/// The snapshot's content (before its sums) replaced by `content`, sealed with sums that
/// match and the token rewritten to seal the new file: what acc itself would publish, and
/// what no agent can (the data home is guarded) — the fast path must still not believe it.
fn republish(store: &Path, content: &str) {
    let file = guard_snapshot::path_for(store);
    std::fs::write(&file, guard_snapshot::seal_text(content.to_string())).unwrap();
    let token = guard_token::path_for(store);
    let text = std::fs::read_to_string(&token).unwrap();
    let mut fields: Vec<String> = text.trim_end().split('\t').map(String::from).collect();
    fields[1] = guard_token::seal_of(&std::fs::symlink_metadata(&file).unwrap());
    std::fs::write(&token, format!("{}\n", fields.join("\t"))).unwrap();
    assert!(
        guard_token::read(store).is_some(),
        "the token vouches for it"
    );
}

/// The published content, split into the header line, the lines after it up to the block
/// index, and the index.
fn published(store: &Path) -> (String, String, String) {
    let text = std::fs::read_to_string(guard_snapshot::path_for(store)).unwrap();
    let content = guard_snapshot::content_of(&text).unwrap();
    let (header, body) = content.split_once('\n').unwrap();
    let f: Vec<&str> = header.split('\t').collect();
    assert_eq!(f[1], guard_snapshot::SCHEMA.to_string());
    let claims_bytes: usize = f[6].parse().unwrap();
    let bindings_bytes: usize = f[7].parse().unwrap();
    let at = claims_bytes + 1 + bindings_bytes;
    (
        header.to_string(),
        body[..at].to_string(),
        body[at..].to_string(),
    )
}

#[test]
fn a_deny_far_down_the_snapshot_is_proved_from_it_and_a_lying_index_is_never_believed() {
    let (sb, peer) = claimed(300);
    let store = store_file(&sb);
    let refused = format!("file:src/m299/new.rs is claimed by peer (session {peer})");
    let (header, lines, index) = published(&store);
    assert!(index.lines().count() > 5, "several blocks: {index}");
    // From the snapshot alone: the store is not read.
    with_store_broken(&store, || {
        let denied = write(&sb, "src/m299/new.rs");
        assert_eq!((denied.code, &denied.stderr), (2, &refused), "{denied:?}");
        assert_eq!(write(&sb, "docs/notes.md").code, 0);
        assert_eq!(write(&sb, "src/m300/new.rs").code, 0);
    });
    // An index whose every key sorts after the claims, and one whose offsets fall inside
    // lines: the write is refused whatever path answers. The first makes the look-up fail
    // closed (the store path, or with the store unreadable its fallback, which says so);
    // the second may still be answered from the lines themselves, checked where they stand.
    let sort_last: String = index
        .lines()
        .map(|l| {
            let (offsets, _) = l.rsplit_once('\t').unwrap();
            format!("{offsets}\tfile:~\n")
        })
        .collect();
    let inside: String = index
        .lines()
        .map(|l| {
            let mut f = l.splitn(3, '\t');
            let (s, n, k) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
            let (s, n): (usize, usize) = (s.parse().unwrap(), n.parse().unwrap());
            format!("{}\t{}\t{k}\n", s + 3, n + 3)
        })
        .collect();
    for (lie, fails_closed) in [(sort_last, true), (inside, false)] {
        republish(&store, &format!("{header}\n{lines}{lie}"));
        let denied = write(&sb, "src/m299/new.rs");
        assert_eq!((denied.code, &denied.stderr), (2, &refused), "{denied:?}");
        with_store_broken(&store, || {
            let denied = write(&sb, "src/m299/new.rs");
            assert_eq!(denied.code, 2, "{denied:?}");
            assert!(denied.stderr.contains(&refused), "{denied:?}");
            if fails_closed {
                assert!(denied.stderr.contains(STORE_NOTE), "{denied:?}");
            }
        });
    }
}

#[test]
fn a_snapshot_of_the_format_before_the_index_is_judged_by_the_store_path() {
    let (sb, peer) = claimed(40);
    let store = store_file(&sb);
    let refused = format!("file:src/m039/new.rs is claimed by peer (session {peer})");
    let (header, lines, _) = published(&store);
    let (v4, _) = header.rsplit_once('\t').unwrap();
    let v4 = v4.replacen(&format!("\t{}\t", guard_snapshot::SCHEMA), "\t4\t", 1);
    republish(&store, &format!("{v4}\n{lines}"));
    // The fast path does not read it: with the store unreadable the fallback answers,
    // from the same snapshot's claims, and refuses.
    with_store_broken(&store, || {
        let denied = write(&sb, "src/m039/new.rs");
        assert_eq!(denied.code, 2, "{denied:?}");
        assert!(denied.stderr.contains(&refused), "{denied:?}");
        assert!(denied.stderr.contains(STORE_NOTE), "{denied:?}");
    });
    // The store path refuses; the next change to the claims publishes the snapshot in the
    // current format, and the fast path answers again.
    let denied = write(&sb, "src/m039/new.rs");
    assert_eq!((denied.code, &denied.stderr), (2, &refused), "{denied:?}");
    let mut core = sb.core();
    let other = attach(&mut core, "other", true);
    claim(&mut core, &other, "file:lib/**", true);
    drop(core);
    let (header, _, _) = published(&store);
    assert!(header.starts_with(&format!("acc-guarded-claims\t{}\t", guard_snapshot::SCHEMA)));
    with_store_broken(&store, || {
        let denied = write(&sb, "src/m039/new.rs");
        assert_eq!((denied.code, &denied.stderr), (2, &refused), "{denied:?}");
    });
}
