//! Ask mode in line mode and one-shot: the call waiting for approval is printed to the status
//! stream and one answer line is read from the terminal (`y`, `a`, `n`, or `n` and a reason).

use std::io::{self, Write};

use ansa_sessions::ApprovalDecision;
use ansa_sessions::protocol::{ApprovalRequest, DiffSign};

use crate::status::say;

/// Diff lines printed with an approval.
const DIFF_LINES: usize = 12;

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
    say(status, &format!("ansa: approve? {}", request.summary));
    if !request.argv.is_empty() {
        say(status, &format!("    $ {}", request.argv.join(" ")));
    }
    if let Some(cwd) = &request.cwd {
        say(status, &format!("    in {cwd}"));
    }
    for action in &request.actions {
        say(status, &format!("    {action}"));
    }
    let mut shown = 0;
    for diff in &request.diffs {
        for line in &diff.lines {
            if shown == DIFF_LINES {
                break;
            }
            let mark = match line.sign {
                DiffSign::Added => '+',
                DiffSign::Removed => '-',
                DiffSign::Context => ' ',
            };
            say(status, &format!("    {mark} {}", line.text));
            shown += 1;
        }
    }
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
            diffs: Vec::new(),
            actions: Vec::new(),
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
}
