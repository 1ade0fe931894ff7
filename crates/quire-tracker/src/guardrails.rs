//! The checks that must pass before a tracker may say `Resume Written`: the
//! resume it links to exists, is not empty, has its LaTeX source beside it,
//! and that source has no template placeholders left.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use quire_fs::{FileKind, FsError, Located, Workspace};
use quire_grammar::diagnostics::one_line;

use super::error::TrackerError;

/// The largest `resume.tex` read, in bytes; a larger one fails the check.
pub(crate) const MAX_RESUME_SOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// Template tokens a finished resume must not contain (case-sensitive): the
/// three the requirements name, and any `BULLET-POINT`, which the original
/// project's own template writes as `PROJECT-BULLET-POINT-1` and its
/// scanner flags.
pub const PLACEHOLDER_TOKENS: [&str; 4] = [
    "PROJECT-AI-",
    "PROJECT-BE-",
    "WORK-BULLET-POINT-",
    "BULLET-POINT",
];

/// The most placeholders a failure names one by one (the rest are counted).
const MAX_NAMED_PLACEHOLDERS: usize = 10;

/// The longest placeholder a failure shows, in bytes (longer ones are cut).
const MAX_PLACEHOLDER_BYTES: usize = 60;

/// The longest `resume_path` value a message repeats, in characters.
const MAX_SHOWN_VALUE_CHARS: usize = 120;

/// The path inside a `resume_path` value: the target of a wiki-link
/// (`[[path]]`, `[[path|alias]]`, `[[path#heading]]`, `![[path]]`) or a plain
/// path. `None` when nothing usable is there.
///
/// ```
/// use quire_tracker::resume_link_target;
///
/// assert_eq!(resume_link_target("[[apps/acme/resume/resume.pdf|CV]]"), Some("apps/acme/resume/resume.pdf"));
/// assert_eq!(resume_link_target("apps/acme/resume/resume.pdf"), Some("apps/acme/resume/resume.pdf"));
/// assert_eq!(resume_link_target("[[ ]]"), None);
/// ```
pub fn resume_link_target(value: &str) -> Option<&str> {
    let value = value.trim();
    let target = match value.strip_prefix('!').unwrap_or(value).strip_prefix("[[") {
        Some(inner) => {
            let inner = inner.strip_suffix("]]")?;
            let inner = inner.split(['|', '#']).next().unwrap_or_default();
            inner.trim()
        }
        None => value,
    };
    let unparsable = target.is_empty()
        || target.contains("[[")
        || target.contains("]]")
        || target.contains('\n');
    (!unparsable).then_some(target)
}

/// The outcome of the guardrail checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GuardrailReport {
    /// One sentence per failed check, naming the file (workspace-relative).
    pub failures: Vec<String>,
}

impl GuardrailReport {
    /// Whether every check passed.
    pub fn passed(&self) -> bool {
        self.failures.is_empty()
    }
}

