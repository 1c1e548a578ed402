//! Reusable prompts (issue 43 item 9): Markdown files in `<ANSA_HOME>/prompts/` and
//! `<workspace>/.ansa/prompts/` become `/name` commands. `/name rest of the line` sends the
//! file's text with `$ARGUMENTS` replaced by the rest of the line (or the rest appended as a
//! paragraph when the file has no `$ARGUMENTS`).
//!
//! The files are untrusted input: names must be `[a-z0-9_-]+` (the file stem), a file over
//! [`MAX_PROMPT_BYTES`] or not UTF-8 is skipped with a note that says what to do, a project
//! prompt replaces a user prompt of the same name, and a built-in command always wins (the
//! clash is noted). The `/` list shows each prompt with its first line, sanitised.

mod menu;

use std::path::{Path, PathBuf};

use crate::sanitize::flowing;
pub(crate) use menu::{menu_lines, menu_rows};

/// Largest prompt file read, in bytes.
pub const MAX_PROMPT_BYTES: u64 = 64 * 1024;
/// Most prompt files read from one directory.
pub const MAX_PROMPT_FILES: usize = 256;
/// Characters of a prompt's first line shown in the `/` list.
const SUMMARY_CHARS: usize = 80;
/// What a prompt file's text replaces with the rest of the command line.
const ARGUMENTS: &str = "$ARGUMENTS";

/// Where a prompt came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `<ANSA_HOME>/prompts/`.
    User,
    /// `<workspace>/.ansa/prompts/`.
    Project,
}

/// One `/name` command from a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prompt {
    /// The command name, without the `/`.
    pub name: String,
    /// The first non-empty line, without Markdown heading marks, sanitised and shortened.
    pub summary: String,
    /// The whole text.
    pub body: String,
    /// Which directory it came from.
    pub origin: Origin,
}

/// The prompts of a session, and what was wrong with the files that were skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Prompts {
    /// By name.
    list: Vec<Prompt>,
    /// One line per skipped file or clash, for the user.
    pub notes: Vec<String>,
}

/// The directories prompt files are read from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PromptDirs {
    /// `<ANSA_HOME>/prompts/`.
    pub user: Option<PathBuf>,
    /// `<workspace>/.ansa/prompts/`.
    pub project: Option<PathBuf>,
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_' || b == b'-')
}

fn summary(body: &str) -> String {
    let first = body
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let first = first.trim_start_matches('#').trim();
    let clean = flowing(first);
    let mut out: String = clean.chars().take(SUMMARY_CHARS).collect();
    if clean.chars().count() > SUMMARY_CHARS {
        out.push('…');
    }
    out
}

impl Prompts {
    /// Reads both directories; `builtin` names (without `/`) win over files.
    pub fn load(dirs: &PromptDirs, builtin: &[&str]) -> Prompts {
        let mut prompts = Prompts::default();
        for (dir, origin) in [(&dirs.user, Origin::User), (&dirs.project, Origin::Project)] {
            if let Some(dir) = dir {
                prompts.read_dir(dir, origin, builtin);
            }
        }
        prompts.list.sort_by(|a, b| a.name.cmp(&b.name));
        prompts
    }

    fn note(&mut self, path: &Path, what: impl std::fmt::Display) {
        let shown = flowing(&path.display().to_string()).into_owned();
        self.notes.push(format!("prompt file {shown}: {what}"));
    }

