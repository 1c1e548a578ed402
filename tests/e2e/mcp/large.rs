//! A 50 MB result through the real binary: server-filesystem reads a 50 MB text file, the
//! model sees it cut like exec output and naming `@N`, `evidence` reads bytes near its end
//! exactly, and ansa's peak memory stays a bounded multiple of the result.

use std::io::Write;

use serde_json::json;

use super::{call, filesystem, finished, outcomes, session, user_config};
use crate::harness::{World, only_session_dir};

/// Lines of the file; each is `LINE_BYTES` long.
const LINES: usize = 1_310_720;
const LINE_BYTES: usize = 40;

fn line(n: usize) -> String {
    format!("line {n:08} of a fifty megabyte file.\n")
}

/// The peak resident set (`VmHWM`) of process `pid`, in KiB.
fn peak_kib(pid: i32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no VmHWM in {status}"))
}

#[test]
#[ignore = "needs the MCP npm packages: run cargo xtask test"]
fn a_50_mb_result_is_cut_retained_whole_and_read_back_with_bounded_memory() {
    let w = World::new();
    let root = w.ws();
    let file = root.join("big.txt");
    {
        // Line by line: the test never holds the file.
        let mut out = std::io::BufWriter::new(std::fs::File::create(&file).unwrap());
        for n in 0..LINES {
            out.write_all(line(n).as_bytes()).unwrap();
        }
        out.flush().unwrap();
    }
    let size = LINES * LINE_BYTES;
    assert_eq!(std::fs::metadata(&file).unwrap().len() as usize, size);
    assert_eq!(line(0).len(), LINE_BYTES);
    // The last line but one, read by byte offset from the retained result: the text content
    // comes first in it, so its offsets are the file's.
    let offset = size - 2 * LINE_BYTES;
    user_config(&w, json!({"fs": filesystem(&root)}), json!({}));
    let mut s = session(
        &w,
        json!([
            {"tool_calls": [call("mcp__fs__read_text_file", json!({"path": file.display().to_string()}))]},
            {"tool_calls": [call("evidence", json!({"ref": "@1", "kind": "bytes", "offset": offset,
                "length": LINE_BYTES, "query": null, "regex": false, "case_insensitive": false}))]},
            {"text": "read"}
        ]),
        &[],
    );
    let rid = s.submit("read the big file");
    let read = finished(&mut s, "mcp__fs__read_text_file");
    assert_eq!(read["status"], "finished", "{read}");
    let evidence = finished(&mut s, "evidence");
    assert_eq!(evidence["status"], "finished", "{evidence}");
    assert_eq!(s.answer(rid), "read");
    let peak = peak_kib(s.pid());
    assert_eq!(s.finish().0, 0);

    let out = outcomes(&only_session_dir(&w));
    let text = |i: usize| out[i]["output"].as_str().unwrap_or_default().to_owned();
    let view = text(0);
    assert!(
        view.len() < 64 * 1024,
        "the view is cut: {} bytes",
        view.len()
    );
    assert!(view.starts_with(&line(0)), "{}", &view[..200]);
    assert!(
        view.contains("@1"),
        "the cut names where the rest is: {}",
        &view[view.len().saturating_sub(600)..]
    );
    let slice = text(1);
    assert!(
        slice.contains(line(LINES - 2).trim_end()),
        "evidence reads the retained bytes at {offset}: {slice}"
    );
    println!("ansa's peak RSS with a {size}-byte MCP result: {peak} KiB");
    // Measured 291,200 KiB (5.7 times the result, debug build). The peak is the client
    // reading the answer: the ~106 MB line (the text twice, as `content` and
    // `structuredContent`, newlines escaped) held while it is parsed into a JSON value (the
    // two strings, ~105 MB, with serde_json's scratch buffer for escaped strings). Rendering
    // for the model comes after and is lower (the text moves into the view's source, then
    // into the store). 6.5 times the result leaves room for noise but not for one more copy
    // of the result at the peak (it was 442,316 KiB while rmcp's untagged result enum copied
    // it about six times over and the rendering copied it twice more).
    let bound_kib = (13 * size / 2 / 1024) as u64;
    assert!(
        peak <= bound_kib,
        "peak RSS {peak} KiB over {bound_kib} KiB"
    );
}
