//! A real terminal for the TUI tests: the built binary runs in a detached tmux session; tests
//! type into it and read the screen (`capture-pane`) and the alternate-screen flag.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::{WAIT, World};

/// One tmux server (its own socket) running one `ansa` in a window of a fixed size.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// Starts `ansa ARGS` in `world`'s workspace in a `width`×`height` window.
    pub fn start(world: &World, args: &[&str], width: u16, height: u16) -> Tmux {
        Tmux::start_with_env(world, "", args, &[], width, height)
    }

    /// Like [`Tmux::start`], with `env` set for `ansa` too and the shell commands `before`
    /// run first in the pane (output a day's terminal would already show).
    pub fn start_with_env(
        world: &World,
        before: &str,
        args: &[&str],
        env: &[(&str, String)],
        width: u16,
        height: u16,
    ) -> Tmux {
        let socket = world.path("tmux.sock").display().to_string();
        let exe = env!("CARGO_BIN_EXE_ansa");
        let mut vars = String::new();
        for (name, value) in env {
            vars.push_str(&format!(" {name}={}", shell(value)));
        }
        let mut command = format!(
            "cd {} && {before} env ANSA_HOME={} HOME={} TERM=xterm-256color{vars} {exe}",
            shell(&world.ws().display().to_string()),
            shell(&world.ansa_home().display().to_string()),
            shell(&world.path("home").display().to_string()),
        );
        for a in args {
            command.push(' ');
            command.push_str(&shell(a));
        }
        // Keep the pane after ansa exits so its last screen can still be read.
        command.push_str("; echo '[ansa exited '$?']'; sleep 300");
        let status = Command::new("tmux")
            .args(["-S", &socket, "-f", "/dev/null", "new-session", "-d", "-x"])
            .arg(width.to_string())
            .arg("-y")
            .arg(height.to_string())
            .args(["-s", "t", "sh", "-c", &command])
            .env_remove("TMUX")
            .env("NO_COLOR", "1")
            .status()
            .unwrap_or_else(|e| {
                panic!("the TUI tests run ansa in tmux, which could not start ({e}): install it (Debian: apt-get install tmux), or run cargo xtask test")
            });
        assert!(status.success(), "tmux new-session failed");
        Tmux { socket }
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .args(["-S", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Sends tmux key names (`Enter`, `C-c`, `Tab`, `PPage`…).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Types literal text.
    pub fn type_text(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "t", "-l", text]);
    }

    /// The visible screen plus scrollback, as text.
    pub fn capture(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t", "-S", "-2000"])
    }

    /// The whole scrollback and screen as text, rows the terminal wrapped joined again
    /// (`capture-pane -p -J -S -`).
    pub fn capture_joined(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-J", "-t", "t", "-S", "-"])
    }

    /// The visible screen only, as text.
    pub fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "t"])
    }

    /// Whether the pane is on the alternate screen.
    pub fn alternate_on(&self) -> bool {
        self.tmux(&["display-message", "-p", "-t", "t", "#{alternate_on}"])
            .trim()
            == "1"
    }

    /// The pid of the `ansa` process in the pane (the child of the pane's shell).
    pub fn ansa_pid(&self) -> i32 {
        let shell: i32 = self
            .tmux(&["display-message", "-p", "-t", "t", "#{pane_pid}"])
            .trim()
            .parse()
            .expect("pane pid");
        let children = std::fs::read_to_string(format!("/proc/{shell}/task/{shell}/children"))
            .unwrap_or_default();
        children
            .split_whitespace()
            .next()
            .and_then(|p| p.parse().ok())
            .expect("ansa runs in the pane")
    }

    /// Closes the terminal: the tmux server goes away and the pane's processes get SIGHUP.
    pub fn hang_up(&self) {
        self.tmux(&["kill-server"]);
    }

    /// Resizes the window.
    pub fn resize(&self, width: u16, height: u16) {
        self.tmux(&[
            "resize-window",
            "-t",
            "t",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    /// Waits until the capture satisfies `pred`; returns it. Checks the alternate screen too.
    pub fn wait_for(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            assert!(
                !self.alternate_on(),
                "the TUI switched to the alternate screen"
            );
            let screen = self.capture();
            if pred(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(25));
        }
    }

    /// Waits until the screen contains `text`.
    pub fn wait_text(&self, text: &str) -> String {
        self.wait_for(text, |s| s.contains(text))
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-S", &self.socket, "kill-server"])
            .status();
    }
}

/// Asserts that every row of `screen` fits `width` columns.
pub fn fits(screen: &str, width: u16) {
    for row in screen.lines() {
        assert!(
            row.chars().count() <= usize::from(width),
            "a row wider than {width}: {row:?}\n{screen}"
        );
    }
}

fn shell(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}