    fn read_dir(&mut self, dir: &Path, origin: Origin, builtin: &[&str]) {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
            Err(e) => {
                self.note(dir, format_args!("the directory cannot be read ({e})"));
                return;
            }
        };
        let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        if paths.len() > MAX_PROMPT_FILES {
            self.note(
                dir,
                format_args!(
                    "{} entries; only the first {MAX_PROMPT_FILES} are read",
                    paths.len()
                ),
            );
            paths.truncate(MAX_PROMPT_FILES);
        }
        for path in paths {
            let Some(file_name) = path.file_name().and_then(|n| n.to_str()) else {
                self.note(&path, "ignored: its name is not UTF-8");
                continue;
            };
            if file_name.starts_with('.') {
                continue;
            }
            let Some(stem) = file_name.strip_suffix(".md") else {
                self.note(&path, "ignored: only `.md` files are prompts");
                continue;
            };
            if !valid_name(stem) {
                self.note(
                    &path,
                    "ignored: a prompt's name may only hold a-z, 0-9, `_` and `-`; rename the file",
                );
                continue;
            }
            if builtin.contains(&stem) {
                self.note(
                    &path,
                    format_args!("not used: /{stem} is a built-in command; rename the file"),
                );
                continue;
            }
            let body = match read_text(&path) {
                Ok(body) => body,
                Err(why) => {
                    self.note(&path, why);
                    continue;
                }
            };
            let (description, body) = front_matter(&body);
            let prompt = Prompt {
                name: stem.to_owned(),
                summary: description.map_or_else(|| summary(&body), |d| summary(&d)),
                body,
                origin,
            };
            // The project's file replaces the user's: it is read second.
            self.list.retain(|p| p.name != prompt.name);
            self.list.push(prompt);
        }
    }

    /// Every prompt, by name.
    pub fn all(&self) -> &[Prompt] {
        &self.list
    }

    /// The prompts a partly typed `/word` may be.
    pub fn matching(&self, text: &str) -> Vec<&Prompt> {
        let Some(typed) = text.strip_prefix('/') else {
            return Vec::new();
        };
        if typed.contains(char::is_whitespace) {
            return Vec::new();
        }
        self.list
            .iter()
            .filter(|p| p.name.starts_with(typed))
            .collect()
    }

    /// The text to send for `/name rest`, when `name` is a prompt: the file's text with
    /// `$ARGUMENTS` replaced by `rest` (or `rest` added as a paragraph).
    pub fn expand(&self, text: &str) -> Option<String> {
        let line = text.trim_start();
        let command = line.strip_prefix('/')?;
        let end = command.find(char::is_whitespace).unwrap_or(command.len());
        let name = &command[..end];
        let rest = command[end..].trim();
        let prompt = self.list.iter().find(|p| p.name == name)?;
        let body = if prompt.body.contains(ARGUMENTS) {
            prompt.body.replace(ARGUMENTS, rest)
        } else if rest.is_empty() {
            prompt.body.clone()
        } else {
            format!("{}\n\n{rest}", prompt.body.trim_end())
        };
        Some(body)
    }
}

/// Splits a leading YAML front matter block (`---` lines around `key: value` lines, as Claude
/// Code's command files have) off a prompt: its `description` becomes the popup's line, and
/// the block itself is never sent to the model.
fn front_matter(text: &str) -> (Option<String>, String) {
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (None, text.to_owned());
    };
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            let header = &rest[..offset];
            let body = rest[offset + line.len()..].trim_start_matches(['\r', '\n']);
            let description = header.lines().find_map(|l| {
                let value = l.strip_prefix("description:")?.trim();
                let value = value.trim_matches(|c| c == '"' || c == '\'');
                (!value.is_empty()).then(|| value.to_owned())
            });
            return (description, body.to_owned());
        }
        offset += line.len();
    }
    // No closing `---`: not front matter, the text as written.
    (None, text.to_owned())
}

