//! `text_search`: the lines of the kiln's notes that match a query, with
//! the lines around them, ordered by path then line.
//!
//! The matching is ripgrep's own engine in-process: `grep-regex` builds the
//! matcher (a literal query is matched as written, `regex: true` takes
//! ripgrep's regex syntax; smart case as ripgrep does it) and
//! `grep-searcher` runs it line by line over each note's bytes, with the
//! context lines asked for. The notes are found by the confined walk
//! ([`Workspace::walk`]) and read through the confined layer, never by
//! path with `std::fs`: hidden folders (`.obsidian`, `.git`, `.trash`,
//! `.quire`) are never entered, and a symbolic link leading out of the root
//! is never followed. That is why ripgrep's walker (the `ignore` crate) is
//! not used: it opens folders by path string and follows links without
//! regard to a root, bypassing the confinement every kiln tool relies on.
//!
//! The search reads the files as they are now, not the kiln's index: it
//! works while the index is still being built and always sees the latest
//! edit. Two threads search the notes (handed out one at a time in path
//! order, so the first `limit` matches are known early and later notes are
//! only counted).
//!
//! What a note's bytes give:
//! - a line ends at `\n`; a `\r` before it is not part of the line (CRLF
//!   notes match and show like LF ones, and `$` matches before `\r\n`);
//! - a note that is not UTF-8 is searched as bytes all the same (the query
//!   matches its valid parts) and its lines are shown with each invalid
//!   byte as `U+FFFD`, so a Latin-1 note is still found;
//! - a note over [`MAX_NOTE_BYTES`] is not searched: it is counted in
//!   `files_skipped` and named in `skipped`, as is one that cannot be read;
//! - a line longer than [`MAX_LINE_CHARS`] characters is cut around the
//!   first match (on a character boundary), with `…` where text was left
//!   out, so one minified 10 MB line cannot blow up the answer.

use std::collections::VecDeque;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use grep_matcher::{LineTerminator, Matcher};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch};

use super::error::shown;
use super::note_path::{FolderPath, NotePath};
use super::read::{KilnError, MAX_NOTE_BYTES};
use quire_fs::{FsError, SkipReason, WalkEntry, WalkOptions, Workspace};

/// The longest query, in characters.
pub const MAX_QUERY_CHARS: usize = 1_000;

/// The most context lines on each side of a match.
pub const MAX_CONTEXT_LINES: usize = 10;

/// The most matches one answer holds.
pub const MAX_SEARCH_LIMIT: usize = 1_000;

/// The longest line (a match or a context line) an answer shows, in
/// characters; a longer one is cut, with `…` where text was left out.
pub const MAX_LINE_CHARS: usize = 500;

/// How many skipped notes an answer names (all are counted).
pub(crate) const MAX_SKIPPED_SHOWN: usize = 20;

/// How many characters before the first match a cut line keeps.
const LEAD_CHARS: usize = 100;

/// The largest compiled regex (bytes): a short pattern such as `a{1000}{1000}`
/// would otherwise take seconds and gigabytes to compile.
const REGEX_SIZE_LIMIT: usize = 10 * 1024 * 1024;

/// How many threads search.
const THREADS: usize = 2;

/// How letter case is compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CaseMode {
    /// Insensitive unless the query has an uppercase letter (as ripgrep's
    /// `--smart-case`).
    #[default]
    Smart,
    /// Exactly as written.
    Sensitive,
    /// Ignoring case.
    Insensitive,
}

