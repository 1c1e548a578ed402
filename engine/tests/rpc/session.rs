//! Ordering, pipelining, cancellation, backpressure, 102 and 602.

use crate::client::{Rpc, cancel, error_of, frame, handshake, id_of, read, sh, status_of};
use crate::workspace;
use ash_engine::rpc::RpcSettings;
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
    // Every slot: exec sleeps of decreasing length, then two reads that finish at once.
    let sleeps = in_flight_cap() - 2;
    for id in 1..=sleeps {
        let tenths = sleeps + 1 - id;
        rpc.send(&sh(id, &format!("sleep {}.{}", tenths / 10, tenths % 10)));
    }
    rpc.send(&read(sleeps + 1, "a.txt"));
    rpc.send(&read(sleeps + 2, "b.txt"));
    let (exit, answers, _) = rpc.finish();
    assert_eq!(exit, 0);
    let got: Vec<u64> = answers.iter().map(|a| id_of(a)).collect();
    assert_eq!(got, (1..=sleeps + 2).collect::<Vec<_>>());
    assert!(answers.iter().all(|a| status_of(a) == 0), "{answers:?}");
    // Paths are numbered in answer order: a.txt first, then b.txt.
    let (a, b) = (&answers[sleeps as usize], &answers[sleeps as usize + 1]);
    assert!(a.contains("p[1]{i,v}:\n1,a.txt\n"), "{a}");
    assert!(b.contains("p[1]{i,v}:\n2,b.txt\n"), "{b}");
}

