//! Reading commits from git's history for `quire check --range`: one `git
//! log` over the whole range, its output parsed as it arrives.
//!
//! git is run the way the planner runs it
//! ([`quire_planner::store::stream_git`]: no hooks, no fsmonitor, no
//! pager, no signature checks), once per range rather than once per commit:
//! starting a process costs more than reading a commit. Each record is
//! `<full id> <short id>\n<message>` and records end with a NUL (`-z`);
//! git refuses NUL bytes in commit messages, so a NUL always ends a record.
//! Only one record is held at a time, so a history of any length is read in
//! constant memory.
//!
//! Messages are printed as git stores them (`%B`), re-encoded to UTF-8 by
//! git when the commit names another encoding (`--encoding=UTF-8`, so a
//! user's `i18n.logOutputEncoding` cannot change what is read); bytes that
//! are still not UTF-8 (a commit with no encoding header) are read as
//! U+FFFD and the commit says so ([`Commit::had_invalid_utf8`]).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use anyhow::bail;
use quire_planner::store::{CommandStream, StoreError, is_partial_clone, stream_git};

/// One commit of the range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Commit {
    /// The full object id (40 or 64 hex digits).
    pub id: String,
    /// The shortest unambiguous id git abbreviates it to.
    pub short_id: String,
    /// The message as git stores it.
    pub message: String,
    /// The message held bytes that are not UTF-8, read as U+FFFD.
    pub had_invalid_utf8: bool,
    /// The message was longer than [`MAX_RECORD_BYTES`]: only its start
    /// was kept.
    pub cut: bool,
}

/// The most of one commit record kept: far more than any preset allows a
/// message (100,000 characters), so a cut message is too long anyway, and
/// a history cannot make quire hold an arbitrarily large message.
const MAX_RECORD_BYTES: usize = 4 * 1024 * 1024;

impl Commit {
    /// The first line of the message (its header), without the line feed.
    pub(super) fn header(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }
}

/// The commits of a range, newest first (`git log`'s order), read as git
/// prints them.
pub(super) struct History {
    output: BufReader<CommandStream>,
    /// The range as given, for messages.
    range: String,
    /// Where git runs.
    folder: PathBuf,
    record: Vec<u8>,
}

impl History {
    /// Starts `git log` over `range` (`main..HEAD`, `v1.0.0..`, `HEAD`: any
    /// revision range git understands) in the repository `folder` is in.
    pub(super) fn open(folder: &Path, range: &str) -> anyhow::Result<History> {
        let args = [
            "log",
            "--no-color",
            "--encoding=UTF-8",
            "-z",
            "--format=%H %h%n%B",
            // A range that starts with `-` is still a revision, never an
            // option of git's.
            "--end-of-options",
            range,
            "--",
        ];
        let output = stream_git(folder, &args)
            .map_err(|error| in_words(error, range, || is_partial_clone(folder)))?;
        Ok(History {
            output: BufReader::with_capacity(64 * 1024, output),
            range: range.to_owned(),
            folder: folder.to_owned(),
            record: Vec::new(),
        })
    }

    /// The next commit, or `None` at the end of the range. git's failure (a
    /// bad range, no repository) shows as an error at the end, as git only
    /// says it when it exits.
    pub(super) fn next_commit(&mut self) -> anyhow::Result<Option<Commit>> {
        let cut = match self.read_record() {
            Ok(Some(cut)) => cut,
            Ok(None) => return Ok(None),
            Err(error) => bail!(
                "cannot read git's history of `{}`: {}",
                self.range,
                super::output::io_words(&error)
            ),
        };
        match parse_record(&self.record) {
            Some(commit) => Ok(Some(Commit { cut, ..commit })),
            None => bail!(
                "git printed a commit record quire cannot read ({} bytes, not `<id> <short id>` and a message)",
                self.record.len()
            ),
        }
    }

    /// Reads the next record (without its NUL) into `self.record`, keeping
    /// at most [`MAX_RECORD_BYTES`] and skipping the rest; `None` at the end
    /// of git's output, else whether the record was cut.
    fn read_record(&mut self) -> std::io::Result<Option<bool>> {
        self.record.clear();
        let mut started = false;
        let mut cut = false;
        loop {
            let available = match self.output.fill_buf() {
                Ok(available) => available,
                Err(error) if error.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(error) => return Err(error),
            };
            if available.is_empty() {
                return Ok(started.then_some(cut));
            }
            started = true;
            let (piece, ended) = match memchr::memchr(0, available) {
                Some(end) => (&available[..end], true),
                None => (available, false),
            };
            let room = MAX_RECORD_BYTES.saturating_sub(self.record.len());
            cut |= piece.len() > room;
            self.record
                .extend_from_slice(&piece[..piece.len().min(room)]);
            let used = piece.len() + usize::from(ended);
            self.output.consume(used);
            if ended {
                return Ok(Some(cut));
            }
        }
    }

