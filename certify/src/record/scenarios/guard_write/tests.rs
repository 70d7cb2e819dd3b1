use super::*;
use crate::record::scenarios::guard_shell::GuardShell;
use crate::record::scenarios::lifecycle::Lifecycle;
use crate::record::scenarios::next_turn::NextTurn;

#[test]
fn guard_scripts_hit_the_claim_first_and_the_free_file_second() {
    let ws = Path::new("/ws");
    let write = GuardWrite.script(ws).unwrap();
    assert_eq!(
        write.steps(),
        [
            Step::write_file("/ws/src/x", "written by the model double\n"),
            Step::write_file("/ws/free.txt", "unclaimed\n")
        ]
    );
    let shell = GuardShell.script(ws).unwrap();
    assert_eq!(
        shell.steps(),
        [
            Step::shell("echo x > src/y"),
            Step::shell("echo ok > free.txt")
        ]
    );
    assert!(NextTurn.script(ws).unwrap().steps().is_empty());
    assert_eq!(
        GuardShell.deny_reason().as_deref(),
        Some("file:src/y is claimed by peer")
    );
    assert_eq!(Lifecycle.deny_reason(), None);
}
