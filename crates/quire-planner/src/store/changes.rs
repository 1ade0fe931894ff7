//! The working copy's changes as a store reports them: which files changed
//! beneath the workspace root, how, and by how many lines, read from what
//! git (`git diff --raw --numstat -z`) and Jujutsu (a `jj log` template over
//! the change's diff, or `jj diff --summary`) print; the diff itself only
//! when asked for.

use super::StoreError;

/// How much of the working copy's changes a planner call reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ChangesDetail {
    /// The changed files with their line counts (the default): a few
    /// hundred bytes for a piece of work, whatever the size of its files.
    #[default]
    Files,
    /// The changed files and their diff in git's format, cut at
    /// [`MAX_DIFF_BYTES`](super::MAX_DIFF_BYTES).
    FilesAndDiff,
}

/// The working copy's changes beneath the workspace root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkingCopyChanges {
    /// Every changed file, in path order.
    pub files: Vec<ChangedFile>,
    /// Their diff in git's format, when [`ChangesDetail::FilesAndDiff`]
    /// asked for it: cut at [`MAX_DIFF_BYTES`](super::MAX_DIFF_BYTES) (and
    /// with git at [`MAX_NEW_FILE_DIFFS`](super::MAX_NEW_FILE_DIFFS) new
    /// files), with a last line saying what was left out.
    pub diff: Option<String>,
    /// Why the changes could not be read, when they could not: a plan file
    /// in a working copy whose program fails is still used, and says so
    /// here (`files` is then empty).
    pub unreadable: Option<StoreError>,
}

impl WorkingCopyChanges {
    /// The changes of `files`, sorted by path; `None` when there are none.
    pub(crate) fn of(mut files: Vec<ChangedFile>, diff: Option<String>) -> Option<Self> {
        if files.is_empty() {
            return None;
        }
        files.sort_by(|a, b| a.path.cmp(&b.path));
        Some(WorkingCopyChanges {
            files,
            diff,
            unreadable: None,
        })
    }

    /// Changes that could not be read, and why.
    pub(crate) fn unreadable(error: StoreError) -> Self {
        WorkingCopyChanges {
            files: Vec::new(),
            diff: None,
            unreadable: Some(error),
        }
    }
}

/// One changed file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChangedFile {
    /// Its path relative to the workspace root (its new path, when renamed
    /// or copied).
    pub path: String,
    /// How it changed.
    pub status: FileStatus,
    /// The path it was renamed or copied from, relative to the workspace
    /// root.
    pub previous_path: Option<String>,
    /// The lines added and removed.
    pub lines: LineCounts,
}

/// How a file changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FileStatus {
    /// A new file (with git, also an untracked one).
    Added,
    /// Its content (or its mode) changed.
    Modified,
    /// It is gone.
    Deleted,
    /// It moved from [`ChangedFile::previous_path`].
    Renamed,
    /// A copy of [`ChangedFile::previous_path`] (Jujutsu tracks copies).
    Copied,
}

/// The lines a change added to and removed from a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LineCounts {
    /// Counted as the diff counts them.
    Counted {
        /// Lines added.
        added: u64,
        /// Lines removed.
        removed: u64,
    },
    /// A binary file: it has no lines.
    Binary,
    /// Not counted: a new file past the first
    /// [`MAX_NEW_FILE_DIFFS`](super::MAX_NEW_FILE_DIFFS) with git (one
    /// command each), or a Jujutsu too old to count them.
    NotCounted,
}

/// The output of a command that did not read as expected.
fn unexpected(command: &str, what: &str) -> StoreError {
    StoreError::CommandFailed {
        command: command.to_owned(),
        detail: format!(
            "its output could not be read ({what}); please report this with your git or jj version"
        ),
    }
}

/// `git diff --raw --numstat -z`'s NUL-terminated fields as text (a file
/// name that is not UTF-8 shown with replacement characters).
fn fields(output: &[u8]) -> impl Iterator<Item = String> + '_ {
    let output = output.strip_suffix(b"\0").unwrap_or(output);
    output
        .split(|&byte| byte == 0)
        .filter(|_| !output.is_empty())
        .map(|field| String::from_utf8_lossy(field).into_owned())
}

/// The line counts of one `--numstat` record: `added\tremoved`, or `-\t-`
/// for a binary file.
fn numstat_counts(added: &str, removed: &str) -> Option<LineCounts> {
    if added == "-" && removed == "-" {
        return Some(LineCounts::Binary);
    }
    Some(LineCounts::Counted {
        added: added.parse().ok()?,
        removed: removed.parse().ok()?,
    })
}

