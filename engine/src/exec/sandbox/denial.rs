//! Telling a sandbox denial from an ordinary failure, after the command ended.

use std::fmt;
use std::path::{Component, Path, PathBuf};

/// What the sandbox refused a command, as far as its output tells.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DenialKind {
    /// A change to this path, outside the writable roots.
    Write(PathBuf),
    /// A network socket or connection.
    Network,
    /// A permission error naming no path (a namespace, a signal, a mount...).
    Other,
}

/// The first sandbox denial seen in one command's output.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct SandboxDenial {
    /// What was refused.
    pub kind: DenialKind,
    /// The command's own error line that showed it (trimmed, at most 200 bytes, control
    /// characters replaced; still untrusted text).
    pub line: String,
}

impl fmt::Display for SandboxDenial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.kind {
            DenialKind::Write(path) => write!(
                f,
                "the OS sandbox denied a write to {} (outside the writable roots)",
                path.display()
            ),
            DenialKind::Network => f.write_str("the OS sandbox denied network access"),
            DenialKind::Other => f.write_str("the OS sandbox denied an operation"),
        }
    }
}

/// How many bytes of each end of stderr are scanned.
const SCAN_BYTES: usize = 64 * 1024;
/// How many lines with a denial phrase are examined at most.
const MAX_DENIAL_LINES: usize = 256;
/// The longest error line kept in a denial.
const LINE_BYTES: usize = 200;
/// Phrases of `EACCES`/`EPERM` (and Landlock's `EXDEV` for links and renames between
/// directories of different rights), lower case.
const DENIED: [&str; 5] = [
    "permission denied",
    "operation not permitted",
    "eacces",
    "eperm",
    "cross-device link",
];
/// Words that make a path-less denial a network one, lower case.
const NETWORK_WORDS: [&str; 8] = [
    "socket",
    "connect",
    "network",
    "sendto",
    "bind",
    "address family",
    "urlopen",
    "resolve",
];

/// How clients report a network they could not reach, lower case: with the network off every
/// INET socket is refused, and curl, pip, git or ssh reword that refusal without its errno.
const NETWORK_FAILURES: [&str; 11] = [
    "couldn't connect to server",
    "failed to connect to",
    "could not resolve host",
    "could not resolve hostname",
    "name or service not known",
    "temporary failure in name resolution",
    "no address associated with hostname",
    "network is unreachable",
    "failed to establish a new connection",
    "getaddrinfo failed",
    "unable to resolve host",
];

/// What the sandbox allowed the command, for telling its denials from ordinary ones.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Allowed<'a> {
    /// The writable roots.
    pub roots: &'a [PathBuf],
    /// The command's working directory, for relative paths.
    pub cwd: &'a Path,
    /// Whether network sockets were allowed.
    pub network: bool,
}

/// The first sandbox denial that stderr (its head and tail, `SCAN_BYTES` each) shows: a line
/// with an `EACCES`/`EPERM` phrase that names a path outside the writable roots (after
/// resolving the symbolic links of its existing part) which this process (outside the
/// sandbox) could write, or that names no path at all; failing that, with the network off, a
/// line where a client says it could not reach or resolve a host. Heuristic by nature: see
/// docs/security.md, "OS sandbox (engine)", for its limits.
pub(crate) fn detect(parts: &[&[u8]], allowed: &Allowed<'_>) -> Option<SandboxDenial> {
    let text: String = parts
        .iter()
        .map(|p| String::from_utf8_lossy(p))
        .collect::<Vec<_>>()
        .join("\n");
    let lower = text.to_lowercase();
    let networky = !allowed.network && NETWORK_WORDS.iter().any(|w| lower.contains(w));
    let mut examined = 0;
    for raw in text.lines() {
        let plain = strip_escapes(raw);
        let line = plain.as_str();
        let folded = line.to_lowercase();
        if !DENIED.iter().any(|p| folded.contains(p)) {
            continue;
        }
        // Each candidate costs a few system calls; `find /` can print thousands of these.
        examined += 1;
        if examined > MAX_DENIAL_LINES {
            return None;
        }
        let paths = candidates(line, allowed.cwd);
        if paths.is_empty() {
            let kind = if networky {
                DenialKind::Network
            } else {
                DenialKind::Other
            };
            return Some(SandboxDenial {
                kind,
                line: clean(line),
            });
        }
        if let Some(path) = paths
            .into_iter()
            .map(|p| resolve_links(&p))
            .find(|p| !within(p, allowed.roots) && !is_writable_device(p) && writable_unconfined(p))
        {
            return Some(SandboxDenial {
                kind: DenialKind::Write(path),
                line: clean(line),
            });
        }
    }
    if allowed.network {
        return None;
    }
    text.lines()
        .map(strip_escapes)
        .find(|line| {
            let folded = line.to_lowercase();
            NETWORK_FAILURES.iter().any(|p| folded.contains(p))
        })
        .map(|line| SandboxDenial {
            kind: DenialKind::Network,
            line: clean(&line),
        })
}

