use ansa_sessions::protocol::{CommandBody, ErrorCode, Event, EventBody, SnapshotEvent};
use ansa_sessions::{
    CommandId, Incarnation, Mode, Profile, RequestId, Role, TranscriptEntry, TranscriptPage,
    TranscriptQuery, TurnState,
};

use super::{CatchUp, Cursor, TaskMatch};

fn snapshot(turn: u64, request: Option<u64>, state: Option<TurnState>) -> SnapshotEvent {
    SnapshotEvent {
        session: Profile::Offline,
        incarnation: Incarnation::from_wire("inc9"),
        mode: Mode::Basic,
        transcript_size: 0,
        request_id: request.map(RequestId),
        turn,
        resume_available: false,
        state,
        durable: true,
        storage_failed: false,
        read_only: false,
        read_only_reason: None,
        preview: None,
        usage: None,
        context: None,
        approval: None,
        through_sequence: 1,
    }
}

fn event(stream_sequence: u64, body: EventBody) -> Event {
    Event {
        stream_sequence,
        body,
    }
}

fn cursor() -> Cursor {
    let s = snapshot(2, None, None);
    Cursor::new("t", &event(1, EventBody::Snapshot(s.clone())), &s)
}

fn id(s: &str) -> CommandId {
    CommandId::new(s).unwrap()
}

fn accepted(seq: u64, command: &str, request: u64) -> Event {
    event(
        seq,
        EventBody::CommandAccepted {
            command_id: id(command),
            request_id: RequestId(request),
            turn: request,
        },
    )
}

#[test]
fn the_cursor_sees_gaps_and_raises_the_turn() {
    let mut c = cursor();
    assert_eq!(c.turn(), 2);
    assert!(!c.observe(&accepted(2, "x", 3)).gap);
    assert_eq!(c.turn(), 3, "an acceptance reports the newest turn");
    assert!(c.observe(&accepted(5, "y", 4)).gap, "3 and 4 were lost");
    assert!(!c.observe(&accepted(6, "z", 4)).gap);
    // An older sequence number out of order is a break in the stream too.
    assert!(c.observe(&accepted(4, "w", 4)).gap);
    assert!(
        !c.observe(&accepted(7, "v", 4)).gap,
        "the cursor keeps the highest"
    );
}

#[test]
fn command_ids_carry_the_kind_and_incarnation_and_never_repeat() {
    let mut c = cursor();
    let a = c
        .command(CommandBody::Cancel {
            target: RequestId(1),
        })
        .unwrap();
    let b = c
        .command(CommandBody::Cancel {
            target: RequestId(1),
        })
        .unwrap();
    assert_eq!(a.command_id.as_str(), "t-inc9-1");
    assert_eq!(b.command_id.as_str(), "t-inc9-2");
    assert_eq!(a.turn, 2);
}

#[test]
fn one_catch_up_snapshot_at_a_time_until_it_arrives_or_fails() {
    let mut c = cursor();
    c.observe(&accepted(4, "x", 3));
    let first = c.resync().unwrap().expect("a snapshot request");
    assert_eq!(first.body, CommandBody::Snapshot { after_sequence: 4 });
    assert!(c.resync().unwrap().is_none(), "one is outstanding");
    let answer = c.observe(&event(5, EventBody::Snapshot(snapshot(3, None, None))));
    assert!(answer.caught_up);
    let unsolicited = c.observe(&event(6, EventBody::Snapshot(snapshot(3, None, None))));
    assert!(!unsolicited.caught_up);
    let second = c.resync().unwrap().expect("a new request after the answer");
    let failed = event(
        7,
        EventBody::Error {
            command_id: Some(second.command_id.clone()),
            code: ErrorCode::StorageFailed,
            message: "no".into(),
        },
    );
    assert!(!c.observe(&failed).caught_up);
    assert!(
        c.resync().unwrap().is_some(),
        "a failed catch-up can be retried"
    );
}

#[test]
fn a_task_matches_only_its_own_first_acceptance() {
    let mut t = TaskMatch::submitted(id("a"), 2);
    assert!(
        !t.accept(&id("b"), RequestId(3)),
        "another command's acceptance"
    );
    assert!(!t.ours(RequestId(3)));
    assert!(t.refused_by(Some(&id("a"))));
    assert!(!t.refused_by(Some(&id("b"))));
    assert!(!t.refused_by(None));
    assert!(t.accept(&id("a"), RequestId(3)));
    assert!(
        !t.accept(&id("a"), RequestId(3)),
        "a replay is not a second acceptance"
    );
    assert!(t.ours(RequestId(3)) && !t.ours(RequestId(4)));
    assert!(
        !t.refused_by(Some(&id("a"))),
        "accepted tasks are not refused"
    );
}

#[test]
fn a_snapshot_reveals_a_lost_acceptance_only_for_a_new_submission() {
    let mut t = TaskMatch::submitted(id("a"), 2);
    let same_turn = snapshot(2, Some(2), Some(TurnState::Done));
    assert_eq!(t.catch_up(&same_turn), (None, CatchUp::Unrelated));
    let newer = snapshot(3, Some(3), Some(TurnState::Running));
    assert_eq!(
        t.catch_up(&newer),
        (Some(RequestId(3)), CatchUp::Current(TurnState::Running))
    );
    let done = snapshot(3, Some(3), Some(TurnState::Done));
    assert_eq!(
        t.catch_up(&done),
        (
            None,
            CatchUp::Ended {
                state: TurnState::Done,
                durable: true
            }
        )
    );

    let mut r = TaskMatch::resumed(id("r"), 3, RequestId(2));
    assert_eq!(r.about(), Some(RequestId(2)));
    assert!(!r.accepted());
    let paused = snapshot(4, Some(4), Some(TurnState::Queued));
    assert_eq!(r.catch_up(&paused), (None, CatchUp::Unrelated));
}

#[test]
fn the_recovered_answer_is_the_latest_assistant_entry_of_the_request() {
    let mut t = TaskMatch::submitted(id("a"), 0);
    t.accept(&id("a"), RequestId(1));
    let entry = |index, request, role, text: &str| TranscriptEntry {
        index,
        request_id: RequestId(request),
        role,
        text: text.into(),
        truncated: false,
        rewound: false,
    };
    let page = TranscriptPage {
        query: TranscriptQuery {
            before: 0,
            limit: 4,
            forward: false,
        },
        entries: vec![
            entry(0, 1, Role::User, "task"),
            entry(1, 1, Role::Assistant, "first"),
            entry(2, 1, Role::Assistant, "answer"),
            entry(3, 2, Role::Assistant, "someone else's"),
        ],
        begin: 0,
        end: 4,
        total: 4,
    };
    assert_eq!(t.answer_in(page).map(|e| e.text), Some("answer".into()));
}
