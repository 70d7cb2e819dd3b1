use super::*;
use crate::core::Owner;
use crate::core::claims::ClaimRequest;
use crate::core::model::Enforcement;
use crate::core::resources::Resource;
use crate::core::testkit::{Kit, kit};

fn claim(k: &mut Kit, owner: &Owner, resource: &str) -> ClaimId {
    let mut req = ClaimRequest::new(Resource::parse(resource).unwrap());
    req.enforcement = Enforcement::Guarded;
    k.core.claim(owner, req).unwrap().claim.claim_id
}

fn chain() -> Vec<CallerProcess> {
    vec![
        CallerProcess {
            pid: 4242,
            name: "script".into(),
            exe: Some("/usr/bin/script".into()),
        },
        CallerProcess {
            pid: 1,
            name: "init".into(),
            exe: None,
        },
    ]
}

fn request(
    kind: TakeoverKind,
    owner: &Owner,
    claim: Option<&ClaimId>,
    held: bool,
) -> TakeoverRequest {
    TakeoverRequest {
        kind,
        owner_session_id: owner.session.clone(),
        claim_id: claim.cloned(),
        taker_session_id: None,
        command: "release".into(),
        process: chain(),
        held,
        authority: None,
        reason: None,
    }
}

fn claim_ids(k: &mut Kit) -> Vec<String> {
    k.core
        .live_claims()
        .unwrap()
        .into_iter()
        .map(|c| c.claim_id.as_str().to_string())
        .collect()
}

#[test]
fn a_held_release_keeps_the_claim_until_confirmed_once() {
    let mut k = kit();
    let alice = k.attach_guarded("alice");
    let id = claim(&mut k, &alice, "file:src/**");
    let t = k
        .core
        .record_takeover(
            None,
            &request(TakeoverKind::Release, &alice, Some(&id), true),
        )
        .unwrap();
    assert_eq!(t.state, TakeoverState::Held);
    assert_eq!(t.claim_resource.as_deref(), Some("file:src/**"));
    assert_eq!(t.owner_participant_id.as_deref(), Some("alice"));
    assert_eq!(claim_ids(&mut k), vec![id.as_str().to_string()]);

    let listed = k.core.takeovers(Some(&alice.session), EventSeq(0)).unwrap();
    assert_eq!((listed.total, listed.held), (1, 1));
    assert_eq!(listed.listed[0].process, chain());

    let settled = k
        .core
        .settle_takeover(t.sequence, Settlement::Confirm, &Settler::Person)
        .unwrap();
    assert_eq!(settled.state, TakeoverState::Confirmed);
    assert!(
        claim_ids(&mut k).is_empty(),
        "the confirmed release removed the claim"
    );
    let again = k
        .core
        .settle_takeover(t.sequence, Settlement::Refuse, &Settler::Person)
        .unwrap_err();
    assert_eq!(again.code, ErrorCode::TakeoverNotHeld);
    assert_eq!(
        k.core.takeover(t.sequence).unwrap().state,
        TakeoverState::Confirmed
    );
}

#[test]
fn a_refused_release_changes_nothing_and_only_the_owner_or_a_person_settles() {
    let mut k = kit();
    let alice = k.attach_guarded("alice");
    let bob = k.attach_guarded("bob");
    let id = claim(&mut k, &alice, "file:src/**");
    let t = k
        .core
        .record_takeover(
            None,
            &request(TakeoverKind::ForcedRelease, &alice, Some(&id), true),
        )
        .unwrap();
    let not_bob = k
        .core
        .settle_takeover(
            t.sequence,
            Settlement::Confirm,
            &Settler::Owner {
                session_id: bob.session.as_str().to_string(),
            },
        )
        .unwrap_err();
    assert_eq!(not_bob.code, ErrorCode::AgentActsAsAnother);
    assert_eq!(claim_ids(&mut k).len(), 1);
    let refused = k
        .core
        .settle_takeover(
            t.sequence,
            Settlement::Refuse,
            &Settler::Owner {
                session_id: alice.session.as_str().to_string(),
            },
        )
        .unwrap();
    assert_eq!(refused.state, TakeoverState::Refused);
    assert_eq!(
        claim_ids(&mut k).len(),
        1,
        "a refused takeover keeps the claim"
    );
    assert_eq!(
        k.core.takeovers(None, EventSeq(0)).unwrap().held,
        0,
        "nothing is held any more"
    );
}

#[test]
fn a_confirmed_detach_closes_the_session_and_a_held_attach_holds_its_taker() {
    let mut k = kit();
    let alice = k.attach_guarded("alice");
    let t = k
        .core
        .record_takeover(None, &request(TakeoverKind::Detach, &alice, None, true))
        .unwrap();
    assert_eq!(
        k.core.session(&alice.session).unwrap().unwrap().state,
        SessionState::Open
    );
    k.core
        .settle_takeover(t.sequence, Settlement::Confirm, &Settler::Person)
        .unwrap();
    assert_eq!(
        k.core.session(&alice.session).unwrap().unwrap().state,
        SessionState::Closed
    );

    let carol = k.attach_guarded("carol");
    let taker = k.attach("carol");
    let mut attach = request(TakeoverKind::AttachLive, &carol, None, true);
    attach.taker_session_id = Some(taker.session.clone());
    let t = k.core.record_takeover(None, &attach).unwrap();
    assert!(k.core.held_taker(&taker.session).unwrap().is_some());
    assert!(k.core.held_taker(&carol.session).unwrap().is_none());
    k.core
        .settle_takeover(
            t.sequence,
            Settlement::Confirm,
            &Settler::Owner {
                session_id: carol.session.as_str().to_string(),
            },
        )
        .unwrap();
    assert!(k.core.held_taker(&taker.session).unwrap().is_none());
}

#[test]
fn a_done_takeover_is_told_but_not_settled() {
    let mut k = kit();
    let alice = k.attach_guarded("alice");
    let t = k
        .core
        .record_takeover(None, &request(TakeoverKind::ActedAs, &alice, None, false))
        .unwrap();
    assert_eq!(t.state, TakeoverState::Done);
    let err = k
        .core
        .settle_takeover(t.sequence, Settlement::Confirm, &Settler::Person)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::TakeoverNotHeld);
    assert_eq!(
        k.core
            .takeovers(Some(&alice.session), EventSeq(0))
            .unwrap()
            .total,
        1
    );
}
