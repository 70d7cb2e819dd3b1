//! Eight `acc claim` processes race for the same exclusive resource, a hundred times: each
//! round has exactly one winner, and every loser exits 5 with nothing else going wrong.

mod common;

use common::Sandbox;
use std::process::Stdio;

const PROCESSES: usize = 8;
const ROUNDS: usize = 100;

#[test]
fn exactly_one_of_eight_racing_claims_wins_each_round() {
    let sb = Sandbox::with_real_clock();
    let owners: Vec<(String, String)> = (0..PROCESSES)
        .map(|i| sb.attach(&format!("racer-{i}"), &[]))
        .collect();
    for round in 0..ROUNDS {
        let resource = format!("file:race/{round}.rs");
        let children: Vec<_> = owners
            .iter()
            .map(|(s, g)| {
                sb.cmd(&["claim", "--resource", &resource])
                    .env("ACC_SESSION", s)
                    .env("ACC_GENERATION", g)
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        let mut winners = 0;
        for child in children {
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            match out.status.code() {
                Some(0) => {
                    winners += 1;
                    assert_eq!(
                        String::from_utf8_lossy(&out.stdout).trim(),
                        format!("claimed {resource}")
                    );
                }
                Some(5) => assert!(stderr.contains("conflicts with"), "round {round}: {stderr}"),
                other => panic!("round {round}: unexpected exit {other:?}: {stderr}"),
            }
        }
        assert_eq!(winners, 1, "round {round}");
    }
    let status = sb.run(&["status", "--json"]).json();
    assert_eq!(status["data"]["counts"]["liveClaims"], ROUNDS);
}