/// Runs every `Resume Written` check for the resume that `resume_path` names.
///
/// A `resume_path` naming a `.pdf` file checks that file and `resume.tex`
/// beside it; one naming a folder checks `resume.pdf` and `resume.tex` in it.
/// A path that leaves the workspace is a request error, not a failed check.
pub fn check_resume_written(
    workspace: &Workspace,
    resume_path: &str,
) -> Result<GuardrailReport, TrackerError> {
    let target = resume_link_target(resume_path).ok_or_else(|| {
        TrackerError::Invalid(format!(
            "the tracker's `resume_path` (`{}`) is not a path or a wiki-link; write it as `[[folder/resume/resume.pdf]]` or `folder/resume/resume.pdf`",
            shown_value(workspace, resume_path)
        ))
    })?;
    // A Windows path (a note written on Windows) is never inside the
    // workspace; shown like any absolute path outside it.
    if is_windows_absolute(target) {
        return Err(TrackerError::Invalid(format!(
            "the tracker's `resume_path` points outside the workspace (`{}`); link a resume inside it",
            one_line(&shown_absolute(workspace, target))
        )));
    }
    // An absolute path inside the workspace is shown relative to it.
    let relative = Path::new(target)
        .strip_prefix(workspace.root())
        .map(|relative| relative.to_string_lossy().into_owned());
    let target = relative.as_deref().unwrap_or(target);
    let (pdf, tex) = artifact_paths(target);
    // As messages show them: control characters escaped.
    let (pdf_shown, tex_shown) = (one_line(&pdf), one_line(&tex));
    let mut failures = Vec::new();
    match locate(workspace, &pdf)? {
        None => failures.push(format!("resume.pdf is missing ({pdf_shown})")),
        Some(located) => match located.kind() {
            Some(FileKind::Regular) => match located.stat() {
                Ok(stat) if stat.size == 0 => {
                    failures.push(format!("resume.pdf ({pdf_shown}) is empty (0 bytes)"))
                }
                Ok(_) => {}
                Err(error) => failures.push(format!(
                    "resume.pdf ({pdf_shown}): {}",
                    one_line(&error.to_string())
                )),
            },
            kind => failures.push(format!(
                "resume.pdf ({pdf_shown}) is {}, not a regular file",
                kind.unwrap_or(FileKind::Unknown).described()
            )),
        },
    }
    let source = locate(workspace, &tex)?.map(|located| {
        located
            .open()
            .and_then(|file| file.read(MAX_RESUME_SOURCE_BYTES))
    });
    match source {
        Some(Ok(source)) => failures.extend(placeholder_failures(&source, &tex_shown)),
        None | Some(Err(FsError::NotFound { .. })) => failures.push(format!(
            "resume.tex is missing ({tex_shown}); it must sit beside resume.pdf"
        )),
        Some(Err(FsError::NotAFile { kind, .. })) => failures.push(format!(
            "resume.tex ({tex_shown}) is {}, not a regular file",
            kind.described()
        )),
        Some(Err(FsError::TooLarge { limit, .. })) => failures.push(format!(
            "resume.tex ({tex_shown}) is larger than {} MiB, far beyond any resume's source; check that resume_path names the right folder",
            limit / (1024 * 1024)
        )),
        Some(Err(error)) => failures.push(format!(
            "resume.tex ({tex_shown}) cannot be read: {}",
            one_line(&error.to_string())
        )),
    }
    Ok(GuardrailReport { failures })
}

/// The workspace-relative paths of the PDF and its LaTeX source.
fn artifact_paths(target: &str) -> (String, String) {
    let target = target.trim_end_matches('/');
    let is_pdf = Path::new(target)
        .extension()
        .is_some_and(|extension| extension.eq_ignore_ascii_case("pdf"));
    let folder = if is_pdf {
        Path::new(target)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    } else {
        PathBuf::from(target)
    };
    let pdf = if is_pdf {
        PathBuf::from(target)
    } else {
        folder.join("resume.pdf")
    };
    let tex = folder.join("resume.tex");
    (slash_path(&pdf), slash_path(&tex))
}

fn slash_path(path: &Path) -> String {
    path.to_string_lossy().replace('\\', "/")
}

/// The entry at `path` inside the workspace, `None` when it does not exist.
fn locate(workspace: &Workspace, path: &str) -> Result<Option<Located>, TrackerError> {
    match workspace.locate(path) {
        Ok(located) if located.exists() => Ok(Some(located)),
        Ok(_) | Err(FsError::NotFound { .. }) => Ok(None),
        Err(FsError::Outside { path, .. }) => Err(TrackerError::Invalid(format!(
            "the tracker's `resume_path` points outside the workspace (`{}`); link a resume inside it",
            one_line(&path)
        ))),
        Err(error) => Err(TrackerError::Invalid(format!(
            "the tracker's `resume_path` cannot be used: {}",
            one_line(&error.to_string())
        ))),
    }
}

/// The placeholders still in the LaTeX source, as one failure (none when
/// the source is clean): each distinct placeholder as written (the token
/// with the letters, digits, `-` and `_` around it: `PROJECT-BULLET-POINT-1`)
/// and the 1-based line of its first occurrence, in the order they appear.
fn placeholder_failures(source: &[u8], tex: &str) -> Option<String> {
    let mut found: Vec<(usize, usize)> = PLACEHOLDER_TOKENS
        .iter()
        .flat_map(|token| {
            memchr::memmem::find_iter(source, token.as_bytes())
                .map(|at| placeholder_around(source, at, at + token.len()))
        })
        .collect();
    if found.is_empty() {
        return None;
    }
    // `WORK-BULLET-POINT-1` holds two tokens: one placeholder.
    found.sort_unstable();
    found.dedup();
    let total_occurrences = found.len();
    let mut seen = HashSet::new();
    let mut named = Vec::new();
    let (mut line, mut counted_to) = (1, 0);
    for &(start, end) in &found {
        let word = &source[start..end];
        if !seen.insert(word) {
            continue;
        }
        line += memchr::memchr_iter(b'\n', &source[counted_to..start]).count();
        counted_to = start;
        named.push((word, line));
    }
    let distinct = named.len();
    let mut listed: Vec<String> = named
        .iter()
        .take(MAX_NAMED_PLACEHOLDERS)
        .map(|(word, line)| {
            let shown = String::from_utf8_lossy(&word[..word.len().min(MAX_PLACEHOLDER_BYTES)]);
            let cut = if word.len() > MAX_PLACEHOLDER_BYTES {
                "…"
            } else {
                ""
            };
            format!("`{shown}{cut}` (line {line})")
        })
        .collect();
    if distinct > MAX_NAMED_PLACEHOLDERS {
        listed.push(format!("and {} more", distinct - MAX_NAMED_PLACEHOLDERS));
    }
    let repeated = if total_occurrences > distinct {
        format!(" ({total_occurrences} occurrences in all)")
    } else {
        String::new()
    };
    Some(format!(
        "resume.tex ({tex}) still contains template placeholders: {}{repeated}; replace them with real content",
        listed.join(", ")
    ))
}

