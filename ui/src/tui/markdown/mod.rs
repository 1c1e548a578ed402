//! Safe, basic Markdown for model answers: CommonMark core plus strikethrough and GitHub
//! tables, rendered to styled lines of at most the given width. Every piece of text is sanitized (including
//! what entities such as `&#27;` decode to), links are shown as text and a dim ` (url)`,
//! never as OSC 8 hyperlinks, and raw HTML is shown literally.

use std::borrow::Cow;

mod table;

use pulldown_cmark::{
    CodeBlockKind, CowStr, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd,
};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::theme::Theme;
use super::wrap::{display_width, hard_wrap, wrap_prefixed};
use crate::sanitize::flowing;

/// Bullet of unordered list items.
const BULLET: &str = "• ";
/// Bar before block quote lines.
const QUOTE_BAR: &str = "│ ";
/// Left margin of code blocks.
const CODE_MARGIN: &str = "  ";

/// Renders `text` as Markdown into lines of at most `width` display columns (0 counts as 1):
///
/// - headings without their `#` markers, by level: `#` accent, bold and underlined, `##`
///   accent and bold, `###` bold, deeper ones bold and italic; blocks separated by one blank
///   line; emphasis italic, strong bold, strikethrough crossed out; inline code in the code
///   style without backticks;
/// - fenced and indented code blocks in the code style with a two-space margin under a dim
///   label naming the fence's language, every space kept and long lines hard-wrapped at the
///   width (tabs to the next multiple of four), a wrapped line's continuation indented like
///   the line itself;
/// - GitHub tables with aligned columns, shrunk to the width when needed (cells wrap inside
///   their column), the header bold over a rule;
/// - lists with `• ` or `1. ` markers, nesting and hanging indent; block quotes with a dim
///   `│ ` bar; horizontal rules as `─` across the width;
/// - links as their text and a dim ` (url)` (not repeated for autolinks or when the text is
///   the URL), images as `[image: alt] (url)`;
/// - soft breaks as spaces, hard breaks as line breaks, raw HTML as literal text.
///
/// With `theme.plain` the text is the same with default styles.
pub fn render_markdown(text: &str, width: u16, theme: Theme) -> Vec<Line<'static>> {
    // Whole sequences go before parsing (the parser splits text at `[` and `]`); every piece
    // of parsed text is sanitized again for what entities decode to.
    let text = flowing(text);
    let mut renderer = Renderer::new(width.max(1), theme);
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    for event in Parser::new_ext(&text, options) {
        renderer.event(event);
    }
    renderer.flush_inline();
    renderer.out
}

/// A block that prefixes the lines inside it.
enum Container {
    /// `│ ` on every line.
    Quote,
    /// A list item: its marker before its first line, as many spaces before the others.
    Item { marker: String, first: bool },
}

/// An open list.
struct List {
    /// The next item's number in an ordered list.
    next: Option<u64>,
    /// Items hold paragraphs: blank lines between them.
    loose: bool,
}

/// An open link or image.
struct Link<'a> {
    url: Cow<'a, str>,
    image: bool,
    /// Autolinks show only their URL.
    auto: bool,
    /// Where the link text starts in `inline`.
    start: usize,
}

struct Renderer<'a> {
    width: u16,
    theme: Theme,
    out: Vec<Line<'static>>,
    containers: Vec<Container>,
    lists: Vec<List>,
    links: Vec<Link<'a>>,
    /// Inline styles in effect (the last one applies).
    styles: Vec<Style>,
    /// The current block's text, not yet wrapped.
    inline: Vec<Span<'a>>,
    /// Inside a code block: its text.
    code: Option<String>,
    /// The open code block's language, from its fence.
    code_lang: Option<String>,
    /// Inside a table: its cells so far.
    table: Option<table::Table>,
    /// A blank line goes before the next block.
    blank: bool,
}

