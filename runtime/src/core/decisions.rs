//! Decisions and how they change. A decision message may carry a `decisionChange` that
//! replaces or withdraws 1 to 16 earlier decisions. The decisions it names are never edited:
//! the change is stored as links from the new message to its targets, and where each
//! decision stands now (`decisionStatus`) is derived from those links at read time, never
//! stored.
//!
//! The definitions (docs/DECISIONS.md says the same for users):
//! - A **link** goes from a decision that carries a change to each decision the change names.
//! - A decision's **group** is every decision connected to it by links, in either direction.
//!   **`groupId`** is the earliest-sent decision of the group. It is always a decision without
//!   a change (a change can only name decisions sent before it), so it is the root of the
//!   replace chain; when one replacement joins several chains, the oldest root names the
//!   joined group.
//! - A **head** is a decision that no other decision replaces or withdraws (`isHead`).
//!   **`headCount`** is the number of heads in the group, and the group is **`conflicted`**
//!   exactly when it has more than one head: two decisions replaced the same one, or one
//!   decision was both replaced and withdrawn, so the room has more than one latest word.
//! - **`state`** of one decision, in this order: `withdrawn` when a decision withdraws it;
//!   else `superseded` when a decision replaces it; else `withdrawn` when it is itself a
//!   withdrawal (it stands for "no decision any more"); else `current`.
//! - **`currentMessageId`** is the decision in force for the whole group: its only head, when
//!   the group is not conflicted and that head is `current`; absent when the group was
//!   withdrawn or is conflicted.
//!
//! Non-head decisions are left out of inbox pages, next-turn delivery and attention (the
//! `HEAD_ONLY` condition); an exact read still shows them, with their status.

use super::model::MessageKind;
use super::receipts;
use crate::clock::to_iso;
use crate::error::{AccError, ErrorCode, Result};
use crate::ids::{MessageId, ParticipantId, ThreadId};
use crate::store::engine::{Connection, params};
use crate::text::{LISTED_SUBJECT_BYTES, cut_bytes};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

/// Most decisions one change may name.
pub const MAX_DECISION_TARGETS: usize = 16;

/// Most decisions a full sync snapshot lists (the newest ones).
pub const MAX_LISTED_DECISIONS: usize = 100;

/// The SQL condition "message `m` is not replaced or withdrawn by any decision": true for
/// every message that is not a decision, and for decisions that are heads.
pub(crate) const HEAD_ONLY: &str =
    "NOT EXISTS (SELECT 1 FROM decision_links dl WHERE dl.target_seq = m.seq)";

/// What a decision change does to the decisions it names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DecisionAction {
    /// The new decision takes the targets' place (`--supersedes`).
    Replace,
    /// The targets no longer hold, and nothing takes their place (`--withdraws`).
    Withdraw,
}

impl DecisionAction {
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionAction::Replace => "replace",
            DecisionAction::Withdraw => "withdraw",
        }
    }

    /// The name of the field (MCP) and flag (CLI, with `--`) that asks for this action.
    pub fn field(self) -> &'static str {
        match self {
            DecisionAction::Replace => "supersedes",
            DecisionAction::Withdraw => "withdraws",
        }
    }

    fn from_store(s: &str) -> Result<Self> {
        match s {
            "replace" => Ok(DecisionAction::Replace),
            "withdraw" => Ok(DecisionAction::Withdraw),
            _ => Err(AccError::new(
                ErrorCode::StoreCorrupt,
                format!("the store holds an unknown decision action {s:?}"),
            )),
        }
    }
}

impl std::fmt::Display for DecisionAction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for DecisionAction {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A decision's `decisionChange`: an action and the 1..=16 distinct decisions it names. Built
/// only through [`DecisionChange::new`], so an empty, oversized or repetitive change cannot
/// exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionChange {
    action: DecisionAction,
    message_ids: Vec<MessageId>,
}

impl DecisionChange {
    /// Checks the shape (usage errors): 1 to 16 ids, none named twice.
    pub fn new(action: DecisionAction, message_ids: Vec<MessageId>) -> Result<DecisionChange> {
        let field = action.field();
        if message_ids.is_empty() {
            return Err(AccError::usage(format!(
                "{field} names no decision; name 1 to {MAX_DECISION_TARGETS}"
            ))
            .with("field", field));
        }
        if message_ids.len() > MAX_DECISION_TARGETS {
            return Err(AccError::usage(format!(
                "{field} names {} decisions; at most {MAX_DECISION_TARGETS} are allowed",
                message_ids.len()
            ))
            .with("field", field));
        }
        let mut seen = HashSet::new();
        for id in &message_ids {
            if !seen.insert(id) {
                return Err(
                    AccError::usage(format!("{field} names decision {id} more than once"))
                        .with("field", field)
                        .with("messageId", id.as_str()),
                );
            }
        }
        Ok(DecisionChange {
            action,
            message_ids,
        })
    }