/// What [`KilnTools::text_search`](crate::KilnTools::text_search) and
/// [`search_text`] look for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextSearchRequest {
    /// What to find on a line: literal text (1 to [`MAX_QUERY_CHARS`]
    /// characters, one line), or a regular expression (ripgrep's syntax)
    /// with `regex`.
    pub query: String,
    /// Whether `query` is a regular expression rather than literal text.
    pub regex: bool,
    /// How letter case is compared (by default [`CaseMode::Smart`]:
    /// insensitive unless the query has an uppercase letter).
    pub case: CaseMode,
    /// The folder to search, relative to the kiln root (the root when
    /// `None`), subfolders included.
    pub folder: Option<String>,
    /// Lines shown before and after each match (0 to [`MAX_CONTEXT_LINES`]).
    pub context_lines: usize,
    /// The most matches returned (1 to [`MAX_SEARCH_LIMIT`]).
    pub limit: usize,
    /// Where to resume: the `next_cursor` of an earlier answer to the same
    /// query (matches up to that one are left out); from the first note
    /// when `None`.
    pub cursor: Option<String>,
    /// About how many bytes of text (paths, lines and context lines, as
    /// JSON would spell them) the matches shown may take; once the next
    /// match would pass it, the answer stops with `truncated_reason:
    /// size` and a cursor. At least one match is always shown. No budget
    /// when `None`.
    pub answer_bytes: Option<usize>,
}

impl TextSearchRequest {
    /// The context lines on each side of a match when the caller names
    /// none.
    pub const DEFAULT_CONTEXT_LINES: usize = 1;

    /// The most matches returned when the caller names no limit.
    pub const DEFAULT_LIMIT: usize = 100;

    /// The text budget of an answer when the caller names no limit: about
    /// 12 KB of matched text, so that the whole answer stays within about
    /// 16 KB (4k tokens) of JSON.
    pub const DEFAULT_ANSWER_BYTES: usize = 12 * 1024;

    /// A request for `query` with the defaults: literal, smart case, the
    /// whole kiln, [`Self::DEFAULT_CONTEXT_LINES`] context line,
    /// [`Self::DEFAULT_LIMIT`] matches within
    /// [`Self::DEFAULT_ANSWER_BYTES`], from the first note.
    pub fn new(query: impl Into<String>) -> Self {
        TextSearchRequest {
            query: query.into(),
            regex: false,
            case: CaseMode::Smart,
            folder: None,
            context_lines: Self::DEFAULT_CONTEXT_LINES,
            limit: Self::DEFAULT_LIMIT,
            cursor: None,
            answer_bytes: Some(Self::DEFAULT_ANSWER_BYTES),
        }
    }
}

/// What `text_search` returns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextSearch {
    /// The matching lines, ordered by path then line number; at most `limit`.
    pub matches: Vec<SearchMatch>,
    /// How many lines matched in the notes searched, including those past
    /// `limit` and before the cursor (a line matching twice counts once).
    /// When the time ran out, only the notes searched by then are counted.
    pub total_matches: usize,
    /// How many notes have a matching line (counted as `total_matches`).
    pub notes_matched: usize,
    /// How many notes were searched to the end.
    pub files_searched: usize,
    /// How many notes were not searched (too large, unreadable, a FIFO
    /// named `.md`, a name that is not a note path).
    pub files_skipped: usize,
    /// The first skipped notes, and why.
    pub skipped: Vec<SkippedNote>,
    /// Whether there is more than `matches` shows.
    pub truncated: bool,
    /// Why, when `truncated`: `limit` (more lines matched than `limit`),
    /// `size` (the next match would pass `answer_bytes`) or `time` (the
    /// time budget ran out; the answer holds what was found by then).
    pub truncated_reason: Option<TruncatedReason>,
    /// Pass it as `cursor` to go on after the last match shown; `None`
    /// when nothing was left out (or nothing was shown).
    pub next_cursor: Option<String>,
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SearchMatch {
    /// The note's path (NFC, with `.md`).
    pub path: String,
    /// The line's number, from 1.
    pub line_number: u64,
    /// The line, without its line ending; cut around the match, with `…`,
    /// past [`MAX_LINE_CHARS`] characters.
    pub line: String,
    /// Up to `context_lines` lines right before it (never a matching line).
    pub before: Vec<String>,
    /// Up to `context_lines` lines right after it (never a matching line).
    pub after: Vec<String>,
}

/// A note that was not searched.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedNote {
    /// The note's path as found.
    pub path: String,
    /// Why it was not searched.
    pub reason: String,
}