/// The changed files of `git diff --raw --numstat -z` (`command` names it in
/// errors). Its raw records come first, `:modes hashes STATUS\0path\0` (two
/// paths for a rename or copy), then its numstat records,
/// `added\tremoved\tpath\0`, or for a rename or copy
/// `added\tremoved\t\0old\0new\0`.
pub(crate) fn git_listing(output: &[u8], command: &str) -> Result<Vec<ChangedFile>, StoreError> {
    let mut files: Vec<ChangedFile> = Vec::new();
    let mut fields = fields(output).peekable();
    let next_path = |fields: &mut dyn Iterator<Item = String>| {
        fields
            .next()
            .filter(|path| !path.is_empty())
            .ok_or_else(|| unexpected(command, "a record is cut short"))
    };
    // Raw records: the status of each file.
    while let Some(meta) = fields.next_if(|field| field.starts_with(':')) {
        let letter = meta
            .rsplit(' ')
            .next()
            .and_then(|status| status.chars().next())
            .ok_or_else(|| unexpected(command, "a raw record has no status"))?;
        let first = next_path(&mut fields)?;
        let (status, previous_path, path) = match letter {
            'A' => (FileStatus::Added, None, first),
            'D' => (FileStatus::Deleted, None, first),
            'R' => (FileStatus::Renamed, Some(first), next_path(&mut fields)?),
            'C' => (FileStatus::Copied, Some(first), next_path(&mut fields)?),
            // M, T (type change), U (unmerged), X: the file is there,
            // changed.
            _ => (FileStatus::Modified, None, first),
        };
        files.push(ChangedFile {
            path,
            status,
            previous_path,
            lines: LineCounts::NotCounted,
        });
    }
    // Numstat records: the lines of each, in the same order.
    let mut listed = files.iter_mut();
    while let Some(record) = fields.next() {
        let mut parts = record.splitn(3, '\t');
        let (Some(added), Some(removed), Some(path)) = (parts.next(), parts.next(), parts.next())
        else {
            return Err(unexpected(
                command,
                "a numstat record is not `added\\tremoved\\tpath`",
            ));
        };
        let path = if path.is_empty() {
            // A rename or copy: the old path, then the new one.
            next_path(&mut fields)?;
            next_path(&mut fields)?
        } else {
            path.to_owned()
        };
        let lines = numstat_counts(added, removed)
            .ok_or_else(|| unexpected(command, "a line count is not a number"))?;
        match listed.next() {
            Some(file) if file.path == path => file.lines = lines,
            _ => return Err(unexpected(command, "its numstat and raw records differ")),
        }
    }
    Ok(files)
}

/// The line counts of a new file, from `git diff --no-index --numstat -z
/// /dev/null PATH` (`added\tremoved\tPATH\0`, or nothing for an empty
/// file).
pub(crate) fn git_new_file_lines(output: &[u8], command: &str) -> Result<LineCounts, StoreError> {
    let record = fields(output).next().unwrap_or_default();
    if record.is_empty() {
        return Ok(LineCounts::Counted {
            added: 0,
            removed: 0,
        });
    }
    let mut parts = record.splitn(3, '\t');
    match (parts.next(), parts.next()) {
        (Some(added), Some(removed)) => numstat_counts(added, removed),
        _ => None,
    }
    .ok_or_else(|| unexpected(command, "a numstat record is not `added\\tremoved\\tpath`"))
}

/// The name [`JJ_LISTING_TEMPLATE`] is given as a template alias.
pub(crate) const JJ_LISTING_ALIAS: &str = "quire_changed_files";

/// The `jj log -T` template that lists the changed files of `@` beneath the
/// folder it runs in: `F\0status\0source\0path\0` for each file, then
/// `S\0added\0removed\0bytes_delta\0path\0` for each (NUL cannot be in a
/// path). A Jujutsu whose templates lack `DiffStatEntry` (the line counts;
/// 0.45 has it) refuses it, and [`jj_summary`] is read instead.
pub(crate) const JJ_LISTING_TEMPLATE: &str = r#"self.diff(".").files().map(|entry| "F\0" ++ entry.status() ++ "\0" ++ entry.source().path().display() ++ "\0" ++ entry.path().display() ++ "\0").join("") ++ self.diff(".").stat().files().map(|entry| "S\0" ++ entry.lines_added() ++ "\0" ++ entry.lines_removed() ++ "\0" ++ entry.bytes_delta() ++ "\0" ++ entry.path().display() ++ "\0").join("")"#;

