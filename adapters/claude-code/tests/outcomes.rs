//! Claude Code's answer shapes (Claude Code's envelope, asserted by the SDK), pinned.

use acc_adapter_claude_code::Behaviour;
use acc_sdk::testing::outcomes::claude_shaped_answers;

#[test]
fn deny_and_inject_are_the_hook_specific_output_envelope() {
    for (snapshot, out) in claude_shaped_answers(&Behaviour) {
        insta::assert_json_snapshot!(snapshot, out);
    }
}