/// Why a search's answer is not the whole of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TruncatedReason {
    /// More lines matched than `limit`.
    Limit,
    /// The next match would pass the answer's byte budget.
    Size,
    /// The time budget ran out.
    Time,
}

/// Why a search's arguments do not make one.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SearchError {
    /// The query is the empty string.
    #[error("`query` is empty; give the text to find (or a regular expression with `regex: true`)")]
    EmptyQuery,
    /// The query is over [`MAX_QUERY_CHARS`] characters.
    #[error(
        "`query` is {length} characters long, over the limit of {MAX_QUERY_CHARS}; search for a \
         shorter, distinctive part of the text"
    )]
    QueryTooLong {
        /// Its length in characters.
        length: usize,
    },
    /// The query holds a line break, and a match never spans lines.
    #[error(
        "`query` holds a line break, but a match never spans lines; search for one line of the \
         text at a time"
    )]
    MultiLineQuery,
    /// The regular expression does not compile.
    #[error(
        "`query` is not a valid regular expression: {problem}. Fix it, or pass `regex: false` to \
         search for the text as written"
    )]
    InvalidRegex {
        /// What the regex parser said, on one line.
        problem: String,
    },
    /// `context_lines` is over [`MAX_CONTEXT_LINES`].
    #[error("`context_lines` is {0}; give 0 to {MAX_CONTEXT_LINES}")]
    ContextLines(usize),
    /// `cursor` is not one a search returned.
    #[error(
        "`cursor` is not one a text search returned; pass the `next_cursor` of the previous \
         answer unchanged (with the same query), or leave it out to start from the first note"
    )]
    Cursor,
    /// `limit` is 0 or over [`MAX_SEARCH_LIMIT`].
    #[error(
        "`limit` is {0}; give 1 to {MAX_SEARCH_LIMIT}, and narrow the query or the folder for \
         fewer matches"
    )]
    Limit(usize),
}

/// Searches the notes beneath `folder` for `request`'s query, until
/// `deadline` at the latest (then the answer is what was found, with
/// `truncated_reason: time`).
///
/// ```
/// # let folder = tempfile::tempdir()?;
/// # std::fs::write(folder.path().join("Plan.md"), "# Plan\nship the parser\ntest it\n")?;
/// use std::time::{Duration, Instant};
/// use quire_fs::Workspace;
/// use quire_kiln::{FolderPath, TextSearchRequest, search_text};
///
/// let workspace = Workspace::new(folder.path())?;
/// let request = TextSearchRequest { context_lines: 1, ..TextSearchRequest::new("parser") };
/// let deadline = Instant::now() + Duration::from_secs(10);
/// let found = search_text(&workspace, &FolderPath::root(), &request, deadline).unwrap();
/// assert_eq!((found.total_matches, found.files_searched), (1, 1));
/// let first = &found.matches[0];
/// assert_eq!((first.path.as_str(), first.line_number), ("Plan.md", 2));
/// assert_eq!((first.before.as_slice(), first.after.as_slice()), (&["# Plan".to_owned()][..], &["test it".to_owned()][..]));
/// # Ok::<(), std::io::Error>(())
/// ```
pub fn search_text(
    workspace: &Workspace,
    folder: &FolderPath,
    request: &TextSearchRequest,
    deadline: Instant,
) -> Result<TextSearch, KilnError> {
    let matcher = matcher(request)?;
    if request.context_lines > MAX_CONTEXT_LINES {
        return Err(SearchError::ContextLines(request.context_lines).into());
    }
    if request.limit == 0 || request.limit > MAX_SEARCH_LIMIT {
        return Err(SearchError::Limit(request.limit).into());
    }
    let resume = request.cursor.as_deref().map(Resume::decode).transpose()?;
    let found = notes_beneath(workspace, folder, deadline)?;
    let outcomes = search_notes(
        workspace,
        &matcher,
        request,
        &found.notes,
        resume.as_ref(),
        deadline,
    );
    Ok(assemble(found, outcomes, request))
}

/// The version tag every search cursor starts with.
const CURSOR_TAG: &str = "s1.";