    /// Waits for git to end and returns its failure, if any, in one line.
    pub(super) fn finish(self) -> anyhow::Result<()> {
        let (range, folder) = (self.range, self.folder);
        self.output
            .into_inner()
            .finish()
            .map_err(|error| in_words(error, &range, || is_partial_clone(&folder)))
    }
}

/// One record, `<full id> <short id>\n<message>`.
fn parse_record(record: &[u8]) -> Option<Commit> {
    let line_end = memchr::memchr(b'\n', record)?;
    let ids = std::str::from_utf8(&record[..line_end]).ok()?;
    let (id, short_id) = ids.split_once(' ')?;
    let is_hex = |text: &str| !text.is_empty() && text.bytes().all(|b| b.is_ascii_hexdigit());
    if !is_hex(id) || !is_hex(short_id) {
        return None;
    }
    let bytes = &record[line_end + 1..];
    let (message, had_invalid_utf8) = match std::str::from_utf8(bytes) {
        Ok(text) => (text.to_owned(), false),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), true),
    };
    Some(Commit {
        id: id.to_owned(),
        short_id: short_id.to_owned(),
        message,
        had_invalid_utf8,
        cut: false,
    })
}

/// git's failure in one line: its own message (`bad revision 'x..y'`, `not
/// a git repository ...`) without the `fatal:` prefix or the hint lines;
/// the `fatal:` or `error:` line when there is one, rather than a warning
/// before it. In a partial clone (`partial_clone`, asked only on a
/// failure) a missing object is the likely cause, and the message says so.
fn in_words(error: StoreError, range: &str, partial_clone: impl FnOnce() -> bool) -> anyhow::Error {
    match error {
        StoreError::CommandFailed { detail, .. } => {
            let lines: Vec<&str> = detail
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty() && !line.starts_with("hint:"))
                .collect();
            let said = lines
                .iter()
                .find_map(|line| {
                    line.strip_prefix("fatal: ")
                        .or_else(|| line.strip_prefix("error: "))
                })
                .or_else(|| lines.first().copied())
                .unwrap_or("it failed");
            if partial_clone() {
                return anyhow::anyhow!(
                    "cannot read the commits of `{range}`: git says: {said}; the repository is a partial clone \
                     that lacks objects of this range, and quire does not fetch them (a fetch runs programs the \
                     repository's configuration names); fetch them yourself (`git fetch`) and run the check again"
                );
            }
            anyhow::anyhow!("cannot read the commits of `{range}`: git says: {said}")
        }
        error => error.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_split_into_ids_and_message() {
        let commit = parse_record(b"0123abcd 0123a\nfeat: x\n\nBody.\n").unwrap();
        assert_eq!(commit.id, "0123abcd");
        assert_eq!(commit.short_id, "0123a");
        assert_eq!(commit.message, "feat: x\n\nBody.\n");
        assert_eq!(commit.header(), "feat: x");
        assert!(!commit.had_invalid_utf8);
    }

    #[test]
    fn an_empty_message_is_a_commit_with_an_empty_header() {
        let commit = parse_record(b"0123abcd 0123a\n").unwrap();
        assert_eq!((commit.message.as_str(), commit.header()), ("", ""));
    }

    #[test]
    fn bytes_that_are_not_utf8_are_replaced_and_noted() {
        let commit = parse_record(b"0123abcd 0123a\nfix: caf\xe9\n").unwrap();
        assert_eq!(commit.message, "fix: caf\u{FFFD}\n");
        assert!(commit.had_invalid_utf8);
    }

    #[test]
    fn records_that_are_not_commits_are_refused() {
        assert_eq!(parse_record(b""), None);
        assert_eq!(parse_record(b"feat: x\n"), None);
        assert_eq!(parse_record(b"0123 zz\nfeat: x\n"), None);
    }

    #[test]
    fn git_failures_read_as_one_line() {
        let error = StoreError::CommandFailed {
            command: "git log".into(),
            detail: "fatal: bad revision 'nosuch..HEAD'\nhint: something".into(),
        };
        assert_eq!(
            in_words(error.clone(), "nosuch..HEAD", || false).to_string(),
            "cannot read the commits of `nosuch..HEAD`: git says: bad revision 'nosuch..HEAD'"
        );
        let warned = StoreError::CommandFailed {
            command: "git log".into(),
            detail: "warning: some warning\nfatal: bad object HEAD".into(),
        };
        assert_eq!(
            in_words(warned, "HEAD", || false).to_string(),
            "cannot read the commits of `HEAD`: git says: bad object HEAD"
        );
        assert!(
            in_words(error, "nosuch..HEAD", || true)
                .to_string()
                .ends_with("fetch them yourself (`git fetch`) and run the check again"),
        );
    }
}