    pub fn action(&self) -> DecisionAction {
        self.action
    }

    pub fn message_ids(&self) -> &[MessageId] {
        &self.message_ids
    }
}

/// Where one decision stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DecisionState {
    Current,
    Withdrawn,
    Superseded,
}

impl DecisionState {
    pub fn as_str(self) -> &'static str {
        match self {
            DecisionState::Current => "current",
            DecisionState::Withdrawn => "withdrawn",
            DecisionState::Superseded => "superseded",
        }
    }
}

impl std::fmt::Display for DecisionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for DecisionState {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// A decision's derived `decisionStatus` (see the module documentation for each field).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionStatus {
    pub state: DecisionState,
    pub is_head: bool,
    pub conflicted: bool,
    pub head_count: usize,
    pub current_message_id: Option<MessageId>,
    pub group_id: MessageId,
}

impl DecisionStatus {
    /// A short label for one-line human output, such as `current`,
    /// `superseded; current message_…` or `current; conflicted: 2 heads`.
    pub fn label(&self) -> String {
        let mut s = self.state.as_str().to_string();
        if self.conflicted {
            s.push_str(&format!("; conflicted: {} heads", self.head_count));
        } else if let Some(current) = &self.current_message_id
            && self.state != DecisionState::Current
        {
            s.push_str(&format!("; current {current}"));
        }
        s
    }
}

/// One decision of the graph, as the derivation sees it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct DecisionNode {
    pub seq: i64,
    pub message_id: MessageId,
    /// The change this decision carries: its action and its targets' seqs.
    pub change: Option<(DecisionAction, Vec<i64>)>,
}

