//! Colours of the Carbon TUI: a mint accent on the terminal's own colours, or nothing at all
//! when `NO_COLOR` is set (any value) or `TERM=dumb`.

use ratatui::style::{Color, Modifier, Style};

/// The mint accent.
pub const MINT: Color = Color::Rgb(0x3e, 0xd6, 0xa8);

/// Styles used by every view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    /// No colours or attributes at all.
    pub plain: bool,
}

impl Theme {
    /// The theme for an environment: plain when `no_color` is set or `term` is `dumb`.
    pub fn from_env(no_color: bool, term: Option<&str>) -> Self {
        Theme {
            plain: no_color || term == Some("dumb"),
        }
    }

    /// The process environment's theme.
    pub fn detect() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some();
        let term = std::env::var("TERM").ok();
        Theme::from_env(no_color, term.as_deref())
    }

    fn style(self, style: Style) -> Style {
        if self.plain { Style::default() } else { style }
    }

    /// Accent (prompt, active mode, headings).
    pub fn accent(self) -> Style {
        self.style(Style::default().fg(MINT))
    }

    /// Secondary text (hints, durations, the header).
    pub fn dim(self) -> Style {
        self.style(Style::default().add_modifier(Modifier::DIM))
    }

    /// Emphasis in answers.
    pub fn bold(self) -> Style {
        self.style(Style::default().add_modifier(Modifier::BOLD))
    }

    /// Top-level headings.
    pub fn underlined(self) -> Style {
        self.style(Style::default().add_modifier(Modifier::UNDERLINED))
    }

    /// Italic in answers.
    pub fn italic(self) -> Style {
        self.style(Style::default().add_modifier(Modifier::ITALIC))
    }

    /// Inline code and code blocks.
    pub fn code(self) -> Style {
        self.style(Style::default().fg(Color::Cyan))
    }

    /// Failures.
    pub fn error(self) -> Style {
        self.style(Style::default().fg(Color::Red))
    }

    /// A result worth noticing that is not a failure (a nonzero exit, a cancel).
    pub fn warn(self) -> Style {
        self.style(Style::default().fg(Color::Yellow))
    }

    /// Lines an edit added.
    pub fn added(self) -> Style {
        self.style(Style::default().fg(Color::Green))
    }

    /// Lines an edit removed.
    pub fn removed(self) -> Style {
        self.style(Style::default().fg(Color::Red))
    }

    /// The user's own messages in the dialog.
    pub fn user(self) -> Style {
        self.style(Style::default().add_modifier(Modifier::BOLD))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_and_dumb_terminals_are_plain() {
        assert!(Theme::from_env(true, Some("xterm-256color")).plain);
        assert!(Theme::from_env(false, Some("dumb")).plain);
        assert!(!Theme::from_env(false, Some("xterm")).plain);
        assert_eq!(Theme::from_env(true, None).accent(), Style::default());
    }
}
