//! Ask mode in line mode and one-shot: the call waiting for approval is printed to the status
//! stream and one answer line is read from the terminal (`y`, `a`, `n`, or `n` and a reason).

use std::io::{self, Write};

use ansa_sessions::ApprovalDecision;
use ansa_sessions::protocol::ApprovalRequest;

use crate::approval_text::{rows, visible};
use crate::status::say;

/// The user's answer to one approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answer {
    /// Once, for the session, or deny.
    pub decision: ApprovalDecision,
    /// Why, for a denial.
    pub reason: Option<String>,
}

/// Prints `request` to `status` and reads answers with `read_line` until one is understood.
/// The end of input denies: nobody is there to approve.
pub(crate) fn ask(
    status: &mut dyn Write,
    read_line: &mut dyn FnMut() -> io::Result<Option<String>>,
    request: &ApprovalRequest,
) -> Answer {
    say(
        status,
        &format!("ansa: approve? {}", visible(&request.summary)),
    );
    // The whole action, every row: what is shown is all of what runs.
    for row in rows(request) {
        say(status, &format!("    {}{}", row.mark, row.text));
    }
    if !request.approvable() {
        say(status, "ansa: this action can only be denied");
        return Answer {
            decision: ApprovalDecision::Deny,
            reason: Some("the action could not be shown in full".to_owned()),
        };
    }
    // An answer is typed after the question: lines typed before it appeared (an answer meant
    // for an earlier prompt, a next task) must not answer it.
    discard_typed_ahead();
    loop {
        let _ = status.write_all(b"ansa: [y] once  [a] for this session  [n] deny (n REASON): ");
        let _ = status.flush();
        let line = match read_line() {
            Ok(Some(line)) => line,
            Ok(None) | Err(_) => {
                say(status, "");
                return Answer {
                    decision: ApprovalDecision::Deny,
                    reason: Some("no answer: the input ended".to_owned()),
                };
            }
        };
        if let Some(answer) = parse(&line) {
            return answer;
        }
        say(status, "ansa: answer y, a or n (optionally n and a reason)");
    }
}

/// Drops what was typed on the terminal and not yet read, when the answers come from a
/// terminal (a pipe's lines are meant in advance and stay).
fn discard_typed_ahead() {
    use std::io::IsTerminal;
    let stdin = io::stdin();
    if stdin.is_terminal() {
        // Nothing lost but keystrokes made before the prompt; a failure leaves them queued.
        let _ = nix::sys::termios::tcflush(&stdin, nix::sys::termios::FlushArg::TCIFLUSH);
    }
}

