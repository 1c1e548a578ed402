//! Fuzz the session command parser (`ansa_sessions::protocol::parse_command`): no input may
//! panic, every rejection has a message, and every accepted command re-serialises (`to_json`) to
//! one line that parses back to the same command and re-serialises byte-identically.
#![no_main]

use ansa_sessions::protocol::{MAX_COMMAND_BYTES, ProtocolContext, parse_command};
use ansa_sessions::{Incarnation, Profile};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(line) = std::str::from_utf8(data) else {
        return;
    };
    // The golden fixtures (spec/jsonl/) use the offline session and incarnation `inc-1`; the
    // live context makes every fixture a wrong-session error, which must be just as clean.
    for ctx in [
        ProtocolContext {
            session: Profile::Offline,
            incarnation: Incarnation::from_wire("inc-1"),
        },
        ProtocolContext {
            session: Profile::Live,
            incarnation: Incarnation::from_wire("inc-1"),
        },
    ] {
        match parse_command(line, &ctx) {
            Ok(cmd) => {
                let json = cmd.to_json(&ctx);
                assert!(!json.contains('\n'), "to_json must be one line: {json:?}");
                // to_json spells out defaults (`mode`, `forward`), so a command at the size
                // limit can serialise past it; only lines within the limit must parse back.
                if json.len() <= MAX_COMMAND_BYTES {
                    let again = parse_command(&json, &ctx)
                        .unwrap_or_else(|e| panic!("{json} does not parse back: {e}"));
                    assert_eq!(again, cmd, "round trip of {line:?} via {json}");
                    assert_eq!(again.to_json(&ctx), json, "to_json is not canonical");
                }
            }
            Err(e) => assert!(!e.to_string().trim().is_empty(), "empty message: {e:?}"),
        }
    }
});