/// Longest cursor accepted: the tag, a path of at most 4,096 bytes in hex,
/// a dot and a line number.
const MAX_CURSOR_CHARS: usize = CURSOR_TAG.len() + 2 * super::MAX_PATH_BYTES + 21;

/// Where a search resumes: after this line of this note.
///
/// A cursor is `s1.`, the note's path in hex, `.`, and the line number:
/// opaque to the caller, checked when given back, and stateless on the
/// server. Notes created or deleted between two calls neither repeat nor
/// shift what follows.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Resume {
    path: String,
    line_number: u64,
}

impl Resume {
    fn encode(&self) -> String {
        format!(
            "{CURSOR_TAG}{}.{}",
            super::page::hex(self.path.as_bytes()),
            self.line_number
        )
    }

    fn decode(cursor: &str) -> Result<Resume, SearchError> {
        let decoded = || -> Option<Resume> {
            if cursor.len() > MAX_CURSOR_CHARS {
                return None;
            }
            let (path, line) = cursor.strip_prefix(CURSOR_TAG)?.split_once('.')?;
            let path = String::from_utf8(super::page::unhex(path)?).ok()?;
            let line_number = line.parse().ok()?;
            Some(Resume { path, line_number })
        };
        decoded().ok_or(SearchError::Cursor)
    }

    /// Whether a match at `line_number` of the note at `path` is at or
    /// before this point (so left out).
    fn covers(&self, path: &str, line_number: u64) -> bool {
        (path, line_number) <= (self.path.as_str(), self.line_number)
    }
}

impl SearchMatch {
    /// The cursor that resumes a search after this match.
    fn cursor(&self) -> String {
        Resume {
            path: self.path.clone(),
            line_number: self.line_number,
        }
        .encode()
    }
}

/// The matcher for `request`'s query, or why there is none.
fn matcher(request: &TextSearchRequest) -> Result<RegexMatcher, SearchError> {
    let query = request.query.as_str();
    if query.is_empty() {
        return Err(SearchError::EmptyQuery);
    }
    let length = query.chars().count();
    if length > MAX_QUERY_CHARS {
        return Err(SearchError::QueryTooLong { length });
    }
    if query.contains(['\n', '\r']) {
        return Err(SearchError::MultiLineQuery);
    }
    let mut builder = RegexMatcherBuilder::new();
    builder
        .fixed_strings(!request.regex)
        .case_smart(request.case == CaseMode::Smart)
        .case_insensitive(request.case == CaseMode::Insensitive)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        // Lines end at `\n` (a `\r` before it stays out of `$`'s way).
        .crlf(true);
    builder
        .build(query)
        .map_err(|error| SearchError::InvalidRegex {
            problem: shown(&error.to_string()),
        })
}

/// The notes to search, in path order, and what the walk left out.
#[derive(Debug, Default)]
struct Found {
    notes: Vec<Note>,
    skipped: Vec<SkippedNote>,
    skipped_count: usize,
    timed_out: bool,
}

impl Found {
    fn skip(&mut self, path: String, reason: String) {
        self.skipped_count += 1;
        if self.skipped.len() < MAX_SKIPPED_SHOWN {
            self.skipped.push(SkippedNote { path, reason });
        }
    }
}

/// A note to search.
#[derive(Debug)]
struct Note {
    path: NotePath,
    /// Its path as on disk (NFD names differ).
    on_disk: String,
    size: u64,
}

