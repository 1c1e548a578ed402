//! The library server with chosen windows: with a wide one, 64 concurrent mixed requests whose
//! completion order is randomised still answer in input order, with path ids in answer order;
//! with the narrowest, a client that refills the window as answers arrive is never refused.

use crate::client::{default_handshake, frame, id_of, read, sh, status_of};
use crate::workspace;
use ash_engine::bootstrap::BootstrapError;
use ash_engine::rpc::{RpcSettings, serve};
use std::io::{PipeReader, PipeWriter, Read, Write};
use std::path::Path;
use std::thread::JoinHandle;

fn recv(r: &mut impl Read) -> Option<String> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).ok()?;
    let mut payload = vec![0u8; u32::from_be_bytes(len) as usize];
    r.read_exact(&mut payload).ok()?;
    String::from_utf8(payload).ok()
}

/// A library server on its own thread, over pipes: the client's writing end, its reading
/// end, the server's thread, and the server's in-flight cap.
struct Served {
    to_server: PipeWriter,
    from_server: PipeReader,
    server: JoinHandle<Result<(), BootstrapError>>,
    in_flight_cap: usize,
}

/// Starts a library server in `root` with `io_workers`.
fn serve_in(root: &Path, io_workers: usize) -> Served {
    let (in_r, to_server) = std::io::pipe().expect("pipe");
    let (from_server, out_w) = std::io::pipe().expect("pipe");
    let settings = RpcSettings {
        io_workers,
        ..RpcSettings::host()
    };
    let in_flight_cap = settings.in_flight_cap();
    let root = root.to_path_buf();
    let server = std::thread::spawn(move || serve(in_r, Box::new(out_w), &root, &settings));
    Served {
        to_server,
        from_server,
        server,
        in_flight_cap,
    }
}

#[test]
fn sixty_four_concurrent_requests_answer_in_input_order() {
    let ws = workspace();
    let Served {
        to_server: mut in_w,
        from_server: mut out_r,
        server,
        ..
    } = serve_in(ws.path(), 16);
    let mut input = frame(default_handshake().as_bytes());
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for id in 1..=64u64 {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let doc = if id % 3 == 0 {
            read(
                id,
                if seed.is_multiple_of(2) {
                    "a.txt"
                } else {
                    "b.txt"
                },
            )
        } else {
            sh(id, &format!("sleep 0.{:03}", seed % 300))
        };
        input.extend(frame(doc.as_bytes()));
    }
    in_w.write_all(&input).expect("write");
    drop(in_w);
    assert!(recv(&mut out_r).expect("hello").starts_with("t:0\n"));
    let mut ids = Vec::new();
    let mut first_read = None;
    while let Some(a) = recv(&mut out_r) {
        assert_eq!(status_of(&a), 0, "{a}");
        if a.contains("p[1]{i,v}:") && first_read.is_none() {
            first_read = Some(a.clone());
        }
        ids.push(id_of(&a));
    }
    assert_eq!(ids, (1..=64).collect::<Vec<u64>>());
    // The first read answered introduces path id 1, whichever read finished first.
    assert!(first_read.expect("a read").contains("p[1]{i,v}:\n1,"));
    server.join().expect("server thread").expect("clean end");
}

/// A client that waits for every answer of a full window before it sends the next window is
/// never refused for concurrency: a request's slot is free by the time its answer can be read.
#[test]
fn a_window_sent_after_the_last_answers_arrived_is_never_refused() {
    let ws = workspace();
    let Served {
        to_server: mut in_w,
        from_server: mut out_r,
        server,
        in_flight_cap,
    } = serve_in(ws.path(), 1);
    let window = in_flight_cap as u64;
    in_w.write_all(&frame(default_handshake().as_bytes()))
        .expect("write");
    assert!(recv(&mut out_r).expect("hello").starts_with("t:0\n"));
    for round in 0..100u64 {
        let mut input = Vec::new();
        for id in round * window + 1..=(round + 1) * window {
            input.extend(frame(read(id, "a.txt").as_bytes()));
        }
        in_w.write_all(&input).expect("write");
        for _ in 0..window {
            let answer = recv(&mut out_r).expect("an answer");
            assert_eq!(status_of(&answer), 0, "round {round}: {answer}");
        }
    }
    drop(in_w);
    assert!(recv(&mut out_r).is_none(), "nothing after the last answer");
    server.join().expect("server thread").expect("clean end");
}