/// The head and tail of a capture, each at most `SCAN_BYTES`.
pub(crate) fn scan_parts<'a>(
    whole: Option<&'a [u8]>,
    head: &'a [u8],
    tail: &'a [u8],
) -> [&'a [u8]; 2] {
    match whole {
        Some(bytes) if bytes.len() <= 2 * SCAN_BYTES => [bytes, &[]],
        Some(bytes) => [&bytes[..SCAN_BYTES], &bytes[bytes.len() - SCAN_BYTES..]],
        None => [
            &head[..head.len().min(SCAN_BYTES)],
            &tail[tail.len().saturating_sub(SCAN_BYTES)..],
        ],
    }
}

/// Path-like words of `line` (with a `/`), made absolute against `cwd` and normalised
/// lexically (`..` removed), quotes and punctuation around them dropped.
fn candidates(line: &str, cwd: &Path) -> Vec<PathBuf> {
    let quotes: &[char] = &['\'', '"', '`', '‘', '’', '“', '”'];
    line.split(|c: char| c.is_whitespace() || quotes.contains(&c))
        .map(|w| w.trim_matches(|c: char| ":,;()[]<>{}=".contains(c)))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.contains('/') && !w.contains("://"))
        .map(|w| normalise(&cwd.join(w)))
        .collect()
}

fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::from("/");
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir | Component::Prefix(_) => {}
        }
    }
    out
}

/// `path` with the symbolic links of its longest existing prefix resolved, so a relative
/// path through a link that leaves the roots is judged by where it leads; the part that does
/// not exist yet is appended as written.
fn resolve_links(path: &Path) -> PathBuf {
    let mut existing = path;
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            let mut out = real;
            out.extend(rest.iter().rev());
            return out;
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name);
                existing = parent;
            }
            _ => return path.to_path_buf(),
        }
    }
}

fn within(path: &Path, roots: &[PathBuf]) -> bool {
    roots.iter().any(|r| path.starts_with(r))
}

fn is_writable_device(path: &Path) -> bool {
    super::policy::WRITABLE_DEVICES
        .iter()
        .any(|d| path == Path::new(d))
}

/// Whether this (unsandboxed) process could write `path`, or create it in its nearest
/// existing ancestor: if not, the command's denial was an ordinary permission error.
fn writable_unconfined(path: &Path) -> bool {
    let mut at = Some(path);
    while let Some(p) = at {
        if std::fs::symlink_metadata(p).is_ok() {
            return nix::unistd::access(p, nix::unistd::AccessFlags::W_OK).is_ok();
        }
        at = p.parent();
    }
    false
}

