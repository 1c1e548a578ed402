//! The inline viewport: a live region at the bottom of the output in the main screen buffer
//! (never the alternate screen), with finished dialog printed above it into the terminal's
//! own scrollback exactly once.
//!
//! ratatui 0.30's `Terminal` fixes an inline viewport's height when it is created (changing it
//! means a new `Terminal`, which asks the terminal for the cursor position again and leaves
//! the rows of a shrunk region behind), and without the `scrolling-regions` feature its
//! `insert_before` clears the viewport in a separate flush. So this module keeps the region
//! itself, on ratatui's [`Buffer`] and [`CrosstermBackend::draw`]:
//!
//! - The region starts at the row the cursor was on (the next row if it was not at column 0)
//!   and its height follows the content. Growing past the bottom scrolls the screen up with
//!   line feeds on the last row, so only rows above the region go into scrollback; shrinking
//!   erases the rows below it.
//! - Committing lines erases the region and writes them from its top row, moving the region
//!   down; once the screen is full each further line scrolls the screen by one first. They
//!   are written with autowrap on (the region with it off): laid out for a screen wider than
//!   the terminal has now (tmux tells the application of a resize up to 250 ms late), a
//!   committed line wraps rather than losing its end at the margin. Everything
//!   that ever reaches scrollback is therefore committed dialog, in order, once — never a
//!   stale copy of the region. The region is then repainted below the new lines.
//! - Drawing compares each row with the previous frame and rewrites only changed rows:
//!   "erase line", then the row's cells up to its last visible one (no trailing blanks, and
//!   no remembered longer line, so terminals that reflow on resize have nothing extra to
//!   rewrap).
//! - Each frame (commits plus redraw) is one write wrapped in synchronized-update marks
//!   (`CSI ? 2026 h/l`, ignored where unsupported) with the cursor hidden until it is placed
//!   at the input, so nothing flickers.
//! - The terminal's own cursor is parked, hidden, at the region's first column and row after
//!   every frame; the input's cursor is drawn as a reversed cell instead. A terminal keeps the
//!   cursor's row on screen when it is resized and does whatever it likes with the rows above
//!   it: tmux and xterm drop rows below the cursor first when the screen gets shorter, then
//!   push rows from the top into their history, and tmux splits every row wider than a
//!   narrower screen and moves the top rows into its history to make room. With the cursor at
//!   the input, rows of the region above it (the preview, tool lines) went into the history
//!   that way, as ghosts of lines committed later, and the region's top after a resize had
//!   to be guessed from how the terminal rewrapped them. Parked at the top, only committed
//!   lines are ever above the cursor, and the reported cursor row *is* the region's top after
//!   any resize; the region is then wiped and repainted at the new size.
//!
//! [`TerminalGuard`] puts the terminal into raw mode with bracketed paste and keyboard
//! disambiguation (Shift+Enter), and restores it on drop and from a panic hook (before the
//! panic message is printed), erasing the live region so the shell continues below the dialog.

use std::io::{self, Write};
use std::panic::PanicHookInfo;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crossterm::cursor::{Hide, MoveTo, MoveUp, Show};
use crossterm::event::{
    DisableBracketedPaste, EnableBracketedPaste, KeyboardEnhancementFlags,
    PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags,
};
use crossterm::style::{Attribute, SetAttribute};
use crossterm::style::{PrintStyledContent, StyledContent};
use crossterm::terminal::{
    BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate, disable_raw_mode,
    enable_raw_mode,
};
use crossterm::{execute, queue};
use ratatui::backend::IntoCrossterm;
use ratatui::buffer::{Buffer, Cell};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::Line;
use unicode_width::UnicodeWidthStr;

use super::app::App;
use super::blocks;
use super::view;

/// The live region at the bottom of the output.
#[derive(Debug)]
pub(crate) struct InlineTerminal<W: Write> {
    out: W,
    width: u16,
    height: u16,
    top: u16,
    /// The row the terminal's cursor is on, as this region last moved it.
    at: u16,
    prev: Option<Buffer>,
    /// After a resize: the blank rows that were below the region before it (see `resize`).
    blank_below: Option<u16>,
    clear_below: bool,
    wipe: bool,
    in_frame: bool,
}