/// The changed files of [`JJ_LISTING_TEMPLATE`]'s output (`command` names
/// it in errors).
pub(crate) fn jj_listing(output: &str, command: &str) -> Result<Vec<ChangedFile>, StoreError> {
    let mut files: Vec<ChangedFile> = Vec::new();
    // Every field ends with NUL, the last one too.
    let output = output.strip_suffix('\0').unwrap_or(output);
    let mut fields = output.split('\0').filter(|_| !output.is_empty());
    let field = |fields: &mut dyn Iterator<Item = &str>| {
        fields
            .next()
            .map(str::to_owned)
            .ok_or_else(|| unexpected(command, "a record is cut short"))
    };
    while let Some(kind) = fields.next() {
        match kind {
            "F" => {
                let status = field(&mut fields)?;
                let source = field(&mut fields)?;
                let path = field(&mut fields)?;
                let status = match status.as_str() {
                    "added" => FileStatus::Added,
                    "removed" => FileStatus::Deleted,
                    "renamed" => FileStatus::Renamed,
                    "copied" => FileStatus::Copied,
                    _ => FileStatus::Modified,
                };
                let moved = matches!(status, FileStatus::Renamed | FileStatus::Copied);
                files.push(ChangedFile {
                    path,
                    status,
                    previous_path: moved.then_some(source),
                    lines: LineCounts::NotCounted,
                });
            }
            "S" => {
                let added = field(&mut fields)?;
                let removed = field(&mut fields)?;
                let bytes_delta = field(&mut fields)?;
                let path = field(&mut fields)?;
                let number = |text: &str| {
                    text.parse::<i64>()
                        .map_err(|_| unexpected(command, "a line count is not a number"))
                };
                let (added, removed, bytes_delta) =
                    (number(&added)?, number(&removed)?, number(&bytes_delta)?);
                // jj counts no lines in a binary file, and says nothing
                // else of it here; a text file whose size changed has a
                // line added or removed, so no lines and a new size is a
                // binary file.
                let lines = if added == 0 && removed == 0 && bytes_delta != 0 {
                    LineCounts::Binary
                } else {
                    LineCounts::Counted {
                        added: added.unsigned_abs(),
                        removed: removed.unsigned_abs(),
                    }
                };
                if let Some(file) = files.iter_mut().find(|file| file.path == path) {
                    file.lines = lines;
                }
            }
            other => {
                return Err(unexpected(
                    command,
                    &format!("a record starts with `{other}`"),
                ));
            }
        }
    }
    Ok(files)
}

/// The changed files of `jj diff --summary`, without line counts: `M path`,
/// `A path`, `D path`, and for a rename or copy `R prefix{old => new}suffix`
/// (`C ...`), as jj prints them. For a Jujutsu too old for
/// [`JJ_LISTING_TEMPLATE`].
pub(crate) fn jj_summary(output: &str) -> Vec<ChangedFile> {
    output
        .lines()
        .filter_map(|line| {
            let (letter, path) = line.split_once(' ')?;
            let (status, moved) = match letter {
                "A" => (FileStatus::Added, false),
                "D" => (FileStatus::Deleted, false),
                "R" => (FileStatus::Renamed, true),
                "C" => (FileStatus::Copied, true),
                _ => (FileStatus::Modified, false),
            };
            let (previous_path, path) = match moved.then(|| renamed_paths(path)).flatten() {
                Some((old, new)) => (Some(old), new),
                None => (None, path.to_owned()),
            };
            Some(ChangedFile {
                path,
                status,
                previous_path,
                lines: LineCounts::NotCounted,
            })
        })
        .collect()
}

