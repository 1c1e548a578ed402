//! Ordering, pipelining, cancellation, backpressure, 102 and 602.

use crate::client::{Rpc, cancel, error_of, frame, id_of, read, sh, status_of};
use crate::workspace;
use std::io::Write;
use std::time::{Duration, Instant};

#[test]
fn ten_thousand_pipelined_frames_are_all_answered_in_order() {
    let ws = workspace();
    let mut rpc = Rpc::open(ws.path());
    let mut stdin = rpc.stdin.take().expect("stdin");
    // Write everything without reading: the writer thread never waits for answers.
    let writer = std::thread::spawn(move || {
        let mut burst = Vec::new();
        for id in 1..=10_000u64 {
            burst.extend(frame(
                read(id, if id % 2 == 0 { "a.txt" } else { "b.txt" }).as_bytes(),
            ));
        }
        stdin.write_all(&burst).expect("write burst");
    });
    let mut ok = 0;
    for id in 1..=10_000u64 {
        let answer = rpc.recv().expect("an answer for every frame");
        assert_eq!(id_of(&answer), id, "answers follow input order");
        match status_of(&answer) {
            0 => ok += 1,
            // 602 when the in-flight window is full; 600 once the session's 64 KiB output
            // ceiling is spent (only successes are charged).
            9 => assert!(
                matches!(
                    error_of(&answer).as_deref(),
                    Some("602,2,4,~,~" | "600,1,5,~,~")
                ),
                "{answer}"
            ),
            s => panic!("unexpected status {s}: {answer}"),
        }
    }
    writer.join().expect("writer");
    let (exit, rest, _) = rpc.finish();
    assert_eq!((exit, rest.len()), (0, 0));
    assert!(ok > 0);
}

#[test]
fn answers_are_written_in_input_order_whatever_finishes_first() {
    let ws = workspace();
    let mut rpc = Rpc::open(ws.path());
    // 8 slots: exec sleeps of decreasing length, then reads that finish at once.
    let mut want = Vec::new();
    for id in 1..=6u64 {
        rpc.send(&sh(id, &format!("sleep 0.{}", 7 - id)));
        want.push(id);
    }
    rpc.send(&read(7, "a.txt"));
    rpc.send(&read(8, "b.txt"));
    want.extend([7, 8]);
    let (exit, answers, _) = rpc.finish();
    assert_eq!(exit, 0);
    let got: Vec<u64> = answers.iter().map(|a| id_of(a)).collect();
    assert_eq!(got, want);
    assert!(answers.iter().all(|a| status_of(a) == 0), "{answers:?}");
    // Paths are numbered in answer order: a.txt first, then b.txt.
    assert!(
        answers[6].contains("p[1]{i,v}:\n1,a.txt\n"),
        "{}",
        answers[6]
    );
    assert!(
        answers[7].contains("p[1]{i,v}:\n2,b.txt\n"),
        "{}",
        answers[7]
    );
}

#[test]
fn a_full_in_flight_window_answers_602_and_a_duplicate_active_id_102() {
    let ws = workspace();
    let mut rpc = Rpc::open(ws.path());
    for id in 1..=8u64 {
        rpc.send(&sh(id, "sleep 30"));
    }
    rpc.send(&sh(1, "true"));
    rpc.send(&read(9, "a.txt"));
    // Stop the sleepers so the session can end quickly.
    for id in 1..=8u64 {
        rpc.send(&cancel(100 + id, id));
    }
    let started = Instant::now();
    let (exit, answers, _) = rpc.finish();
    assert_eq!(exit, 0);
    assert!(started.elapsed() < Duration::from_secs(20));
    let ordered: Vec<&String> = answers.iter().filter(|a| id_of(a) < 100).collect();
    let ids: Vec<u64> = ordered.iter().map(|a| id_of(a)).collect();
    assert_eq!(ids, [1, 2, 3, 4, 5, 6, 7, 8, 1, 9]);
    assert_eq!(error_of(ordered[8]).as_deref(), Some("102,1,1,~,~"));
    assert_eq!(error_of(ordered[9]).as_deref(), Some("602,2,4,~,~"));
    for a in &ordered[..8] {
        assert_eq!(status_of(a), 7, "{a}");
    }
    let cancels: Vec<&String> = answers.iter().filter(|a| id_of(a) > 100).collect();
    assert_eq!(cancels.len(), 8);
    assert!(
        cancels
            .iter()
            .all(|a| a.contains("d{i,z}:\n") && a.contains(",1\nz:0"))
    );
}

#[test]
fn cancel_stops_running_and_queued_work_and_is_idempotent() {
    let ws = workspace();
    let mut rpc = Rpc::open(ws.path());
    // Two process slots on a 2-core host: 1 and 2 run, 3 queues for a slot (C = host cores).
    let slots = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    for id in 1..=slots + 1 {
        rpc.send(&sh(id, "sleep 30"));
    }
    std::thread::sleep(Duration::from_millis(300));
    rpc.send(&cancel(50, slots + 1));
    let first = rpc.recv().expect("cancel answer");
    assert_eq!(
        first,
        format!("t:3\ni:50\ns:0\nd{{i,z}}:\n{},1\nz:0\nr:~\n", slots + 1)
    );
    rpc.send(&cancel(51, slots + 1));
    let again = rpc.recv().expect("second cancel");
    assert!(
        again.contains(&format!("d{{i,z}}:\n{},", slots + 1)),
        "{again}"
    );
    for id in 1..=slots {
        rpc.send(&cancel(60 + id, id));
    }
    let (exit, answers, _) = rpc.finish();
    assert_eq!(exit, 0);
    let ordered: Vec<&String> = answers.iter().filter(|a| id_of(a) <= slots + 1).collect();
    for a in &ordered[..slots as usize] {
        // Running: the process tree was killed and reaped, kind 3.
        assert!(
            a.starts_with(&format!(
                "t:3\ni:{}\ns:7\nd{{k,c,ms,o,e,ro,re}}:\n3,~,",
                id_of(a)
            )),
            "{a}"
        );
    }
    // Queued: failed at permit acquisition.
    assert_eq!(
        ordered[slots as usize].as_str(),
        format!(
            "t:3\ni:{}\ns:7\ne{{c,q,p,x,a}}:\n403,0,4,~,~\nz:0\nr:~\n",
            slots + 1
        )
    );
}

#[test]
fn a_client_that_stops_reading_gets_backpressure_not_loss() {
    let ws = workspace();
    let mut rpc = Rpc::open(ws.path());
    let mut stdin = rpc.stdin.take().expect("stdin");
    // Far more answers than the answer pipe holds: once it is full the server must stop
    // reading (its unwritten window is bounded), which in turn fills the request pipe.
    let n = 20_000u64;
    let writer = std::thread::spawn(move || {
        for id in 1..=n {
            if stdin
                .write_all(&frame(read(id, "a.txt").as_bytes()))
                .is_err()
            {
                return false;
            }
        }
        true
    });
    std::thread::sleep(Duration::from_millis(1500));
    assert!(
        !writer.is_finished(),
        "the server kept reading while nobody read its answers"
    );
    for id in 1..=n {
        let a = rpc.recv().expect("answer");
        assert_eq!(id_of(&a), id);
    }
    assert!(writer.join().expect("writer"));
    assert_eq!(rpc.finish().0, 0);
}