/// Prints `text` in `style` (the terminal's attributes are reset after it).
fn print_run(out: &mut impl Write, style: Style, text: &str) -> io::Result<()> {
    queue!(
        out,
        PrintStyledContent(StyledContent::new(style.into_crossterm(), text))
    )
}

/// True when a cell shows something (a space with a background or underline does).
fn visible(cell: &Cell) -> bool {
    cell.symbol() != " "
        || cell.bg != Color::Reset
        || cell
            .modifier
            .intersects(Modifier::REVERSED | Modifier::UNDERLINED | Modifier::CROSSED_OUT)
}

impl<W: Write> InlineTerminal<W> {
    /// A region for a terminal of `size` (columns, rows) whose cursor is at `cursor`
    /// (column, row); an unknown cursor counts as below the last row, so the first frame
    /// scrolls the screen up instead of drawing over anything.
    pub fn new(out: W, size: (u16, u16), cursor: Option<(u16, u16)>) -> Self {
        let (width, height) = (size.0.max(1), size.1.max(1));
        let top = match cursor {
            Some((0, y)) => y,
            Some((_, y)) => y.saturating_add(1),
            None => height,
        };
        InlineTerminal {
            out,
            width,
            height,
            top: top.min(height),
            at: cursor.map_or(height - 1, |(_, y)| y.min(height - 1)),
            prev: None,
            blank_below: None,
            clear_below: false,
            wipe: false,
            in_frame: false,
        }
    }

    /// Terminal width.
    pub fn width(&self) -> u16 {
        self.width
    }

    /// Terminal size the region is laid out for (columns, rows).
    pub fn size(&self) -> (u16, u16) {
        (self.width, self.height)
    }

    /// Screen row of the region's first line.
    pub fn top(&self) -> u16 {
        self.top
    }

    /// The writer (tests and the render benchmark read what was written).
    pub fn writer_mut(&mut self) -> &mut W {
        &mut self.out
    }

    fn begin(&mut self) -> io::Result<()> {
        if !self.in_frame {
            // No autowrap within a frame: a frame written before the terminal narrowed and
            // read after it has rows wider than the screen, which must not wrap and scroll.
            queue!(self.out, BeginSynchronizedUpdate, Hide)?;
            self.out.write_all(b"\x1b[?7l")?;
            self.in_frame = true;
        }
        Ok(())
    }

    /// Ends a frame: the cursor parked at the region's top, autowrap back on.
    fn end(&mut self) -> io::Result<()> {
        self.goto(self.top.min(self.height - 1))?;
        self.out.write_all(b"\x1b[?7h")?;
        queue!(self.out, EndSynchronizedUpdate)?;
        self.in_frame = false;
        Ok(())
    }

    /// Moves the cursor to column 0 of screen row `row`, relative to where it is. Every
    /// frame starts at the region's top, where the last one parked it and where the terminal
    /// keeps it through a resize; moving relative to it, a frame the terminal reads only
    /// after it resized (the application learns of a resize a frame late, tmux 3.3 up to
    /// 250 ms late) still lands on the region, never on committed lines an absolute row would
    /// now address. Down is line feeds, not "cursor down": on a screen that got shorter the
    /// latter stops at the last row, and the move back up to the top then overshoots into
    /// the committed lines, which the next repaint erases; a line feed scrolls instead, so
    /// the way back up is exact (only committed lines are above the top to scroll away).
    fn goto(&mut self, row: u16) -> io::Result<()> {
        self.out.write_all(b"\r")?;
        match row.cmp(&self.at) {
            std::cmp::Ordering::Greater => {
                for _ in self.at..row {
                    self.out.write_all(b"\n")?;
                }
            }
            std::cmp::Ordering::Less => queue!(self.out, MoveUp(self.at - row))?,
            std::cmp::Ordering::Equal => {}
        }
        self.at = row;
        Ok(())
    }