/// Every note beneath `folder`, found by the confined walk, sorted by path.
fn notes_beneath(
    workspace: &Workspace,
    folder: &FolderPath,
    deadline: Instant,
) -> Result<Found, KilnError> {
    let options = WalkOptions::new().extension("md");
    // A folder whose name is NFD on disk is not found by its NFC path:
    // walk the root then, and keep the notes inside the folder.
    let (walk, filter) = match workspace.walk(folder.as_str(), options.clone()) {
        Ok(walk) => (walk, false),
        Err(FsError::NotFound { .. }) if !folder.is_root() => (workspace.walk("", options)?, true),
        Err(error) => return Err(error.into()),
    };
    let mut found = Found::default();
    for entry in walk {
        if Instant::now() >= deadline {
            found.timed_out = true;
            break;
        }
        match entry {
            WalkEntry::File(file) => match NotePath::parse_relative(&file.path) {
                Ok(path) if filter && !folder.contains(&path) => {}
                Ok(path) => found.notes.push(Note {
                    path,
                    on_disk: file.path,
                    size: file.stat.size,
                }),
                Err(error) => found.skip(file.path, error.to_string()),
            },
            WalkEntry::Skipped { path, reason } => match reason {
                // Never searched, and not worth naming: a link out of the
                // root is not the kiln's, and the others hold nothing new.
                SkipReason::LinkOutside | SkipReason::LinkDangling | SkipReason::Repeated => {}
                reason => found.skip(path, reason.described().to_owned()),
            },
            WalkEntry::Error(error) => {
                let path = error.path().unwrap_or_default().to_owned();
                found.skip(path, error.to_string());
            }
            WalkEntry::LimitReached { .. } => {}
        }
    }
    if filter && found.notes.is_empty() {
        return Err(FsError::NotFound {
            path: folder.to_string(),
        }
        .into());
    }
    found
        .notes
        .sort_by(|a, b| (&a.path, &a.on_disk).cmp(&(&b.path, &b.on_disk)));
    // Two files whose names normalize to one path: the index keeps one, so
    // does the search.
    let mut kept: Vec<Note> = Vec::with_capacity(found.notes.len());
    let mut duplicates = Vec::new();
    for note in std::mem::take(&mut found.notes) {
        match kept.last() {
            Some(last) if last.path == note.path => {
                duplicates.push((note.on_disk, last.on_disk.clone()))
            }
            _ => kept.push(note),
        }
    }
    found.notes = kept;
    for (on_disk, first) in duplicates {
        let reason =
            format!("the same note as `{first}` once normalized (NFC); only that one is searched");
        found.skip(on_disk, reason);
    }
    Ok(found)
}

/// What searching one note gave.
#[derive(Debug)]
enum Outcome {
    /// Searched to the end: its first matches (as many as may be needed)
    /// and how many lines matched in all.
    Searched {
        matches: Vec<SearchMatch>,
        total: usize,
        /// How many of `total` lie past the cursor (all when there is none).
        resumed: usize,
    },
    /// Not searched, and why.
    Skipped(String),
}

/// Searches `notes` on [`THREADS`] threads; `None` for a note the deadline
/// left unsearched.
fn search_notes(
    workspace: &Workspace,
    matcher: &RegexMatcher,
    request: &TextSearchRequest,
    notes: &[Note],
    resume: Option<&Resume>,
    deadline: Instant,
) -> Vec<Option<Outcome>> {
    let shared = Shared {
        workspace,
        matcher,
        request,
        notes,
        resume,
        deadline,
        next: AtomicUsize::new(0),
        stored: AtomicUsize::new(0),
        timed_out: AtomicBool::new(false),
    };
    let outcomes: Mutex<Vec<Option<Outcome>>> =
        Mutex::new(std::iter::repeat_with(|| None).take(notes.len()).collect());
    let threads = THREADS.min(notes.len());
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(|| shared.work(&outcomes));
        }
        shared.work(&outcomes);
    });
    outcomes
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// What the searching threads share.
struct Shared<'a> {
    workspace: &'a Workspace,
    matcher: &'a RegexMatcher,
    request: &'a TextSearchRequest,
    notes: &'a [Note],
    /// Where the matches shown start (every note is counted all the same).
    resume: Option<&'a Resume>,
    deadline: Instant,
    /// The next note to search: notes are handed out in path order.
    next: AtomicUsize,
    /// How many matches the notes searched so far keep. Every note searched
    /// comes before the one handed out now, so once they keep `limit`, a
    /// later note's matches can only be counted, never shown.
    stored: AtomicUsize,
    timed_out: AtomicBool,
}