/// `prefix{old => new}suffix` as its old and new paths.
fn renamed_paths(shown: &str) -> Option<(String, String)> {
    let open = shown.find('{')?;
    let close = open + shown[open..].find('}')?;
    let (old, new) = shown[open + 1..close].split_once(" => ")?;
    let (prefix, suffix) = (&shown[..open], &shown[close + 1..]);
    // `{a => }/x`: a part that is empty leaves no doubled slash.
    let join = |middle: &str| {
        format!("{prefix}{middle}{suffix}")
            .replace("//", "/")
            .trim_start_matches('/')
            .to_owned()
    };
    Some((join(old), join(new)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counted(added: u64, removed: u64) -> LineCounts {
        LineCounts::Counted { added, removed }
    }

    fn file(
        path: &str,
        status: FileStatus,
        previous: Option<&str>,
        lines: LineCounts,
    ) -> ChangedFile {
        ChangedFile {
            path: path.to_owned(),
            status,
            previous_path: previous.map(str::to_owned),
            lines,
        }
    }

    #[test]
    fn the_git_listing_gives_each_file_its_status_and_lines() {
        // As git 2.47 prints `git diff --raw --numstat -z --find-renames HEAD`.
        let output = b":100644 100644 7898192 7898192 R100\0a\0a2\0\
                       :100644 100644 6178079 0000000 M\0b\0\
                       :000000 100644 0000000 d5d0b8b A\0bin\0\
                       :100644 000000 1191247 0000000 D\0sub/c\0\
                       0\t0\t\0a\0a2\0\
                       1\t0\tb\0\
                       -\t-\tbin\0\
                       0\t2\tsub/c\0";
        assert_eq!(
            git_listing(output, "git diff").unwrap(),
            [
                file("a2", FileStatus::Renamed, Some("a"), counted(0, 0)),
                file("b", FileStatus::Modified, None, counted(1, 0)),
                file("bin", FileStatus::Added, None, LineCounts::Binary),
                file("sub/c", FileStatus::Deleted, None, counted(0, 2)),
            ]
        );
        assert_eq!(git_listing(b"", "git diff").unwrap(), []);
        // A file name that is not UTF-8 is shown, not refused.
        let output = b":100644 100644 1 2 M\0caf\xe9\x001\t1\tcaf\xe9\0";
        assert_eq!(
            git_listing(output, "git diff").unwrap(),
            [file(
                "caf\u{fffd}",
                FileStatus::Modified,
                None,
                counted(1, 1)
            )]
        );
    }

    #[test]
    fn a_git_listing_that_does_not_read_says_so() {
        for output in [
            &b":100644 100644 1 2 M\0"[..],
            b":100644 100644 1 2 M\0b\0x\tb\0",
            b":100644 100644 1 2 M\0b\0one\ttwo\tb\0",
            b":100644 100644 1 2 M\0b\x001\t1\tc\0",
        ] {
            let error = git_listing(output, "git diff").unwrap_err().to_string();
            assert!(
                error.starts_with("`git diff` failed: its output could not be read"),
                "{error}"
            );
        }
    }

    #[test]
    fn a_new_file_is_counted_from_its_numstat() {
        assert_eq!(
            git_new_file_lines(b"3\t0\tnotes.txt\0", "git").unwrap(),
            counted(3, 0)
        );
        assert_eq!(
            git_new_file_lines(b"-\t-\tpicture.png\0", "git").unwrap(),
            LineCounts::Binary
        );
        assert_eq!(git_new_file_lines(b"", "git").unwrap(), counted(0, 0));
        assert!(git_new_file_lines(b"x\0", "git").is_err());
    }

    #[test]
    fn the_jj_listing_gives_each_file_its_status_and_lines() {
        // As jj 0.45 prints JJ_LISTING_TEMPLATE.
        let output = "F\0renamed\0a\0a2\0F\0added\0bin\0bin\0F\0modified\0c\0c\0\
                      F\0removed\0sub/s\0sub/s\0F\0added\0empty\0empty\0\
                      S\x000\x000\x000\0a2\0S\x000\x000\x003\0bin\0S\x001\x000\x005\0c\0\
                      S\x000\x001\0-2\0sub/s\0S\x000\x000\x000\0empty\0";
        assert_eq!(
            jj_listing(output, "jj log").unwrap(),
            [
                file("a2", FileStatus::Renamed, Some("a"), counted(0, 0)),
                file("bin", FileStatus::Added, None, LineCounts::Binary),
                file("c", FileStatus::Modified, None, counted(1, 0)),
                file("sub/s", FileStatus::Deleted, None, counted(0, 1)),
                file("empty", FileStatus::Added, None, counted(0, 0)),
            ]
        );
        assert!(jj_listing("F\0added\0x\0", "jj log").is_err());
        assert!(jj_listing("S\0x\x000\x000\0a\0", "jj log").is_err());
        assert!(jj_listing("Q\0", "jj log").is_err());
    }

    #[test]
    fn the_jj_template_fits_a_toml_literal_string() {
        assert!(!JJ_LISTING_TEMPLATE.contains(['\'', '\n']));
    }

    #[test]
    fn the_jj_summary_gives_each_file_its_status() {
        let output = "R {a => a2}\nA bin\nM c\nD sub/s\nR sub/{x => y}/f.rs\nC {src => lib}/m.rs\nR {a/b.txt => c.txt}\n";
        assert_eq!(
            jj_summary(output),
            [
                file("a2", FileStatus::Renamed, Some("a"), LineCounts::NotCounted),
                file("bin", FileStatus::Added, None, LineCounts::NotCounted),
                file("c", FileStatus::Modified, None, LineCounts::NotCounted),
                file("sub/s", FileStatus::Deleted, None, LineCounts::NotCounted),
                file(
                    "sub/y/f.rs",
                    FileStatus::Renamed,
                    Some("sub/x/f.rs"),
                    LineCounts::NotCounted
                ),
                file(
                    "lib/m.rs",
                    FileStatus::Copied,
                    Some("src/m.rs"),
                    LineCounts::NotCounted
                ),
                file(
                    "c.txt",
                    FileStatus::Renamed,
                    Some("a/b.txt"),
                    LineCounts::NotCounted
                ),
            ]
        );
        assert_eq!(
            renamed_paths("{ => sub}/f"),
            Some(("f".into(), "sub/f".into()))
        );
    }
}