fn find(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// Derives the status of every node. `nodes` must hold whole groups: every target of a node,
/// and every node naming one of them, is in the slice (links to anything else are ignored).
pub(crate) fn derive(nodes: &[DecisionNode]) -> HashMap<i64, DecisionStatus> {
    let index: HashMap<i64, usize> = nodes.iter().enumerate().map(|(i, n)| (n.seq, i)).collect();
    let mut parent: Vec<usize> = (0..nodes.len()).collect();
    let mut replaced = HashSet::new();
    let mut withdrawn = HashSet::new();
    for (i, node) in nodes.iter().enumerate() {
        let Some((action, targets)) = &node.change else {
            continue;
        };
        for t in targets {
            let Some(&j) = index.get(t) else { continue };
            let (a, b) = (find(&mut parent, i), find(&mut parent, j));
            parent[a] = b;
            match action {
                DecisionAction::Replace => replaced.insert(*t),
                DecisionAction::Withdraw => withdrawn.insert(*t),
            };
        }
    }
    let state = |n: &DecisionNode| {
        if withdrawn.contains(&n.seq) {
            DecisionState::Withdrawn
        } else if replaced.contains(&n.seq) {
            DecisionState::Superseded
        } else if matches!(n.change, Some((DecisionAction::Withdraw, _))) {
            DecisionState::Withdrawn
        } else {
            DecisionState::Current
        }
    };
    let mut groups: BTreeMap<usize, Vec<&DecisionNode>> = BTreeMap::new();
    for (i, node) in nodes.iter().enumerate() {
        let root = find(&mut parent, i);
        groups.entry(root).or_default().push(node);
    }
    let mut out = HashMap::with_capacity(nodes.len());
    for members in groups.values() {
        let root = members
            .iter()
            .min_by_key(|n| n.seq)
            .expect("a group has a member");
        let heads: Vec<&&DecisionNode> = members
            .iter()
            .filter(|n| !replaced.contains(&n.seq) && !withdrawn.contains(&n.seq))
            .collect();
        let conflicted = heads.len() > 1;
        let current = match heads.as_slice() {
            [only] if state(only) == DecisionState::Current => Some(only.message_id.clone()),
            _ => None,
        };
        for n in members {
            out.insert(
                n.seq,
                DecisionStatus {
                    state: state(n),
                    is_head: !replaced.contains(&n.seq) && !withdrawn.contains(&n.seq),
                    conflicted,
                    head_count: heads.len(),
                    current_message_id: current.clone(),
                    group_id: root.message_id.clone(),
                },
            );
        }
    }
    out
}

/// The change a stored decision carries, with its targets in the order the sender named them.
pub(crate) fn change_of(conn: &Connection, seq: i64) -> Result<Option<DecisionChange>> {
    let mut stmt = conn.prepare_cached(
        "SELECT l.action, t.message_id FROM decision_links l JOIN messages t ON t.seq = l.target_seq
         WHERE l.message_seq = ?1 ORDER BY l.position",
    )?;
    let mut rows = stmt.query(params![seq])?;
    let mut action = None;
    let mut ids = Vec::new();
    while let Some(r) = rows.next()? {
        action = Some(DecisionAction::from_store(&r.get::<_, String>(0)?)?);
        ids.push(MessageId::from_store(r.get(1)?));
    }
    Ok(action.map(|action| DecisionChange {
        action,
        message_ids: ids,
    }))
}

/// Every decision in the groups of `seeds`, found by following links both ways.
fn load_groups(conn: &Connection, seeds: &[i64]) -> Result<Vec<DecisionNode>> {
    let mut id_of = conn.prepare_cached("SELECT message_id FROM messages WHERE seq = ?1")?;
    let mut targets_of = conn.prepare_cached(
        "SELECT action, target_seq FROM decision_links WHERE message_seq = ?1 ORDER BY position",
    )?;
    let mut changers_of =
        conn.prepare_cached("SELECT message_seq FROM decision_links WHERE target_seq = ?1")?;
    let mut seen: HashSet<i64> = seeds.iter().copied().collect();
    let mut queue: VecDeque<i64> = seeds.iter().copied().collect();
    let mut nodes = Vec::new();
    while let Some(seq) = queue.pop_front() {
        let message_id = MessageId::from_store(id_of.query_row(params![seq], |r| r.get(0))?);
        let mut action = None;
        let mut targets = Vec::new();
        let mut rows = targets_of.query(params![seq])?;
        while let Some(r) = rows.next()? {
            action = Some(DecisionAction::from_store(&r.get::<_, String>(0)?)?);
            targets.push(r.get::<_, i64>(1)?);
        }
        let changers = changers_of
            .query_map(params![seq], |r| r.get::<_, i64>(0))?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        for next in targets.iter().chain(&changers) {
            if seen.insert(*next) {
                queue.push_back(*next);
            }
        }
        nodes.push(DecisionNode {
            seq,
            message_id,
            change: action.map(|a| (a, targets)),
        });
    }
    Ok(nodes)
}

/// The statuses of the decisions `seqs` (and of everything in their groups).
pub(crate) fn statuses(conn: &Connection, seqs: &[i64]) -> Result<HashMap<i64, DecisionStatus>> {
    if seqs.is_empty() {
        return Ok(HashMap::new());
    }
    Ok(derive(&load_groups(conn, seqs)?))
}

/// A decision change checked against the store: each target's seq, in the given order.
pub(crate) struct ResolvedChange {
    pub change: DecisionChange,
    pub target_seqs: Vec<i64>,
}

/// What a decision change needs of a message it names: its kind and who may see it. Read
/// here rather than through the message loader, which itself fills in every decision's
/// change and status from this module.
struct Target {
    seq: i64,
    kind: MessageKind,
    from_participant_id: ParticipantId,
    to_participant_ids: Vec<String>,
}

fn load_target(conn: &Connection, id: &str) -> Result<Option<Target>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, kind, from_participant_id, to_participant_ids FROM messages
         WHERE message_id = ?1",
    )?;
    let mut rows = stmt.query(params![id])?;
    let Some(r) = rows.next()? else {
        return Ok(None);
    };
    let to: String = r.get(3)?;
    Ok(Some(Target {
        seq: r.get(0)?,
        kind: MessageKind::from_store(&r.get::<_, String>(1)?)?,
        from_participant_id: ParticipantId::from_store(r.get(2)?),
        to_participant_ids: serde_json::from_str(&to).unwrap_or_default(),
    }))
}

/// Checks that every target exists (data error otherwise), is a decision (data error: there
/// is no such decision) and is one the sender may see: a room decision, one its participant
/// sent, or one addressed to it (a conflict otherwise, as for reading it).
pub(crate) fn resolve(
    conn: &Connection,
    me: &ParticipantId,
    change: DecisionChange,
) -> Result<ResolvedChange> {
    let field = change.action.field();
    let mut target_seqs = Vec::with_capacity(change.message_ids.len());
    for id in &change.message_ids {
        let Some(target) = load_target(conn, id.as_str())? else {
            return Err(AccError::new(
                ErrorCode::NotFound,
                format!("{field} names {id}, but no such message exists"),
            )
            .with("field", field)
            .with("messageId", id.as_str()));
        };
        let rec = &target;
        if rec.kind != MessageKind::Decision {
            return Err(AccError::new(
                ErrorCode::NotFound,
                format!(
                    "{field} names {id}, a {}, but only decisions can be {}",
                    rec.kind,
                    match change.action {
                        DecisionAction::Replace => "superseded",
                        DecisionAction::Withdraw => "withdrawn",
                    }
                ),
            )
            .with("field", field)
            .with("messageId", id.as_str())
            .with("kind", rec.kind.as_str()));
        }
        let visible = rec.to_participant_ids.is_empty()
            || rec.from_participant_id == *me
            || receipts::load(conn, id, me)?.is_some();
        if !visible {
            return Err(AccError::new(
                ErrorCode::NotAddressed,
                format!(
                    "{field} names decision {id}, which participant {me} neither sent nor received"
                ),
            )
            .with("field", field)
            .with("messageId", id.as_str()));
        }
        target_seqs.push(target.seq);
    }
    Ok(ResolvedChange {
        change,
        target_seqs,
    })
}