    /// Scrolls the whole screen up `n` rows (the top rows go into scrollback).
    fn scroll_up(&mut self, n: u16) -> io::Result<()> {
        if n > 0 {
            self.goto(self.height - 1)?;
            for _ in 0..n {
                self.out.write_all(b"\n")?;
            }
        }
        Ok(())
    }

    /// Erases the screen from row `row` down. From the top row it erases line by line:
    /// "erase below" at the home position is a whole-screen clear, which tmux (its
    /// `scroll-on-clear`, on by default) answers by moving the screen into its scrollback —
    /// the live region with it, as ghost lines.
    fn erase_below(&mut self, row: u16) -> io::Result<()> {
        if row > 0 {
            self.goto(row)?;
            return queue!(self.out, Clear(ClearType::FromCursorDown));
        }
        for r in 0..self.height {
            self.goto(r)?;
            queue!(self.out, Clear(ClearType::CurrentLine))?;
        }
        Ok(())
    }

    /// Writes row `y` of `buf` on screen row `row`: the whole line is erased first (so
    /// terminals that reflow on resize, like tmux, do not remember a longer line that was
    /// there before), then its cells up to the last visible one (no trailing blanks), in
    /// runs of one style, without absolute cursor moves.
    fn write_row(&mut self, buf: &Buffer, y: u16, row: u16) -> io::Result<()> {
        self.goto(row)?;
        queue!(self.out, Clear(ClearType::CurrentLine))?;
        let width = usize::from(buf.area.width);
        let start = usize::from(y) * width;
        let cells = &buf.content[start..start + width];
        let Some(last) = cells.iter().rposition(visible) else {
            return Ok(());
        };
        let mut skip = 0usize;
        let mut run = String::new();
        let mut style = None;
        for cell in &cells[..=last] {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            skip = cell.symbol().width().saturating_sub(1);
            if style != Some(cell.style()) {
                if let Some(done) = style {
                    print_run(&mut self.out, done, &run)?;
                }
                run.clear();
                style = Some(cell.style());
            }
            run.push_str(cell.symbol());
        }
        if let Some(done) = style {
            print_run(&mut self.out, done, &run)?;
        }
        Ok(())
    }