/// The placeholder that the token at `start..end` is part of: widened over
/// the ASCII letters, digits, `-` and `_` on both sides, by at most
/// [`MAX_PLACEHOLDER_BYTES`] each way (a source of one endless word full of
/// tokens stays linear).
fn placeholder_around(source: &[u8], start: usize, end: usize) -> (usize, usize) {
    let is_part = |byte: &u8| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_');
    let before = source[..start]
        .iter()
        .rev()
        .take(MAX_PLACEHOLDER_BYTES)
        .take_while(|b| is_part(b))
        .count();
    let after = source[end..]
        .iter()
        .take(MAX_PLACEHOLDER_BYTES)
        .take_while(|b| is_part(b))
        .count();
    (start - before, end + after)
}

/// A `resume_path` value as a message repeats it: absolute paths in it
/// shortened as the workspace shows paths (relative to the root inside it,
/// `.../name` outside), control characters escaped, and cut after
/// [`MAX_SHOWN_VALUE_CHARS`] characters.
fn shown_value(workspace: &Workspace, value: &str) -> String {
    // The parts of a link (`![[path#heading|alias]]`) are split at the
    // link's own characters; a part that is an absolute path is shortened.
    const SEPARATORS: [char; 5] = ['[', ']', '|', '#', '\n'];
    let mut shown = String::with_capacity(value.len());
    let mut rest = value;
    loop {
        let (part, after) = rest.split_at(rest.find(SEPARATORS).unwrap_or(rest.len()));
        let path = part.trim();
        if Path::new(path).is_absolute() || is_windows_absolute(path) {
            let leading = part.len() - part.trim_start().len();
            shown.push_str(&part[..leading]);
            shown.push_str(&shown_absolute(workspace, path));
            shown.push_str(&part[leading + path.len()..]);
        } else {
            shown.push_str(part);
        }
        let mut separator = after.chars();
        match separator.next() {
            Some(character) => {
                shown.push(character);
                rest = separator.as_str();
            }
            None => break,
        }
    }
    let escaped = one_line(&shown);
    match escaped.char_indices().nth(MAX_SHOWN_VALUE_CHARS) {
        Some((cut, _)) => format!("{}…", &escaped[..cut]),
        None => escaped.into_owned(),
    }
}

/// An absolute path as the workspace shows it: relative to the root inside
/// it, `.../name` outside (a Windows path is always outside).
fn shown_absolute(workspace: &Workspace, path: &str) -> String {
    if !is_windows_absolute(path) {
        return workspace.shown(path);
    }
    match path
        .rsplit(['\\', '/'])
        .next()
        .filter(|name| !name.is_empty())
    {
        Some(name) => format!(".../{name}"),
        None => "(an absolute path)".to_owned(),
    }
}