/// A prompt file's text: at most [`MAX_PROMPT_BYTES`], UTF-8. The file is opened once without
/// following a final symbolic link (a repository's `.ansa/prompts/review.md` linked to
/// `~/.aws/credentials` would otherwise send that file to the model) and without blocking on a
/// FIFO, then checked and read through that one descriptor, bounded.
fn read_text(path: &Path) -> Result<String, String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(nix::libc::O_NOFOLLOW | nix::libc::O_NONBLOCK | nix::libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(nix::libc::ELOOP) {
                "ignored: a symbolic link (prompt files are read only as regular files; copy the file instead)".to_owned()
            } else {
                format!("cannot be read ({e})")
            }
        })?;
    let meta = file
        .metadata()
        .map_err(|e| format!("cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("ignored: not a regular file".into());
    }
    if meta.len() > MAX_PROMPT_BYTES {
        return Err(format!(
            "not used: {} bytes, more than the {MAX_PROMPT_BYTES} a prompt may have",
            meta.len()
        ));
    }
    let mut bytes = Vec::new();
    file.take(MAX_PROMPT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read ({e})"))?;
    if bytes.len() as u64 > MAX_PROMPT_BYTES {
        return Err(format!(
            "not used: more than the {MAX_PROMPT_BYTES} bytes a prompt may have"
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not used: not UTF-8 text (invalid byte at offset {}); save it as UTF-8",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, name: &str, text: &[u8]) {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join(name), text).unwrap();
    }

    #[test]
    fn front_matter_is_the_summary_and_never_sent() {
        let (d, body) =
            front_matter("---\ndescription: review code\nmodel: x\n---\nReview $ARGUMENTS.\n");
        assert_eq!(d.as_deref(), Some("review code"));
        assert_eq!(body, "Review $ARGUMENTS.\n");
        let (d, body) = front_matter("---\nno end\n");
        assert_eq!((d, body.as_str()), (None, "---\nno end\n"));
        let (d, body) = front_matter("plain\n");
        assert_eq!((d, body.as_str()), (None, "plain\n"));
    }

    #[test]
    fn a_linked_prompt_file_is_not_read() {
        let t = tempfile::tempdir().unwrap();
        let secret = t.path().join("secret");
        std::fs::write(&secret, "TOPSECRET\n").unwrap();
        let project = t.path().join("ws/.ansa/prompts");
        std::fs::create_dir_all(&project).unwrap();
        std::os::unix::fs::symlink(&secret, project.join("sec.md")).unwrap();
        let err = read_text(&project.join("sec.md")).unwrap_err();
        assert!(err.contains("symbolic link"), "{err}");
    }

    #[test]
    fn files_become_commands_with_arguments() {
        let t = tempfile::tempdir().unwrap();
        let user = t.path().join("home/prompts");
        let project = t.path().join("ws/.ansa/prompts");
        write(
            &user,
            "review.md",
            b"# Review the change\nReview $ARGUMENTS carefully.\n",
        );
        write(&user, "explain.md", b"Explain this code.\n");
        write(
            &project,
            "review.md",
            b"# Project review\nCheck $ARGUMENTS against our style.\n",
        );
        write(&project, "status.md", b"shadowed\n");
        write(&project, "Bad Name.md", b"x");
        write(&project, "notes.txt", b"x");
        write(&project, "latin1.md", b"caf\xe9\n");
        write(
            &project,
            "huge.md",
            &vec![b'a'; MAX_PROMPT_BYTES as usize + 1],
        );
        write(
            &project,
            "evil.md",
            b"\x1b[2J# Clear \x1b]0;title\x07screen\n",
        );
        let dirs = PromptDirs {
            user: Some(user),
            project: Some(project),
        };
        let p = Prompts::load(&dirs, &["status", "help"]);
        let names: Vec<&str> = p.all().iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["evil", "explain", "review"]);
        assert_eq!(
            p.all()[2].origin,
            Origin::Project,
            "the project's file wins"
        );
        assert_eq!(p.all()[2].summary, "Project review");
        assert!(
            !p.all()[0].summary.contains('\u{1b}'),
            "{:?}",
            p.all()[0].summary
        );
        assert_eq!(
            p.expand("/review src/main.rs").as_deref(),
            Some("# Project review\nCheck src/main.rs against our style.\n")
        );
        assert_eq!(
            p.expand("/explain the parser").as_deref(),
            Some("Explain this code.\n\nthe parser")
        );
        assert_eq!(
            p.expand("/explain").as_deref(),
            Some("Explain this code.\n")
        );
        assert_eq!(p.expand("/nope x"), None);
        assert_eq!(p.expand("/status"), None, "built-ins are not prompts");
        let names: Vec<&str> = p.matching("/e").iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["evil", "explain"]);
        let notes = p.notes.join("\n");
        for expected in [
            "status.md: not used: /status is a built-in command",
            "Bad Name.md: ignored: a prompt's name may only hold",
            "notes.txt: ignored: only `.md` files are prompts",
            "latin1.md: not used: not UTF-8 text (invalid byte at offset 3)",
            "huge.md: not used: 65537 bytes",
        ] {
            assert!(notes.contains(expected), "{expected} in:\n{notes}");
        }
    }
}