    /// Prints `lines` above the live region, into the dialog and eventually the terminal's
    /// scrollback; each call prints its lines exactly once. Lines wider than the terminal
    /// are cut (callers wrap first). Nothing is flushed until the next [`Self::draw`].
    pub fn insert(&mut self, lines: &[Line<'_>]) -> io::Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        self.begin()?;
        let buf = blocks::to_buffer(lines, self.width);
        // The region below goes first (it is repainted after): a line that wraps continues on
        // a blank row, not on what is left of a longer one.
        if self.top < self.height {
            self.erase_below(self.top)?;
        }
        // Autowrap on for committed lines: laid out for a wider screen than the terminal now
        // has (a resize not yet learned of), a line wraps, and the rows after it move down
        // with it, rather than being cut at the margin and lost.
        self.out.write_all(b"\x1b[?7h")?;
        let mut row = self.top;
        for y in 0..buf.area.height {
            if row >= self.height {
                self.scroll_up(1)?;
                row = self.height - 1;
            }
            self.write_row(&buf, y, row)?;
            row += 1;
        }
        self.out.write_all(b"\x1b[?7l")?;
        self.top = row;
        self.prev = None;
        self.clear_below = true;
        Ok(())
    }

    /// Draws the live region from `buf` (as wide as the terminal, at most as high) with the
    /// input's cursor drawn at `cursor` within it (none when `None`), then flushes the frame.
    /// The terminal's own cursor stays hidden at the region's top-left corner (module docs).
    pub fn draw(&mut self, buf: &Buffer, cursor: Option<(u16, u16)>) -> io::Result<()> {
        self.begin()?;
        let height = buf.area.height.min(self.height);
        let cursor = cursor.filter(|&(x, y)| y < height && x < buf.area.width);
        let mut caret;
        let buf = match cursor {
            Some((x, y)) => {
                caret = buf.clone();
                let cell = &mut caret[(x, y)];
                cell.modifier.insert(Modifier::REVERSED);
                &caret
            }
            None => buf,
        };
        if self
            .prev
            .as_ref()
            .is_some_and(|p| p.area.width != buf.area.width)
        {
            self.prev = None;
        }
        if std::mem::take(&mut self.wipe) {
            self.erase_below(self.top)?;
        }
        if let Some(blank) = self.blank_below.take() {
            // No more blank rows below the region than before the resize (see `resize`).
            let floor = self.height.saturating_sub(height.saturating_add(blank));
            self.top = self.top.max(floor);
        }
        if self.top.saturating_add(height) > self.height {
            let over = self.top + height - self.height;
            self.scroll_up(over)?;
            self.top -= over;
        }
        let width = usize::from(buf.area.width);
        let prev_height = self.prev.as_ref().map_or(0, |p| p.area.height);
        for y in 0..height {
            let range = usize::from(y) * width..usize::from(y + 1) * width;
            let same = self.prev.as_ref().is_some_and(|p| {
                y < p.area.height && p.content[range.clone()] == buf.content[range.clone()]
            });
            if !same {
                self.write_row(buf, y, self.top + y)?;
            }
        }
        if (self.clear_below || height < prev_height) && self.top + height < self.height {
            self.erase_below(self.top + height)?;
        }
        self.clear_below = false;
        self.end()?;
        self.out.flush()?;
        let mut prev = buf.clone();
        prev.resize(ratatui::layout::Rect::new(0, 0, buf.area.width, height));
        self.prev = Some(prev);
        Ok(())
    }

    /// The terminal now has `size`; `cursor` is where it reports its cursor (if it could):
    /// the region's top-left corner, where every frame leaves it, wherever the resize moved
    /// that row. The next draw wipes the region and repaints it.
    ///
    /// A narrower terminal that reflows splits the region's rows and moves its top up by the
    /// extra rows; repainted at the new width, the region is shorter than that, and the rest
    /// is left blank below it. Left there, those blank rows would add up over resizes and lift
    /// the region towards the screen's top, until it no longer fits the screen when next split
    /// and its top rows go into the history. So the repaint keeps no more blank rows below the
    /// region than were there before the resize: it moves down, leaving the rows above it
    /// blank (blank lines in the dialog, never a line twice).
    pub fn resize(&mut self, size: (u16, u16), cursor: Option<(u16, u16)>) {
        let drawn = self.prev.as_ref().map(|p| p.area.height);
        if let Some(drawn) = drawn {
            let below = self.height.saturating_sub(self.top.saturating_add(drawn));
            self.blank_below = Some(self.blank_below.map_or(below, |b| b.min(below)));
        }
        self.width = size.0.max(1);
        self.height = size.1.max(1);
        if let Some((_, row)) = cursor {
            self.top = row;
        }
        self.top = self.top.min(self.height - 1);
        self.at = self.top;
        self.invalidate();
    }

    /// Forgets what is on screen: the next draw wipes the region and repaints it.
    pub fn invalidate(&mut self) {
        self.prev = None;
        self.wipe = true;
    }

    /// Erases the live region and leaves the cursor, visible, where it started, right below
    /// the committed dialog.
    pub fn clear(&mut self) -> io::Result<()> {
        self.begin()?;
        self.erase_below(self.top.min(self.height - 1))?;
        self.end()?;
        queue!(self.out, Show)?;
        self.prev = None;
        self.out.flush()
    }
}

/// [`InlineTerminal::erase_below`] with absolute moves, for restoring the terminal from a
/// panic (where the region's state is not at hand).
fn erase_below(out: &mut impl Write, row: u16, height: u16) -> io::Result<()> {
    if row > 0 {
        return queue!(out, MoveTo(0, row), Clear(ClearType::FromCursorDown));
    }
    for r in 0..height {
        queue!(out, MoveTo(0, r), Clear(ClearType::CurrentLine))?;
    }
    Ok(())
}

/// Prints the app's new dialog into scrollback and redraws its live region.
pub(crate) fn render<W: Write>(term: &mut InlineTerminal<W>, app: &mut App) -> io::Result<()> {
    let width = term.width();
    let commits = app.take_commits();
    if !commits.is_empty() {
        let lines: Vec<Line<'static>> = commits
            .iter()
            .flat_map(|entry| view::entry_lines(app, entry, width))
            .collect();
        term.insert(&lines)?;
    }
    if std::mem::take(&mut app.repaint) {
        term.invalidate();
    }
    let live = view::live(app);
    term.draw(&blocks::to_buffer(&live.lines, width), live.cursor)?;
    // Only what was drawn counts as seen by the user.
    if let Some(window) = live.approval {
        app.approval_drawn(window);
    }
    Ok(())
}

/// Frames for the real terminal: bytes are collected and written to stdout in one go on
/// flush; nothing is written on drop (a frame cut short by a panic is dropped).
#[derive(Debug, Default)]
pub(crate) struct Frames {
    buf: Vec<u8>,
}

impl Write for Frames {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.buf.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut out = io::stdout().lock();
        out.write_all(&self.buf)?;
        self.buf.clear();
        out.flush()
    }
}