/// One answer line: `y`/`yes`, `a`/`always`, `n`/`no` with an optional reason after it.
fn parse(line: &str) -> Option<Answer> {
    let line = line.trim();
    let (word, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let decision = match word.to_ascii_lowercase().as_str() {
        "y" | "yes" => ApprovalDecision::Once,
        "a" | "always" => ApprovalDecision::Session,
        "n" | "no" => ApprovalDecision::Deny,
        _ => return None,
    };
    let rest = rest.trim();
    if decision != ApprovalDecision::Deny && !rest.is_empty() {
        return None;
    }
    Some(Answer {
        decision,
        reason: (!rest.is_empty()).then(|| rest.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_loosely_and_a_reason_only_follows_a_denial() {
        let once = parse(" Y ").map(|a| a.decision);
        assert_eq!(once, Some(ApprovalDecision::Once));
        assert_eq!(
            parse("always").map(|a| a.decision),
            Some(ApprovalDecision::Session)
        );
        assert_eq!(
            parse("n too risky, use a dry run"),
            Some(Answer {
                decision: ApprovalDecision::Deny,
                reason: Some("too risky, use a dry run".into())
            })
        );
        assert_eq!(
            parse("no"),
            Some(Answer {
                decision: ApprovalDecision::Deny,
                reason: None
            })
        );
        assert_eq!(parse("y please"), None);
        assert_eq!(parse("maybe"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn an_unclear_answer_asks_again_and_the_end_of_input_denies() {
        let request = ApprovalRequest {
            request_id: ansa_sessions::RequestId(1),
            call_id: ansa_sessions::CallId("c1".into()),
            tool: "exec".into(),
            action: "v:1".into(),
            digest: "00".repeat(32),
            summary: "run rm -rf build".into(),
            argv: vec!["rm".into(), "-rf".into(), "build".into()],
            cwd: None,
            env: Vec::new(),
            stdin: None,
            diffs: Vec::new(),
            actions: Vec::new(),
            created: Vec::new(),
            withheld: None,
            outside_sandbox: false,
        };
        let mut answers = vec![Ok(Some("what".to_owned())), Ok(Some("y".to_owned()))].into_iter();
        let mut out = Vec::new();
        let got = ask(
            &mut out,
            &mut || answers.next().unwrap_or(Ok(None)),
            &request,
        );
        assert_eq!(got.decision, ApprovalDecision::Once);
        let printed = String::from_utf8_lossy(&out);
        assert!(printed.contains("approve? run rm -rf build"), "{printed}");
        assert!(printed.contains("$ rm -rf build"), "{printed}");
        assert!(printed.contains("answer y, a or n"), "{printed}");
        let got = ask(&mut Vec::new(), &mut || Ok(None), &request);
        assert_eq!(got.decision, ApprovalDecision::Deny);
    }

    fn request(tool: &str) -> ApprovalRequest {
        ApprovalRequest {
            request_id: ansa_sessions::RequestId(1),
            call_id: ansa_sessions::CallId("c1".into()),
            tool: tool.into(),
            action: "v:1".into(),
            digest: "00".repeat(32),
            summary: format!("{tool} something"),
            argv: Vec::new(),
            cwd: None,
            env: Vec::new(),
            stdin: None,
            diffs: Vec::new(),
            actions: Vec::new(),
            created: Vec::new(),
            withheld: None,
            outside_sandbox: false,
        }
    }

    #[test]
    fn the_whole_diff_and_created_content_are_printed() {
        use ansa_sessions::protocol::{CreatedFile, DiffLine, DiffSign, FileDiff};
        let mut edit = request("edit");
        let mut lines = Vec::new();
        for n in 1..=20 {
            lines.push(DiffLine {
                sign: DiffSign::Removed,
                text: format!("old {n}"),
            });
            lines.push(DiffLine {
                sign: DiffSign::Added,
                text: format!("new {n}"),
            });
        }
        edit.diffs = vec![FileDiff {
            path: "big.txt".into(),
            added: 20,
            removed: 20,
            lines,
        }];
        let mut out = Vec::new();
        ask(&mut out, &mut || Ok(Some("n".to_owned())), &edit);
        let printed = String::from_utf8_lossy(&out);
        for n in 1..=20 {
            assert!(printed.contains(&format!("    - old {n}\n")), "{printed}");
            assert!(printed.contains(&format!("    + new {n}\n")), "{printed}");
        }
        let mut create = request("files");
        create.actions = vec!["create conftest.py".into()];
        create.created = vec![CreatedFile {
            path: "conftest.py".into(),
            content: "import os\nos.system('touch PWNED')\n".into(),
        }];
        let mut out = Vec::new();
        ask(&mut out, &mut || Ok(Some("n".to_owned())), &create);
        let printed = String::from_utf8_lossy(&out);
        assert!(printed.contains("    create conftest.py\n"), "{printed}");
        assert!(
            printed.contains("    │ os.system('touch PWNED')\n"),
            "{printed}"
        );
    }

    #[test]
    fn an_action_that_cannot_be_shown_is_denied_without_asking() {
        let mut big = request("exec");
        big.withheld = Some(ansa_sessions::protocol::Withheld::TooLarge {
            bytes: 9_000_000,
            limit: 4_194_304,
        });
        let mut out = Vec::new();
        let got = ask(&mut out, &mut || Ok(Some("y".to_owned())), &big);
        assert_eq!(got.decision, ApprovalDecision::Deny);
        let printed = String::from_utf8_lossy(&out);
        assert!(printed.contains("can only be denied"), "{printed}");
    }
}