impl Shared<'_> {
    /// Searches notes until none is left or the deadline passes.
    fn work(&self, outcomes: &Mutex<Vec<Option<Outcome>>>) {
        let mut showing = SearcherBuilder::new()
            .line_terminator(LineTerminator::crlf())
            .line_number(true)
            .before_context(self.request.context_lines)
            .after_context(self.request.context_lines)
            .build();
        let mut counting = SearcherBuilder::new()
            .line_terminator(LineTerminator::crlf())
            .line_number(false)
            .build();
        loop {
            // Read before taking a note: every match stored by then is of
            // a note handed out earlier, so one searched later (by the
            // other thread) never takes this note's room.
            let stored = self.stored.load(Ordering::SeqCst);
            let index = self.next.fetch_add(1, Ordering::SeqCst);
            let Some(note) = self.notes.get(index) else {
                return;
            };
            if self.timed_out.load(Ordering::Relaxed) || Instant::now() >= self.deadline {
                self.timed_out.store(true, Ordering::Relaxed);
                return;
            }
            let path = note.path.as_str();
            let before_resume = self
                .resume
                .is_some_and(|resume| path < resume.path.as_str());
            let room = if before_resume {
                0
            } else {
                self.request.limit.saturating_sub(stored)
            };
            let searcher = if room == 0 {
                &mut counting
            } else {
                &mut showing
            };
            let outcome = self.search(searcher, note, room);
            if let Outcome::Searched { matches, .. } = &outcome {
                self.stored.fetch_add(matches.len(), Ordering::SeqCst);
            }
            if let Ok(mut outcomes) = outcomes.lock() {
                outcomes[index] = Some(outcome);
            }
        }
    }

    /// Searches one note, keeping its first `room` matches.
    fn search(&self, searcher: &mut Searcher, note: &Note, room: usize) -> Outcome {
        if note.size > MAX_NOTE_BYTES {
            return Outcome::Skipped(too_large());
        }
        let bytes = match self
            .workspace
            .locate(&note.on_disk)
            .and_then(|located| located.open())
            .and_then(|file| file.read(MAX_NOTE_BYTES))
        {
            Ok(bytes) => bytes,
            Err(FsError::TooLarge { .. }) => return Outcome::Skipped(too_large()),
            Err(error) => return Outcome::Skipped(error.to_string()),
        };
        let mut sink = NoteSink {
            matcher: self.matcher,
            path: note.path.as_str(),
            context_lines: self.request.context_lines,
            room,
            resume: self.resume,
            matches: Vec::new(),
            total: 0,
            resumed: 0,
            recent: VecDeque::new(),
            open_after: false,
        };
        match searcher.search_slice(self.matcher, &bytes, &mut sink) {
            Ok(()) => Outcome::Searched {
                matches: sink.matches,
                total: sink.total,
                resumed: sink.resumed,
            },
            Err(error) => Outcome::Skipped(format!("cannot be searched: {error}")),
        }
    }
}

fn too_large() -> String {
    format!(
        "larger than the limit of {} MiB for a note",
        MAX_NOTE_BYTES / (1024 * 1024)
    )
}

/// Collects one note's matches with their context.
///
/// The searcher reports each line once, as a match or as context, in order,
/// with a break between groups that are not contiguous. A context line
/// after a match is that match's `after`; the context lines right before a
/// match (whether reported as the previous match's `after` or as `before`)
/// are its `before`. A matching line is never anyone's context.
struct NoteSink<'a> {
    matcher: &'a RegexMatcher,
    path: &'a str,
    context_lines: usize,
    /// How many more matches to keep.
    room: usize,
    /// Matches at or before it are counted, never kept.
    resume: Option<&'a Resume>,
    matches: Vec<SearchMatch>,
    total: usize,
    /// How many of `total` lie past the cursor.
    resumed: usize,
    /// The last context lines since the last match or break, at most
    /// `context_lines`, with their numbers.
    recent: VecDeque<(u64, String)>,
    /// Whether the context lines now reported belong to the last kept
    /// match's `after`.
    open_after: bool,
}