/// `line` without terminal escape sequences (CSI `ESC [ ... final`, or `ESC` and one
/// character), other control characters as spaces, so colour codes cannot hide a path.
fn strip_escapes(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            if chars.next() == Some('[') {
                for f in chars.by_ref() {
                    if ('\x40'..='\x7e').contains(&f) {
                        break;
                    }
                }
            }
        } else if c.is_control() {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

/// The line trimmed, control characters replaced, cut to `LINE_BYTES` at a char boundary.
fn clean(line: &str) -> String {
    let mut out = String::new();
    for c in line.trim().chars() {
        let c = if c.is_control() { '?' } else { c };
        if out.len() + c.len_utf8() > LINE_BYTES {
            break;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detect_in(stderr: &str, network: bool) -> Option<SandboxDenial> {
        let roots = [PathBuf::from("/tmp"), PathBuf::from("/tmp/ws")];
        let allowed = Allowed {
            roots: &roots,
            cwd: Path::new("/tmp/ws"),
            network,
        };
        detect(&[stderr.as_bytes()], &allowed)
    }

    /// A directory outside the roots this process can write: the crate directory tests run in.
    fn outside() -> PathBuf {
        std::env::current_dir().expect("cwd")
    }

    #[test]
    fn a_write_outside_the_roots_is_a_denial_naming_the_path() {
        let out = outside();
        let line = format!(
            "sh: 1: cannot create {}/ansa-x: Permission denied\n",
            out.display()
        );
        let d = detect_in(&line, false).expect("denial");
        assert_eq!(d.kind, DenialKind::Write(out.join("ansa-x")));
        assert!(d.to_string().contains("ansa-x"), "{d}");
        let roots = [PathBuf::from("/tmp")];
        let cwd = out.join("a/b");
        let allowed = Allowed {
            roots: &roots,
            cwd: &cwd,
            network: false,
        };
        let py = b"PermissionError: [Errno 13] Permission denied: '../../ansa-y'";
        assert_eq!(
            detect(&[py], &allowed).map(|d| d.kind),
            Some(DenialKind::Write(out.join("ansa-y")))
        );
    }

    #[test]
    fn denials_inside_the_roots_and_other_errors_are_not_the_sandbox() {
        assert_eq!(detect_in("cat: ./secret: Permission denied", false), None);
        assert_eq!(detect_in("rm: /tmp/ws/a: Permission denied", false), None);
        assert_eq!(detect_in("error: file not found /etc/x", false), None);
        assert_eq!(detect_in("", false), None);
        assert_eq!(
            detect_in("cannot open /dev/null: Permission denied", false),
            None
        );
    }

    #[test]
    fn a_refused_socket_is_a_network_denial_only_without_network() {
        let text = "  File \"<string>\", line 1, in <module>\n    s = socket.socket()\nPermissionError: [Errno 13] Permission denied\n";
        let d = detect_in(text, false).expect("denial");
        assert_eq!(d.kind, DenialKind::Network);
        assert_eq!(d.line, "PermissionError: [Errno 13] Permission denied");
        assert_eq!(
            detect_in(text, true).map(|d| d.kind),
            Some(DenialKind::Other)
        );
        assert_eq!(
            detect_in("unshare: unshare failed: Operation not permitted", false).map(|d| d.kind),
            Some(DenialKind::Other)
        );
    }

    #[test]
    fn a_relative_path_through_a_link_out_of_the_roots_is_judged_by_its_target() {
        let ws = tempfile::tempdir().expect("workspace");
        let ws = std::fs::canonicalize(ws.path()).expect("real workspace");
        let out = outside();
        std::os::unix::fs::symlink(&out, ws.join("link")).expect("symlink");
        let roots = [ws.clone()];
        let allowed = Allowed {
            roots: &roots,
            cwd: &ws,
            network: false,
        };
        let line = b"sh: 1: cannot create link/ansa-through-link: Permission denied";
        assert_eq!(
            detect(&[line], &allowed).map(|d| d.kind),
            Some(DenialKind::Write(out.join("ansa-through-link")))
        );
        // A path that stays inside is still an ordinary error.
        std::fs::create_dir(ws.join("sub")).expect("sub");
        let inside = b"sh: 1: cannot create sub/x: Permission denied";
        assert_eq!(detect(&[inside], &allowed), None);
    }

    #[test]
    fn a_client_that_could_not_reach_a_host_is_a_network_denial_only_without_network() {
        for text in [
            "curl: (7) Failed to connect to 127.0.0.1 port 8080 after 0 ms: Couldn't connect to server",
            "curl: (6) Could not resolve host: example.com",
            "WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError(\"Failed to establish a new connection: [Errno -3] Temporary failure in name resolution\")': /simple/six/",
            "ssh: Could not resolve hostname github.com: Name or service not known",
        ] {
            let d = detect_in(text, false).unwrap_or_else(|| panic!("no denial in {text}"));
            assert_eq!(d.kind, DenialKind::Network, "{text}");
            assert_eq!(detect_in(text, true), None, "{text}");
        }
        assert_eq!(
            detect_in(
                "Cannot connect to the Docker daemon at unix:///var/run/docker.sock",
                false
            ),
            None
        );
    }

    #[test]
    fn only_the_first_lines_with_a_denial_phrase_are_examined() {
        let inside = "rm: /tmp/ws/a: Permission denied\n".repeat(MAX_DENIAL_LINES);
        let out = format!(
            "cannot create {}/ansa-z: Permission denied\n",
            outside().display()
        );
        assert!(detect_in(&format!("{inside}{out}"), false).is_none());
        let fewer = "rm: /tmp/ws/a: Permission denied\n".repeat(MAX_DENIAL_LINES - 1);
        assert!(detect_in(&format!("{fewer}{out}"), false).is_some());
    }

    #[test]
    fn the_line_kept_is_bounded_and_has_no_control_characters() {
        let long = format!(
            "\x1b[31m{}/{}: Permission denied",
            outside().display(),
            "a".repeat(500)
        );
        let d = detect_in(&long, false).expect("denial");
        assert!(d.line.len() <= LINE_BYTES);
        assert!(!d.line.chars().any(char::is_control), "{:?}", d.line);
    }
}