#[test]
fn a_full_in_flight_window_answers_602_and_a_duplicate_active_id_102() {
    let ws = workspace();
    let mut rpc = Rpc::open(ws.path());
    let cap = in_flight_cap();
    for id in 1..=cap {
        rpc.send(&sh(id, "sleep 30"));
    }
    rpc.send(&sh(1, "true"));
    rpc.send(&read(cap + 1, "a.txt"));
    // Stop the sleepers so the session can end quickly.
    for id in 1..=cap {
        rpc.send(&cancel(1000 + id, id));
    }
    let started = Instant::now();
    let (exit, answers, _) = rpc.finish();
    assert_eq!(exit, 0);
    assert!(started.elapsed() < Duration::from_secs(20));
    let ordered: Vec<&String> = answers.iter().filter(|a| id_of(a) < 1000).collect();
    let ids: Vec<u64> = ordered.iter().map(|a| id_of(a)).collect();
    let mut want: Vec<u64> = (1..=cap).collect();
    want.extend([1, cap + 1]);
    assert_eq!(ids, want);
    let (duplicate, refused) = (ordered[cap as usize], ordered[cap as usize + 1]);
    assert_eq!(error_of(duplicate).as_deref(), Some("102,1,1,~,~"));
    assert_eq!(error_of(refused).as_deref(), Some("602,2,4,~,~"));
    for a in &ordered[..cap as usize] {
        assert_eq!(status_of(a), 7, "{a}");
    }
    let cancels: Vec<&String> = answers.iter().filter(|a| id_of(a) > 1000).collect();
    assert_eq!(cancels.len(), cap as usize);
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
    // C process slots (C = host cores): C of these run, one queues for a slot. Which one queues
    // depends on scheduling, so each running process leaves a marker and the test asks the
    // workspace which request never started.
    let slots = std::thread::available_parallelism().map_or(1, |n| n.get()) as u64;
    for id in 1..=slots + 1 {
        rpc.send(&sh(id, &format!("touch started-{id}; sleep 30")));
    }
    let started = |id: u64| ws.path().join(format!("started-{id}")).exists();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while (1..=slots + 1).filter(|&id| started(id)).count() < slots as usize {
        assert!(
            std::time::Instant::now() < deadline,
            "the running requests never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let queued = (1..=slots + 1)
        .find(|&id| !started(id))
        .expect("one request waits for a process slot");
    // Cancels act at once; every answer, a cancel's too, is written in input order.
    rpc.send(&cancel(50, queued));
    rpc.send(&cancel(51, queued));
    let running: Vec<u64> = (1..=slots + 1).filter(|&id| id != queued).collect();
    for &id in &running {
        rpc.send(&cancel(60 + id, id));
    }
    let (exit, answers, _) = rpc.finish();
    let ids: Vec<u64> = answers.iter().map(|a| id_of(a)).collect();
    let expected: Vec<u64> = (1..=slots + 1)
        .chain([50, 51])
        .chain(running.iter().map(|id| 60 + id))
        .collect();
    assert_eq!(ids, expected, "answers in input order");
    let answer_of = |id: u64| answers.iter().find(|a| id_of(a) == id).unwrap();
    assert_eq!(
        answer_of(50).as_str(),
        format!("t:3\ni:50\ns:0\nd{{i,z}}:\n{queued},1\nz:0\nr:~\n")
    );
    assert!(
        answer_of(51).contains(&format!("d{{i,z}}:\n{queued},")),
        "{}",
        answer_of(51)
    );
    assert_eq!(exit, 0);
    let ordered: Vec<&String> = answers.iter().filter(|a| id_of(a) <= slots + 1).collect();
    assert_eq!(
        ordered.len(),
        slots as usize + 1,
        "every request is answered"
    );
    for a in &ordered {
        let id = id_of(a);
        if id == queued {
            // Queued: failed at permit acquisition, no process, no data.
            assert_eq!(
                a.as_str(),
                format!("t:3\ni:{id}\ns:7\ne{{c,q,p,x,a}}:\n403,0,4,~,~\nz:0\nr:~\n")
            );
        } else {
            // Running: the process tree was killed and reaped, kind 3.
            assert!(
                a.starts_with(&format!("t:3\ni:{id}\ns:7\nd{{k,c,ms,o,e,ro,re}}:\n3,~,")),
                "{a}"
            );
        }
    }
    assert!(!started(queued), "the queued request never ran");
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

#[test]
fn cancel_over_rpc_stops_a_running_batch_node_and_skips_its_dependent() {
    let ws = workspace();
    let mut rpc = Rpc::open(ws.path());
    rpc.send(
        "t:1\ni:1\no:b\na[2]{i,d,o,a}:\n\
         1,[],x,\"a{x,v,c,e,in,f}:\\nsleep,[30],.,[],~,0\\n\"\n\
         2,[1],r,\"a{p,m,o,n}:\\n[a.txt],0,0,8\\n\"\n\
         u{tok,rec,ms}:\n512,16,60000\n",
    );
    std::thread::sleep(Duration::from_millis(300));
    let started = Instant::now();
    rpc.send(&cancel(2, 1));
    // The cancel answer bypasses the order, so it may race the batch answer it causes.
    let mut answers = [
        rpc.recv().expect("first answer"),
        rpc.recv().expect("second answer"),
    ];
    answers.sort_by_key(|a| id_of(a));
    assert_eq!(
        answers,
        [
            "t:3\ni:1\ns:5\nd[2]{i,o,s,c,r}:\n1,x,3,7,@1\n2,r,2,~,~\n\
             e{c,q,p,x,a}:\n800,0,4,~,~\nz:24\nr:~\n",
            "t:3\ni:2\ns:0\nd{i,z}:\n1,1\nz:0\nr:~\n",
        ]
    );
    assert!(started.elapsed() < Duration::from_secs(10));
    let (exit, _, _) = rpc.finish();
    assert_eq!(exit, 0);
}

/// 96 pipelined patches against a 4 KiB output ceiling: the ceiling runs out part way, and
/// every answer tells the truth — a success changed its file, a failure left it alone.
#[test]
fn pipelined_patches_past_the_output_ceiling_never_report_an_applied_change_as_failed() {
    let dir = tempfile::tempdir().expect("temp workspace");
    let original = b"abc\n";
    for i in 0..96 {
        std::fs::write(dir.path().join(format!("f{i:02}.txt")), original).expect("write");
    }
    let digest = crate::common::hash(original);
    let mut rpc = Rpc::start(dir.path());
    rpc.send(&handshake(1 << 20, 4096, 1023, 15, "."));
    let hello = rpc.recv().expect("handshake answer");
    assert!(hello.starts_with("t:0\ni:7\ns:0\n"), "{hello}");
    // Rounds of four, inside any in-flight cap, so every patch runs concurrently with others
    // and none is refused for concurrency.
    let mut answers = Vec::new();
    for round in 0..24u64 {
        for i in round * 4..round * 4 + 4 {
            rpc.send(&format!(
                "t:1\ni:{}\no:p\na{{p,h,i,o,n,v,f}}:\n[f{i:02}.txt],[{digest}],[0],[0],[1],[X],0\nu{{tok,rec,ms}}:\n1000,16,30000\n",
                i + 1
            ));
        }
        for _ in 0..4 {
            answers.push(rpc.recv().expect("an answer"));
        }
    }
    let (code, _, err) = rpc.finish();
    assert_eq!(code, 0, "{err}");
    let mut succeeded = 0;
    for answer in &answers {
        let i = id_of(answer) - 1;
        let now = std::fs::read(dir.path().join(format!("f{i:02}.txt"))).expect("read back");
        if status_of(answer) == 0 {
            succeeded += 1;
            assert_eq!(now, b"Xbc\n", "a success changed its file: {answer}");
        } else {
            assert_eq!(error_of(answer).as_deref(), Some("600,1,5,~,~"), "{answer}");
            assert_eq!(now, original, "a failure left its file alone: {answer}");
        }
    }
    assert!(
        (1..96).contains(&succeeded),
        "the ceiling ran out part way ({succeeded} succeeded)"
    );
}

/// A client that writes cancels and never reads the answers: cancel answers count against the
/// unwritten window like every answer, so reading pauses and memory stays bounded.
#[test]
fn unread_cancel_answers_pause_reading_instead_of_piling_up() {
    let dir = workspace();
    let mut rpc = Rpc::open(dir.path());
    let pid = rpc.child.id();
    let total = 1_000_000;
    let sent = crate::memory::flood_cancels(rpc.stdin.take().expect("stdin"), total);
    let rss_kib = crate::memory::status_kib(pid, "VmRSS");
    let _ = rpc.child.kill();
    let _ = rpc.child.wait();
    assert!(
        sent < total,
        "the server read every cancel although nobody read an answer"
    );
    assert!(rss_kib < 32 * 1024, "ash rpc grew to {rss_kib} KiB");
}

/// The in-flight cap of an `ash rpc` started by this test process: it sees the same CPUs.
fn in_flight_cap() -> u64 {
    RpcSettings::host().in_flight_cap() as u64
}