impl NoteSink<'_> {
    /// Whether more matches are kept (so context lines are worth keeping).
    fn keeping(&self) -> bool {
        self.matches.len() < self.room
    }
}

impl Sink for NoteSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        self.total += 1;
        self.open_after = false;
        let line_number = found.line_number().unwrap_or(0);
        let resumed = self
            .resume
            .is_none_or(|resume| !resume.covers(self.path, line_number));
        self.resumed += usize::from(resumed);
        if !self.keeping() || !resumed {
            self.recent.clear();
            return Ok(true);
        }
        let line = without_ending(found.bytes());
        // Where the match starts, for a line long enough to be cut.
        let focus = if line.len() > MAX_LINE_CHARS {
            self.matcher
                .find(line)
                .ok()
                .flatten()
                .map_or(0, |at| at.start())
        } else {
            0
        };
        // The context lines since the last match or break lead up to this
        // line (the searcher reports a break at any gap); checked anyway.
        let mut before: Vec<String> = Vec::with_capacity(self.recent.len());
        let mut expected = line_number.saturating_sub(self.recent.len() as u64);
        for (number, text) in self.recent.drain(..) {
            if number != expected {
                before.clear();
            }
            before.push(text);
            expected = number + 1;
        }
        if expected != line_number {
            before.clear();
        }
        self.matches.push(SearchMatch {
            path: self.path.to_owned(),
            line_number,
            line: shown_line(line, focus),
            before,
            after: Vec::new(),
        });
        self.open_after = self.context_lines > 0;
        Ok(true)
    }

    fn context(&mut self, _: &Searcher, context: &SinkContext<'_>) -> Result<bool, Self::Error> {
        let after = *context.kind() == SinkContextKind::After && self.open_after;
        if !after && !self.keeping() {
            return Ok(true);
        }
        let text = shown_line(without_ending(context.bytes()), 0);
        if after && let Some(last) = self.matches.last_mut() {
            last.after.push(text.clone());
            if last.after.len() >= self.context_lines {
                self.open_after = false;
            }
        }
        if self.keeping() {
            if self.recent.len() == self.context_lines {
                self.recent.pop_front();
            }
            self.recent
                .push_back((context.line_number().unwrap_or(0), text));
        }
        Ok(true)
    }

    fn context_break(&mut self, _: &Searcher) -> Result<bool, Self::Error> {
        self.recent.clear();
        self.open_after = false;
        Ok(true)
    }
}

/// A line's bytes without its `\n` or `\r\n`.
fn without_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// A line as an answer shows it: invalid UTF-8 as `U+FFFD`, and past
/// [`MAX_LINE_CHARS`] characters cut to a window starting a little before
/// byte `focus` (the match), with `…` on each side where text was left out.
fn shown_line(line: &[u8], focus: usize) -> String {
    // Each character is at least one byte: a short line needs no cut.
    if line.len() <= MAX_LINE_CHARS {
        return String::from_utf8_lossy(line).into_owned();
    }
    // Back up from the match by up to LEAD_CHARS characters (a character
    // starts at any byte that is not a UTF-8 continuation byte).
    let mut start = focus.min(line.len());
    let mut backed = 0;
    while start > 0 && backed < LEAD_CHARS {
        start -= 1;
        if line[start] & 0xC0 != 0x80 {
            backed += 1;
        }
    }
    while start < line.len() && start > 0 && line[start] & 0xC0 == 0x80 {
        start += 1;
    }
    // At most 4 bytes a character: this window holds enough characters.
    let end = line.len().min(start + MAX_LINE_CHARS * 4);
    let window = String::from_utf8_lossy(&line[start..end]);
    let mut text = String::with_capacity(MAX_LINE_CHARS * 2);
    if start > 0 {
        text.push('…');
    }
    let mut taken = 0;
    let mut chars = window.chars();
    for character in chars.by_ref().take(MAX_LINE_CHARS) {
        text.push(character);
        taken += character.len_utf8();
    }
    if taken < window.len() || end < line.len() {
        text.push('…');
    }
    text
}