impl<'a> Renderer<'a> {
    fn new(width: u16, theme: Theme) -> Self {
        Renderer {
            width,
            theme,
            out: Vec::new(),
            containers: Vec::new(),
            lists: Vec::new(),
            links: Vec::new(),
            styles: Vec::new(),
            inline: Vec::new(),
            code: None,
            code_lang: None,
            table: None,
            blank: false,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, style: Style) {
        let patched = self.style().patch(style);
        self.styles.push(patched);
    }

    fn event(&mut self, event: Event<'a>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => match &mut self.code {
                Some(code) => code.push_str(&flowing(&text)),
                None => self.text(text, self.style()),
            },
            Event::Code(text) => self.text(text, self.style().patch(self.theme.code())),
            Event::Html(text) | Event::InlineHtml(text) => self.text(text, self.style()),
            Event::SoftBreak => self.inline.push(Span::styled(" ", self.style())),
            Event::HardBreak => self.inline.push(Span::styled("\n", self.style())),
            Event::Rule => {
                self.begin_block();
                let (prefix, _) = self.prefixes();
                let columns = usize::from(self.width).saturating_sub(prefix_width(&prefix));
                let rule = vec![Span::styled("─".repeat(columns.max(1)), self.theme.dim())];
                self.emit(wrap_prefixed(&rule, self.width, &prefix, &prefix));
                self.blank = true;
            }
            // Not enabled: footnotes, task lists, math, metadata. Shown as text if ever seen.
            Event::FootnoteReference(text) | Event::InlineMath(text) | Event::DisplayMath(text) => {
                self.text(text, self.style());
            }
            Event::TaskListMarker(done) => {
                let mark = if done { "[x] " } else { "[ ] " };
                self.inline.push(Span::styled(mark, self.style()));
            }
        }
    }

    fn text(&mut self, text: CowStr<'a>, style: Style) {
        let text: Cow<'a, str> = match text {
            CowStr::Borrowed(s) => flowing(s),
            other => Cow::Owned(flowing(&other).into_owned()),
        };
        self.inline.push(Span::styled(text, style));
    }

    fn start(&mut self, tag: Tag<'a>) {
        match tag {
            Tag::Paragraph => {
                if let (Some(Container::Item { .. }), Some(list)) =
                    (self.containers.last(), self.lists.last_mut())
                {
                    list.loose = true;
                }
                self.begin_block();
            }
            Tag::Heading { level, .. } => {
                self.begin_block();
                let t = self.theme;
                let style = match level {
                    HeadingLevel::H1 => t.accent().patch(t.bold()).patch(t.underlined()),
                    HeadingLevel::H2 => t.accent().patch(t.bold()),
                    HeadingLevel::H3 => t.bold(),
                    _ => t.bold().patch(t.italic()),
                };
                self.push_style(style);
            }
            Tag::Table(aligns) => {
                self.begin_block();
                self.table = Some(table::Table::new(aligns));
            }
            Tag::TableHead | Tag::TableRow | Tag::TableCell => self.inline.clear(),
            Tag::BlockQuote(_) => {
                self.begin_block();
                self.containers.push(Container::Quote);
            }
            Tag::CodeBlock(kind) => {
                self.begin_block();
                self.code = Some(String::new());
                self.code_lang = match kind {
                    CodeBlockKind::Fenced(info) => info
                        .split_whitespace()
                        .next()
                        .map(|lang| flowing(lang).into_owned()),
                    CodeBlockKind::Indented => None,
                };
            }
            Tag::HtmlBlock => self.begin_block(),
            Tag::List(start) => {
                self.begin_block();
                self.lists.push(List {
                    next: start,
                    loose: false,
                });
            }
            Tag::Item => {
                self.begin_block();
                let marker = match self.lists.last_mut() {
                    Some(List {
                        next: Some(number), ..
                    }) => {
                        let marker = format!("{number}. ");
                        *number = number.saturating_add(1);
                        marker
                    }
                    _ => BULLET.to_owned(),
                };
                self.containers.push(Container::Item {
                    marker,
                    first: true,
                });
            }
            Tag::Emphasis => self.push_style(self.theme.italic()),
            Tag::Strong => self.push_style(self.theme.bold()),
            Tag::Strikethrough => {
                let strike = if self.theme.plain {
                    Style::default()
                } else {
                    Style::default().add_modifier(Modifier::CROSSED_OUT)
                };
                self.push_style(strike);
            }
            Tag::Link {
                link_type,
                dest_url,
                ..
            } => self.open_link(dest_url, link_type, false),
            Tag::Image {
                link_type,
                dest_url,
                ..
            } => {
                self.inline.push(Span::styled("[image: ", self.style()));
                self.open_link(dest_url, link_type, true);
            }
            // Other containers (not enabled): their content renders as ordinary blocks.
            _ => {}
        }
    }

    fn open_link(&mut self, url: CowStr<'a>, link_type: LinkType, image: bool) {
        let url = match url {
            CowStr::Borrowed(s) => flowing(s),
            other => Cow::Owned(flowing(&other).into_owned()),
        };
        let auto = matches!(link_type, LinkType::Autolink | LinkType::Email);
        let start = self.inline.len();
        self.links.push(Link {
            url,
            image,
            auto,
            start,
        });
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph | TagEnd::HtmlBlock => self.end_block(),
            TagEnd::Heading(_) => {
                self.end_block();
                self.styles.pop();
            }
            TagEnd::BlockQuote(_) => {
                self.end_block();
                self.containers.pop();
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.code_block(&code);
                }
                self.blank = true;
            }
            TagEnd::List(_) => {
                self.end_block();
                self.lists.pop();
            }
            TagEnd::Item => {
                self.flush_inline();
                if let Some(Container::Item {
                    marker,
                    first: true,
                }) = self.containers.last()
                {
                    // An empty item still shows its marker.
                    let marker = vec![Span::styled(
                        marker.trim_end().to_owned(),
                        self.theme.accent(),
                    )];
                    self.containers.pop();
                    let (prefix, _) = self.prefixes();
                    self.emit(wrap_prefixed(&marker, self.width, &prefix, &prefix));
                } else {
                    self.containers.pop();
                }
                self.blank = self.lists.last().is_some_and(|list| list.loose);
            }
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => self.close_link(),
            TagEnd::TableCell => {
                let text: String = self.inline.drain(..).map(|s| s.content).collect();
                if let Some(table) = self.table.as_mut() {
                    table.cell(text);
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.end_row();
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    let (prefix, _) = self.prefixes();
                    let lines = table.render(self.width, &prefix, self.theme);
                    self.emit(lines);
                }
                self.blank = true;
            }
            _ => {}
        }
    }

    fn close_link(&mut self) {
        let Some(link) = self.links.pop() else {
            return;
        };
        if link.image {
            self.inline.push(Span::styled("]", self.style()));
        }
        let shown: String = self.inline[link.start.min(self.inline.len())..]
            .iter()
            .map(|span| span.content.as_ref())
            .collect();
        let show_url = !link.url.is_empty() && (link.image || (!link.auto && shown != link.url));
        if show_url {
            let url = format!(" ({})", link.url);
            self.inline.push(Span::styled(url, self.theme.dim()));
        }
    }

    /// Before a block: the pending text goes out, then a blank line if one is due.
    fn begin_block(&mut self) {
        self.flush_inline();
        if self.blank && !self.out.is_empty() {
            let (_, rest) = self.prefixes();
            let mut bar: Vec<Span<'static>> = rest
                .into_iter()
                .filter(|span| !span.content.trim().is_empty())
                .collect();
            if let Some(last) = bar.last_mut() {
                last.content = Cow::Owned(last.content.trim_end().to_owned());
            }
            self.out.push(Line::from(bar));
        }
        self.blank = false;
    }

    fn end_block(&mut self) {
        self.flush_inline();
        self.blank = true;
    }

    /// Wraps and emits the pending inline text.
    fn flush_inline(&mut self) {
        if self.inline.is_empty() {
            return;
        }
        let (first, rest) = self.prefixes();
        let lines = wrap_prefixed(&self.inline, self.width, &first, &rest);
        self.inline.clear();
        self.emit(lines);
    }

    fn code_block(&mut self, code: &str) {
        let code = code.strip_suffix('\n').unwrap_or(code);
        let lang = self.code_lang.take();
        if code.is_empty() {
            return;
        }
        let (mut first, mut rest) = self.prefixes();
        first.push(Span::raw(CODE_MARGIN));
        rest.push(Span::raw(CODE_MARGIN));
        let mut lines = Vec::new();
        if let Some(lang) = lang.filter(|l| !l.is_empty()) {
            let label = [Span::styled(lang, self.theme.dim())];
            lines.extend(wrap_prefixed(&label, self.width, &first, &rest));
        }
        let room = usize::from(self.width).saturating_sub(prefix_width(&rest));
        let mut under = rest.clone();
        for line in code.split('\n') {
            let start = if lines.is_empty() { &first } else { &rest };
            // A line that fits needs no continuation prefix; a wrapped one continues under
            // its own indentation (at most half the room).
            let spans = [Span::styled(line, self.theme.code())];
            if line.len() <= room && !line.contains('\t') {
                lines.extend(hard_wrap(&spans, self.width, start, &rest));
                continue;
            }
            let indent = leading_columns(line).min(room / 2);
            under.truncate(rest.len());
            under.push(Span::raw(" ".repeat(indent)));
            lines.extend(hard_wrap(&spans, self.width, start, &under));
        }
        self.emit(lines);
    }

    /// Adds lines to the output; the open items have shown their markers.
    fn emit(&mut self, lines: Vec<Line<'static>>) {
        self.out.extend(lines);
        for container in &mut self.containers {
            if let Container::Item { first, .. } = container {
                *first = false;
            }
        }
    }

    /// The prefixes of the open containers for the next block's first line and its others.
    fn prefixes(&self) -> (Vec<Span<'static>>, Vec<Span<'static>>) {
        let mut first = Vec::with_capacity(self.containers.len());
        let mut rest = Vec::with_capacity(self.containers.len());
        for container in &self.containers {
            match container {
                Container::Quote => {
                    first.push(Span::styled(QUOTE_BAR, self.theme.dim()));
                    rest.push(Span::styled(QUOTE_BAR, self.theme.dim()));
                }
                Container::Item { marker, first: new } => {
                    let indent = " ".repeat(display_width(marker));
                    if *new {
                        first.push(Span::styled(marker.clone(), self.theme.accent()));
                    } else {
                        first.push(Span::raw(indent.clone()));
                    }
                    rest.push(Span::raw(indent));
                }
            }
        }
        (first, rest)
    }
}

/// Display columns of a line's leading spaces and tabs (tabs to the next multiple of four).
fn leading_columns(line: &str) -> usize {
    let mut columns = 0;
    for c in line.chars() {
        match c {
            ' ' => columns += 1,
            '\t' => columns = (columns / 4 + 1) * 4,
            _ => break,
        }
    }
    columns
}

fn prefix_width(prefix: &[Span<'_>]) -> usize {
    prefix.iter().map(|span| display_width(&span.content)).sum()
}