/// Writes the links of the decision `seq` inside the caller's transaction.
pub(crate) fn write_links(tx: &Connection, seq: i64, resolved: &ResolvedChange) -> Result<()> {
    let mut stmt = tx.prepare_cached(
        "INSERT INTO decision_links (message_seq, position, action, target_seq)
         VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (position, target) in resolved.target_seqs.iter().enumerate() {
        stmt.execute(params![
            seq,
            position as i64,
            resolved.change.action.as_str(),
            target
        ])?;
    }
    Ok(())
}

/// A decision in force, as a full sync snapshot lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DecisionSummary {
    pub message_id: MessageId,
    pub thread_id: ThreadId,
    pub from_participant_id: ParticipantId,
    /// Cut to 160 bytes.
    pub subject: String,
    pub sent_at: String,
    pub room: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision_change: Option<DecisionChange>,
    pub decision_status: DecisionStatus,
}

/// The decisions in force that `viewer` may read (room decisions, its own and those
/// addressed to it; without a viewer, room decisions only): every head that is not a
/// withdrawal, oldest first, at most the newest [`MAX_LISTED_DECISIONS`]. A head of a
/// conflicted group is listed with `conflicted: true`.
pub(crate) fn in_force(
    conn: &Connection,
    viewer: Option<&ParticipantId>,
) -> Result<Vec<DecisionSummary>> {
    let sql = format!(
        "SELECT m.seq, m.message_id, m.thread_id, m.from_participant_id, m.subject, m.sent_at,
            m.to_participant_ids
         FROM messages m
         WHERE m.kind = 'decision' AND {HEAD_ONLY}
           AND NOT EXISTS (SELECT 1 FROM decision_links w
                           WHERE w.message_seq = m.seq AND w.action = 'withdraw')
           AND (m.to_participant_ids = '[]' OR m.from_participant_id = ?1
                OR EXISTS (SELECT 1 FROM receipts r
                           WHERE r.message_seq = m.seq AND r.recipient_participant_id = ?1))
         ORDER BY m.seq DESC LIMIT ?2"
    );
    let mut stmt = conn.prepare_cached(&sql)?;
    // An empty participant id never matches: without a viewer only room decisions show.
    let who = viewer.map(|p| p.as_str()).unwrap_or("");
    let mut rows = stmt.query(params![who, MAX_LISTED_DECISIONS as i64])?;
    let mut found = Vec::new();
    while let Some(r) = rows.next()? {
        let subject: String = r.get(4)?;
        let to: String = r.get(6)?;
        found.push((
            r.get::<_, i64>(0)?,
            MessageId::from_store(r.get(1)?),
            ThreadId::from_store(r.get(2)?),
            ParticipantId::from_store(r.get(3)?),
            cut_bytes(&subject, LISTED_SUBJECT_BYTES).to_string(),
            to_iso(r.get(5)?),
            to == "[]",
        ));
    }
    drop(rows);
    found.reverse();
    let seqs: Vec<i64> = found.iter().map(|f| f.0).collect();
    let mut status = statuses(conn, &seqs)?;
    let mut out = Vec::with_capacity(found.len());
    for (seq, message_id, thread_id, from, subject, sent_at, room) in found {
        out.push(DecisionSummary {
            message_id,
            thread_id,
            from_participant_id: from,
            subject,
            sent_at,
            room,
            decision_change: change_of(conn, seq)?,
            decision_status: status
                .remove(&seq)
                .expect("every listed decision has a status"),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Owner;
    use crate::core::messages::{SendMessage, SendOutcome};
    use crate::core::model::Obligation;
    use crate::core::testkit::{Kit, kit};

    // ---- the derivation, on hand-built graphs ------------------------------------------

    fn node(seq: i64, change: Option<(DecisionAction, &[i64])>) -> DecisionNode {
        DecisionNode {
            seq,
            message_id: MessageId::from_store(format!("message_{seq}")),
            change: change.map(|(a, t)| (a, t.to_vec())),
        }
    }

    fn id(seq: i64) -> MessageId {
        MessageId::from_store(format!("message_{seq}"))
    }

    use DecisionAction::{Replace, Withdraw};
    use DecisionState::{Current, Superseded, Withdrawn};

    #[test]
    fn a_lone_decision_is_its_own_current_head() {
        let s = derive(&[node(1, None)]);
        assert_eq!(
            s[&1],
            DecisionStatus {
                state: Current,
                is_head: true,
                conflicted: false,
                head_count: 1,
                current_message_id: Some(id(1)),
                group_id: id(1),
            }
        );
    }

    #[test]
    fn a_replace_chain_has_one_head_and_the_root_names_the_group() {
        let s = derive(&[
            node(1, None),
            node(2, Some((Replace, &[1]))),
            node(3, Some((Replace, &[2]))),
        ]);
        for seq in [1, 2] {
            assert_eq!(s[&seq].state, Superseded, "{seq}");
            assert!(!s[&seq].is_head);
        }
        assert_eq!(s[&3].state, Current);
        assert!(s[&3].is_head);
        for seq in [1, 2, 3] {
            assert_eq!(s[&seq].group_id, id(1));
            assert_eq!(s[&seq].current_message_id, Some(id(3)));
            assert_eq!(s[&seq].head_count, 1);
            assert!(!s[&seq].conflicted);
        }
    }

    #[test]
    fn a_withdrawal_leaves_the_group_without_a_current_decision() {
        let s = derive(&[node(1, None), node(2, Some((Withdraw, &[1])))]);
        assert_eq!(s[&1].state, Withdrawn);
        assert!(!s[&1].is_head);
        // The withdrawal is the head, and it stands for "no decision".
        assert_eq!(s[&2].state, Withdrawn);
        assert!(s[&2].is_head);
        for seq in [1, 2] {
            assert_eq!(s[&seq].current_message_id, None);
            assert_eq!(s[&seq].head_count, 1);
            assert!(!s[&seq].conflicted);
            assert_eq!(s[&seq].group_id, id(1));
        }
    }

    #[test]
    fn two_replacements_of_one_decision_conflict() {
        let s = derive(&[
            node(1, None),
            node(2, Some((Replace, &[1]))),
            node(3, Some((Replace, &[1]))),
        ]);
        assert_eq!(s[&1].state, Superseded);
        for seq in [2, 3] {
            assert_eq!(s[&seq].state, Current);
            assert!(s[&seq].is_head);
        }
        for seq in [1, 2, 3] {
            assert!(s[&seq].conflicted, "{seq}");
            assert_eq!(s[&seq].head_count, 2);
            assert_eq!(s[&seq].current_message_id, None);
            assert_eq!(s[&seq].group_id, id(1));
        }
        // Replacing both heads resolves the conflict.
        let s = derive(&[
            node(1, None),
            node(2, Some((Replace, &[1]))),
            node(3, Some((Replace, &[1]))),
            node(4, Some((Replace, &[2, 3]))),
        ]);
        assert!(!s[&1].conflicted);
        assert_eq!(s[&1].current_message_id, Some(id(4)));
        assert_eq!(s[&4].head_count, 1);
    }

    #[test]
    fn withdrawing_a_superseded_decision_marks_it_withdrawn_and_conflicts() {
        let s = derive(&[
            node(1, None),
            node(2, Some((Replace, &[1]))),
            node(3, Some((Withdraw, &[1]))),
        ]);
        // Withdrawn wins over superseded for the decision itself...
        assert_eq!(s[&1].state, Withdrawn);
        assert!(!s[&1].is_head);
        // ...while its replacement still stands, next to the withdrawal: two latest words.
        assert_eq!(s[&2].state, Current);
        assert_eq!(s[&3].state, Withdrawn);
        for seq in [1, 2, 3] {
            assert!(s[&seq].conflicted);
            assert_eq!(s[&seq].head_count, 2);
            assert_eq!(s[&seq].current_message_id, None);
        }
    }

    #[test]
    fn replacing_a_withdrawal_reinstates_a_decision() {
        let s = derive(&[
            node(1, None),
            node(2, Some((Withdraw, &[1]))),
            node(3, Some((Replace, &[2]))),
        ]);
        assert_eq!(s[&1].state, Withdrawn);
        assert_eq!(s[&2].state, Superseded);
        assert_eq!(s[&3].state, Current);
        assert_eq!(s[&1].current_message_id, Some(id(3)));
    }

    #[test]
    fn one_replacement_joins_chains_under_the_oldest_root() {
        let s = derive(&[
            node(5, None),
            node(7, None),
            node(8, Some((Replace, &[7]))),
            node(9, Some((Replace, &[8, 5]))),
            node(10, None),
        ]);
        for seq in [5, 7, 8, 9] {
            assert_eq!(s[&seq].group_id, id(5));
            assert_eq!(s[&seq].current_message_id, Some(id(9)));
        }
        // An unrelated decision is a group of its own.
        assert_eq!(s[&10].group_id, id(10));
        assert_eq!(s[&10].current_message_id, Some(id(10)));
    }

    #[test]
    fn labels_say_what_a_reader_needs() {
        let s = derive(&[
            node(1, None),
            node(2, Some((Replace, &[1]))),
            node(3, None),
            node(4, Some((Replace, &[3]))),
            node(5, Some((Replace, &[3]))),
            node(6, None),
            node(7, Some((Withdraw, &[6]))),
        ]);
        assert_eq!(s[&1].label(), "superseded; current message_2");
        assert_eq!(s[&2].label(), "current");
        assert_eq!(s[&4].label(), "current; conflicted: 2 heads");
        assert_eq!(s[&6].label(), "withdrawn");
    }

    #[test]
    fn change_shapes_are_checked() {
        let ids = |n: usize| (0..n).map(|i| id(i as i64)).collect::<Vec<_>>();
        assert!(DecisionChange::new(Replace, ids(16)).is_ok());
        let e = DecisionChange::new(Replace, ids(17)).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.message,
            "supersedes names 17 decisions; at most 16 are allowed"
        );
        let e = DecisionChange::new(Withdraw, vec![]).unwrap_err();
        assert_eq!(e.message, "withdraws names no decision; name 1 to 16");
        let e = DecisionChange::new(Withdraw, vec![id(1), id(2), id(1)]).unwrap_err();
        assert_eq!(
            e.message,
            "withdraws names decision message_1 more than once"
        );
        assert_eq!(e.exit_code(), 2);
    }

    // ---- through the core -----------------------------------------------------------------

    fn decision(to: &[&str], subject: &str) -> SendMessage {
        SendMessage {
            to: to.iter().map(|s| s.to_string()).collect(),
            kind: MessageKind::Decision,
            obligation: None,
            subject: subject.into(),
            body: format!("body of {subject}"),
            client_message_id: None,
        }
    }

    fn decide(
        k: &mut Kit,
        who: &Owner,
        req: SendMessage,
        change: Option<(DecisionAction, &[&MessageId])>,
    ) -> Result<SendOutcome> {
        let change = change
            .map(|(a, ids)| DecisionChange::new(a, ids.iter().map(|i| (*i).clone()).collect()))
            .transpose()?;
        k.core.send_with_change(who, req, change)
    }

    fn sent(k: &mut Kit, who: &Owner, req: SendMessage) -> MessageId {
        decide(k, who, req, None).unwrap().message.message_id
    }

    fn status(k: &mut Kit, id: &MessageId) -> DecisionStatus {
        k.core
            .message(id)
            .unwrap()
            .unwrap()
            .decision_status
            .expect("a decision has a status")
    }

    #[test]
    fn a_replacement_is_stored_as_links_and_shown_with_its_status() {
        let mut k = kit();
        let a = k.attach("alice");
        k.attach("bob");
        let first = sent(&mut k, &a, decision(&[], "use sqlite"));
        let before = k.count("SELECT count(*) FROM messages");
        let out = decide(
            &mut k,
            &a,
            decision(&[], "use sqlite in WAL mode"),
            Some((Replace, &[&first])),
        )
        .unwrap();
        let second = out.message.message_id.clone();
        assert_eq!(k.count("SELECT count(*) FROM messages"), before + 1);
        assert_eq!(
            out.message.decision_change.as_ref().unwrap().message_ids(),
            std::slice::from_ref(&first)
        );
        assert_eq!(out.message.decision_status.as_ref().unwrap().state, Current);
        // The target is untouched; only its derived status moved.
        let old = k.core.message(&first).unwrap().unwrap();
        assert_eq!(old.subject, "use sqlite");
        assert!(old.decision_change.is_none());
        let st = status(&mut k, &first);
        assert_eq!(st.state, Superseded);
        assert_eq!(st.current_message_id, Some(second.clone()));
        assert_eq!(st.group_id, first);
        // The event says what changed, for sync readers.
        let payload: String = k
            .core
            .store
            .read(|c| {
                Ok(c.query_row(
                    "SELECT payload FROM events WHERE type = 'message.recorded' ORDER BY sequence DESC LIMIT 1",
                    [],
                    |r| r.get(0),
                )?)
            })
            .unwrap();
        let payload: serde_json::Value = serde_json::from_str(&payload).unwrap();
        assert_eq!(payload["decisionChange"]["action"], "replace");
        assert_eq!(payload["decisionChange"]["messageIds"][0], first.as_str());
        // Other kinds show no decision fields at all.
        let mut note = decision(&["bob"], "n");
        note.kind = MessageKind::Note;
        let n = sent(&mut k, &a, note);
        let json = serde_json::to_value(k.core.message(&n).unwrap().unwrap()).unwrap();
        assert!(json.get("decisionStatus").is_none(), "{json}");
        assert!(json.get("decisionChange").is_none(), "{json}");
    }

    #[test]
    fn refusals_write_nothing_and_carry_the_right_exit_codes() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        k.attach("carol");
        let room = sent(&mut k, &a, decision(&[], "room decision"));
        let private = sent(&mut k, &a, decision(&["carol"], "between alice and carol"));
        let mut note = decision(&["bob"], "just a note");
        note.kind = MessageKind::Note;
        let note_id = sent(&mut k, &a, note.clone());
        let messages = k.count("SELECT count(*) FROM messages");
        let events = k.count("SELECT count(*) FROM events");
        let missing = MessageId::parse("message_missing").unwrap();

        // Only a decision carries a change (usage).
        let e = decide(&mut k, &a, note, Some((Replace, &[&room]))).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        assert_eq!(
            e.message,
            "only a decision can supersede or withdraw decisions; this message is a note"
        );
        // Room decisions oblige nothing, with a change as without (usage).
        let mut ack = decision(&[], "acknowledge this");
        ack.obligation = Some(Obligation::Acknowledge);
        let e = decide(&mut k, &a, ack, Some((Replace, &[&room]))).unwrap_err();
        assert_eq!(e.exit_code(), 2);
        // An unknown target or one that is not a decision (data).
        let e = decide(&mut k, &a, decision(&[], "x"), Some((Replace, &[&missing]))).unwrap_err();
        assert_eq!((e.code, e.exit_code()), (ErrorCode::NotFound, 4));
        assert_eq!(
            e.message,
            "supersedes names message_missing, but no such message exists"
        );
        let e = decide(
            &mut k,
            &a,
            decision(&[], "x"),
            Some((Withdraw, &[&note_id])),
        )
        .unwrap_err();
        assert_eq!(e.exit_code(), 4);
        assert_eq!(
            e.message,
            format!("withdraws names {note_id}, a note, but only decisions can be withdrawn")
        );
        // A decision bob never saw is not his to change (conflict).
        let e = decide(
            &mut k,
            &b,
            decision(&[], "x"),
            Some((Withdraw, &[&private])),
        )
        .unwrap_err();
        assert_eq!((e.code, e.exit_code()), (ErrorCode::NotAddressed, 5));
        assert!(
            e.message
                .contains("participant bob neither sent nor received"),
            "{}",
            e.message
        );
        assert_eq!(k.count("SELECT count(*) FROM messages"), messages);
        assert_eq!(k.count("SELECT count(*) FROM events"), events);
        assert_eq!(k.count("SELECT count(*) FROM decision_links"), 0);
        // Bob may change the room decision (everyone got it) and its retry is idempotent.
        let mut req = decision(&[], "bob's take");
        req.client_message_id = Some("take-1".into());
        let first = decide(&mut k, &b, req.clone(), Some((Replace, &[&room]))).unwrap();
        let again = decide(&mut k, &b, req.clone(), Some((Replace, &[&room]))).unwrap();
        assert!(again.duplicate);
        assert_eq!(again.message.message_id, first.message.message_id);
        assert!(again.message.decision_change.is_some());
        // The same client id with another change is a changed retry (conflict).
        let e = decide(&mut k, &b, req.clone(), Some((Withdraw, &[&room]))).unwrap_err();
        assert_eq!(
            (e.code, e.exit_code()),
            (ErrorCode::ClientMessageConflict, 5)
        );
        let e = decide(&mut k, &b, req, None).unwrap_err();
        assert_eq!(e.code, ErrorCode::ClientMessageConflict);
    }

    #[test]
    fn concurrent_replacements_are_reported_as_a_conflict_until_resolved() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let root = sent(&mut k, &a, decision(&[], "port 8080"));
        let by_a = decide(
            &mut k,
            &a,
            decision(&[], "port 9090"),
            Some((Replace, &[&root])),
        )
        .unwrap()
        .message
        .message_id;
        // Bob had not seen alice's replacement: his is recorded, and the send says so.
        let out = decide(
            &mut k,
            &b,
            decision(&[], "port 7070"),
            Some((Replace, &[&root])),
        )
        .unwrap();
        let st = out.message.decision_status.unwrap();
        assert!(st.conflicted);
        assert_eq!((st.head_count, st.current_message_id), (2, None));
        assert_eq!(st.group_id, root);
        let by_b = out.message.message_id;
        let fix = decide(
            &mut k,
            &a,
            decision(&[], "port 9090, agreed"),
            Some((Replace, &[&by_a, &by_b])),
        )
        .unwrap()
        .message
        .message_id;
        let st = status(&mut k, &root);
        assert!(!st.conflicted);
        assert_eq!(st.current_message_id, Some(fix));
    }

    #[test]
    fn non_heads_leave_inbox_delivery_and_attention_but_stay_readable() {
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let mut ask = decision(&["bob"], "freeze main");
        ask.obligation = Some(Obligation::Acknowledge);
        let old = sent(&mut k, &a, ask.clone());
        assert_eq!(k.core.inbox(&b, None, None).unwrap().items.len(), 1);
        assert_eq!(k.core.next_turn_delivery(&b).unwrap().attention.len(), 1);
        ask.subject = "freeze main until friday".into();
        let new = decide(&mut k, &a, ask, Some((Replace, &[&old])))
            .unwrap()
            .message
            .message_id;
        let page = k.core.inbox(&b, None, None).unwrap();
        let ids: Vec<&MessageId> = page.items.iter().map(|i| &i.message_id).collect();
        assert_eq!(ids, vec![&new]);
        let st = page.items[0].decision_status.as_ref().unwrap();
        assert_eq!((st.state, st.group_id.clone()), (Current, old.clone()));
        let turn = k.core.next_turn_delivery(&b).unwrap();
        let bodies: Vec<&str> = turn
            .messages
            .iter()
            .map(|m| m.message_id.as_str())
            .collect();
        assert_eq!(bodies, vec![new.as_str()]);
        let owed: Vec<&str> = turn
            .attention
            .iter()
            .map(|i| i.source_id.as_str())
            .collect();
        assert_eq!(owed, vec![new.as_str()]);
        // Once offered, the superseded one is not a reminder either.
        k.core
            .commit_offers(
                &b,
                std::slice::from_ref(&new),
                crate::core::delivery::NEXT_TURN,
            )
            .unwrap();
        let turn = k.core.next_turn_delivery(&b).unwrap();
        assert_eq!(turn.reminder_message_ids, vec![new.to_string()]);
        // The exact read still works and says where the old decision stands.
        let read = k.core.read_message(&b, &old).unwrap();
        let st = read.message.decision_status.unwrap();
        assert_eq!(st.state, Superseded);
        assert_eq!(st.current_message_id, Some(new.clone()));
        // A withdrawal is a head of its own: it is what reaches bob next.
        let w = decide(
            &mut k,
            &a,
            decision(&["bob"], "unfreeze"),
            Some((Withdraw, &[&new])),
        )
        .unwrap()
        .message
        .message_id;
        let page = k.core.inbox(&b, None, None).unwrap();
        let ids: Vec<&MessageId> = page.items.iter().map(|i| &i.message_id).collect();
        assert_eq!(ids, vec![&w]);
        assert_eq!(
            page.items[0].decision_status.as_ref().unwrap().state,
            Withdrawn
        );
    }

    #[test]
    fn a_full_sync_lists_the_decisions_in_force_that_the_caller_may_read() {
        use crate::core::model::SyncScope;
        use crate::core::sync::SyncRequest;
        let mut k = kit();
        let a = k.attach("alice");
        let b = k.attach("bob");
        let c = k.attach("carol");
        let full = SyncRequest {
            scope: SyncScope::Full,
            ..Default::default()
        };
        let room = sent(&mut k, &a, decision(&[], "tabs"));
        let spaces = decide(
            &mut k,
            &a,
            decision(&[], "spaces"),
            Some((Replace, &[&room])),
        )
        .unwrap()
        .message
        .message_id;
        let private = sent(&mut k, &a, decision(&["bob"], "bob owns the parser"));
        let gone = sent(&mut k, &a, decision(&[], "no force pushes"));
        decide(
            &mut k,
            &a,
            decision(&[], "force pushes ok"),
            Some((Withdraw, &[&gone])),
        )
        .unwrap();
        let listed = |k: &mut Kit, who: Option<&Owner>| -> Vec<MessageId> {
            let snap = k.core.sync(who, full.clone()).unwrap().snapshot.unwrap();
            snap.decisions.into_iter().map(|d| d.message_id).collect()
        };
        assert_eq!(
            listed(&mut k, Some(&b)),
            vec![spaces.clone(), private.clone()]
        );
        assert_eq!(listed(&mut k, Some(&a)), vec![spaces.clone(), private]);
        assert_eq!(listed(&mut k, Some(&c)), vec![spaces.clone()]);
        assert_eq!(listed(&mut k, None), vec![spaces.clone()]);
        let snap = k.core.sync(Some(&c), full).unwrap().snapshot.unwrap();
        let d = &snap.decisions[0];
        assert_eq!(d.decision_status.group_id, room);
        assert_eq!(d.decision_change.as_ref().unwrap().action(), Replace);
        assert!(d.room);
    }
}