/// The answer from the walk's findings and each note's outcome.
fn assemble(
    found: Found,
    outcomes: Vec<Option<Outcome>>,
    request: &TextSearchRequest,
) -> TextSearch {
    let Found {
        notes,
        mut skipped,
        mut skipped_count,
        mut timed_out,
    } = found;
    let mut answer = TextSearch {
        matches: Vec::new(),
        total_matches: 0,
        notes_matched: 0,
        files_searched: 0,
        files_skipped: 0,
        skipped: Vec::new(),
        truncated: false,
        truncated_reason: None,
        next_cursor: None,
    };
    let mut budget = AnswerBudget {
        left: request.answer_bytes,
        exhausted: false,
    };
    // How many matches lie past the cursor: all of them could be shown.
    let mut showable = 0;
    for (note, outcome) in notes.iter().zip(outcomes) {
        match outcome {
            Some(Outcome::Searched {
                matches,
                total,
                resumed,
            }) => {
                answer.files_searched += 1;
                answer.total_matches += total;
                answer.notes_matched += usize::from(total > 0);
                showable += resumed;
                for (at, found) in matches.into_iter().enumerate() {
                    if answer.matches.len() == request.limit
                        || !budget.admits(&found, at == 0, answer.matches.is_empty())
                    {
                        break;
                    }
                    answer.matches.push(found);
                }
            }
            Some(Outcome::Skipped(reason)) => {
                skipped_count += 1;
                if skipped.len() < MAX_SKIPPED_SHOWN {
                    skipped.push(SkippedNote {
                        path: note.path.to_string(),
                        reason,
                    });
                }
            }
            None => timed_out = true,
        }
    }
    answer.files_skipped = skipped_count;
    answer.skipped = skipped;
    answer.truncated_reason = if timed_out {
        Some(TruncatedReason::Time)
    } else if answer.matches.len() == showable {
        None
    } else if budget.exhausted {
        Some(TruncatedReason::Size)
    } else {
        Some(TruncatedReason::Limit)
    };
    answer.truncated = answer.truncated_reason.is_some();
    if answer.truncated {
        answer.next_cursor = answer.matches.last().map(SearchMatch::cursor);
    }
    answer
}

/// What is left of an answer's text budget.
struct AnswerBudget {
    /// Bytes left; no budget when `None`.
    left: Option<usize>,
    /// Whether a match was turned away for want of room: no later one is
    /// shown then, so the matches shown stay a prefix a cursor resumes.
    exhausted: bool,
}

impl AnswerBudget {
    /// The JSON keys and punctuation around one match, and around one
    /// note's group of matches, in bytes (a little over, to be safe).
    const PER_MATCH: usize = 60;
    const PER_NOTE: usize = 40;

    /// Whether `found` fits (taking its room if so); `first_of_note` when
    /// it opens its note's group, `first` when nothing is shown yet (the
    /// first match always fits).
    fn admits(&mut self, found: &SearchMatch, first_of_note: bool, first: bool) -> bool {
        if self.exhausted {
            return false;
        }
        let Some(left) = self.left else {
            return true;
        };
        let mut cost = Self::PER_MATCH + json_len(&found.line);
        cost += found
            .before
            .iter()
            .chain(&found.after)
            .map(|line| json_len(line) + 3)
            .sum::<usize>();
        if first_of_note {
            cost += Self::PER_NOTE + json_len(&found.path);
        }
        if cost > left && !first {
            self.exhausted = true;
            return false;
        }
        self.left = Some(left.saturating_sub(cost));
        true
    }
}

/// How many bytes `text` takes as a JSON string's contents: a quote or a
/// backslash takes two, another control character up to six.
fn json_len(text: &str) -> usize {
    text.bytes()
        .map(|byte| match byte {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' => 2,
            0..=0x1f | 0x7f => 6,
            _ => 1,
        })
        .sum()
}

#[cfg(test)]
#[path = "search_tests.rs"]
mod tests;