/// `C:\Users\...` or `C:/Users/...`: absolute on Windows, where tracker
/// notes may have been written.
fn is_windows_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wiki_links_and_plain_paths() {
        assert_eq!(
            resume_link_target("  [[a/b/resume.pdf]] "),
            Some("a/b/resume.pdf")
        );
        assert_eq!(
            resume_link_target("[[a/b/resume.pdf#Page 2|My CV]]"),
            Some("a/b/resume.pdf")
        );
        assert_eq!(
            resume_link_target("![[a/resume.pdf]]"),
            Some("a/resume.pdf")
        );
        assert_eq!(resume_link_target("[[a/resume.pdf"), None);
        assert_eq!(resume_link_target(""), None);
        assert_eq!(resume_link_target("[[]]"), None);
    }

    #[test]
    fn placeholders_are_reported_with_their_first_line() {
        let failure = placeholder_failures(
            b"a\nb PROJECT-AI-1\nWORK-BULLET-POINT-2 PROJECT-AI-3\n",
            "r/resume.tex",
        )
        .unwrap();
        assert_eq!(
            failure,
            "resume.tex (r/resume.tex) still contains template placeholders: `PROJECT-AI-1` (line 2), `WORK-BULLET-POINT-2` (line 3), `PROJECT-AI-3` (line 3); replace them with real content"
        );
        assert_eq!(placeholder_failures(b"PROJECT-A I-", "t"), None);
        assert_eq!(
            placeholder_failures(b"bullet-point BULLET POINT", "t"),
            None
        );
    }

    #[test]
    fn any_bullet_point_is_a_placeholder() {
        // The original project's template, and its scanner's rule.
        let tex = b"\\section{Projects}\n\\begin{itemize}\n  \\item PROJECT-BULLET-POINT-1\n  \\item{EDU_BULLET-POINT}\n\\end{itemize}\n";
        let failure = placeholder_failures(tex, "cv/resume.tex").unwrap();
        assert_eq!(
            failure,
            "resume.tex (cv/resume.tex) still contains template placeholders: `PROJECT-BULLET-POINT-1` (line 3), `EDU_BULLET-POINT` (line 4); replace them with real content"
        );
    }

    #[test]
    fn repeated_and_many_placeholders_are_counted() {
        let tex = b"WORK-BULLET-POINT-1\nWORK-BULLET-POINT-1\nWORK-BULLET-POINT-1";
        assert_eq!(
            placeholder_failures(tex, "t").unwrap(),
            "resume.tex (t) still contains template placeholders: `WORK-BULLET-POINT-1` (line 1) (3 occurrences in all); replace them with real content"
        );
        let many: String = (1..=12).map(|n| format!("PROJECT-BE-{n}\n")).collect();
        let failure = placeholder_failures(many.as_bytes(), "t").unwrap();
        assert!(
            failure.contains("`PROJECT-BE-10` (line 10), and 2 more;"),
            "{failure}"
        );
        assert!(!failure.contains("PROJECT-BE-11"), "{failure}");
        // A placeholder is widened by 60 bytes at most, and shown cut there.
        let long = format!("x{}BULLET-POINT", "A".repeat(200));
        let failure = placeholder_failures(long.as_bytes(), "t").unwrap();
        assert!(
            failure.contains(&format!("`{}…` (line 1)", "A".repeat(60))),
            "{failure}"
        );
        // One endless word of tokens (3.6 MB) is scanned in linear time.
        let endless = "BULLET-POINT".repeat(300_000);
        let failure = placeholder_failures(endless.as_bytes(), "t").unwrap();
        assert!(failure.contains("occurrences in all"), "{failure}");
    }

    #[test]
    fn unparsable_values_are_shown_without_absolute_paths() {
        let folder = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(folder.path()).unwrap();
        let root = workspace.root().to_string_lossy().into_owned();
        for (value, shown) in [
            (
                "[[/home/user/private/resume.pdf".to_owned(),
                "[[.../resume.pdf",
            ),
            (
                "[[/home/user/a b/resume.pdf|CV".to_owned(),
                "[[.../resume.pdf|CV",
            ),
            (
                "![[ /srv/x/cv.pdf#p1 ]]]]".to_owned(),
                "![[ .../cv.pdf#p1 ]]]]",
            ),
            (
                "[[C:\\Users\\ann\\resume.pdf".to_owned(),
                "[[.../resume.pdf",
            ),
            (format!("[[{root}/apps/resume.pdf"), "[[apps/resume.pdf"),
            ("[[a\nb]]".to_owned(), "[[a\\nb]]"),
            ("[[relative/resume.pdf".to_owned(), "[[relative/resume.pdf"),
        ] {
            assert_eq!(shown_value(&workspace, &value), shown, "{value:?}");
        }
        let long = "x".repeat(500);
        assert_eq!(
            shown_value(&workspace, &long).chars().count(),
            MAX_SHOWN_VALUE_CHARS + 1
        );
    }

    #[test]
    fn artifact_paths_follow_the_pdf_or_the_folder() {
        assert_eq!(
            artifact_paths("apps/x/resume/resume.pdf"),
            (
                "apps/x/resume/resume.pdf".into(),
                "apps/x/resume/resume.tex".into()
            )
        );
        assert_eq!(
            artifact_paths("apps/x/resume/"),
            (
                "apps/x/resume/resume.pdf".into(),
                "apps/x/resume/resume.tex".into()
            )
        );
    }
}