type Hook = Box<dyn Fn(&PanicHookInfo<'_>) + Send + Sync + 'static>;

/// Raw mode and friends for the TUI's lifetime; restores the terminal on drop and on panic.
pub(crate) struct TerminalGuard {
    live_top: Arc<AtomicU32>,
    restored: Arc<AtomicBool>,
    previous_hook: Arc<Hook>,
}

/// Undoes [`TerminalGuard::enter`] once: erases the live region (when its row is known),
/// shows the cursor, resets attributes, pops the keyboard flags, ends bracketed paste and
/// leaves raw mode. Errors are ignored: this runs when things already went wrong.
fn restore(live_top: &AtomicU32, restored: &AtomicBool) {
    if restored.swap(true, Ordering::SeqCst) {
        return;
    }
    let mut out = io::stdout();
    if let Ok(top) = u16::try_from(live_top.load(Ordering::SeqCst)) {
        let height = crossterm::terminal::size().map_or(top.saturating_add(1), |(_, h)| h);
        let _ = erase_below(&mut out, top, height);
    }
    let _ = out.write_all(b"\x1b[?7h");
    let _ = queue!(
        out,
        EndSynchronizedUpdate,
        SetAttribute(Attribute::Reset),
        PopKeyboardEnhancementFlags,
        DisableBracketedPaste,
        Show
    );
    let _ = out.flush();
    let _ = disable_raw_mode();
}

impl TerminalGuard {
    /// Enters raw mode, turns on bracketed paste and keyboard disambiguation (so
    /// Shift+Enter is told apart from Enter where the terminal supports it), and installs a
    /// panic hook that restores the terminal before the panic message is printed.
    pub fn enter() -> io::Result<Self> {
        enable_raw_mode()?;
        let _ = execute!(
            io::stdout(),
            EnableBracketedPaste,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        );
        let live_top = Arc::new(AtomicU32::new(u32::MAX));
        let restored = Arc::new(AtomicBool::new(false));
        let previous_hook: Arc<Hook> = Arc::new(std::panic::take_hook());
        let (top, done, previous) = (
            Arc::clone(&live_top),
            Arc::clone(&restored),
            Arc::clone(&previous_hook),
        );
        std::panic::set_hook(Box::new(move |info| {
            restore(&top, &done);
            previous(info);
        }));
        Ok(TerminalGuard {
            live_top,
            restored,
            previous_hook,
        })
    }

    /// Remembers where the live region starts, for erasing it on a panic.
    pub fn set_live_top(&self, top: u16) {
        self.live_top.store(u32::from(top), Ordering::SeqCst);
    }

    /// Restores the terminal now.
    pub fn restore(&self) {
        restore(&self.live_top, &self.restored);
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        self.restore();
        if !std::thread::panicking() {
            let previous = Arc::clone(&self.previous_hook);
            std::panic::set_hook(Box::new(move |info| previous(info)));
        }
    }
}
