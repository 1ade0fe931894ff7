//! The checks that must pass before a tracker may say `Resume Written`: the
//! resume it links to exists, is not empty, has its LaTeX source beside it,
//! and that source has no template placeholders left.

use std::path::{Path, PathBuf};

use crate::fs::{FileKind, FsError, Located, Workspace};
use crate::tool_error::ToolError;

/// The largest `resume.tex` read, in bytes; a larger one fails the check.
pub const MAX_RESUME_SOURCE_BYTES: u64 = 4 * 1024 * 1024;

/// Template tokens a finished resume must not contain.
pub const PLACEHOLDER_TOKENS: [&str; 3] = ["PROJECT-AI-", "PROJECT-BE-", "WORK-BULLET-POINT-"];

/// The path inside a `resume_path` value: the target of a wiki-link
/// (`[[path]]`, `[[path|alias]]`, `[[path#heading]]`, `![[path]]`) or a plain
/// path. `None` when nothing usable is there.
///
/// ```
/// use quire::tracker::resume_link_target;
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
) -> Result<GuardrailReport, ToolError> {
    let target = resume_link_target(resume_path).ok_or_else(|| {
        ToolError::validation(format!(
            "the tracker's `resume_path` ({resume_path:?}) is not a path or a wiki-link; write it as `[[folder/resume/resume.pdf]]` or `folder/resume/resume.pdf`"
        ))
    })?;
    // An absolute path inside the workspace is shown relative to it.
    let relative = Path::new(target)
        .strip_prefix(workspace.root())
        .map(|relative| relative.to_string_lossy().into_owned());
    let target = relative.as_deref().unwrap_or(target);
    let (pdf, tex) = artifact_paths(target);
    let mut failures = Vec::new();
    match locate(workspace, &pdf)? {
        None => failures.push(format!("resume.pdf is missing ({pdf})")),
        Some(located) => match located.kind() {
            Some(FileKind::Regular) => match located.stat() {
                Ok(stat) if stat.size == 0 => {
                    failures.push(format!("resume.pdf ({pdf}) is empty (0 bytes)"))
                }
                Ok(_) => {}
                Err(error) => failures.push(format!("resume.pdf ({pdf}): {error}")),
            },
            kind => failures.push(format!(
                "resume.pdf ({pdf}) is {}, not a regular file",
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
        Some(Ok(source)) => failures.extend(placeholder_failures(&source, &tex)),
        None | Some(Err(FsError::NotFound { .. })) => failures.push(format!(
            "resume.tex is missing ({tex}); it must sit beside resume.pdf"
        )),
        Some(Err(FsError::NotAFile { kind, .. })) => failures.push(format!(
            "resume.tex ({tex}) is {}, not a regular file",
            kind.described()
        )),
        Some(Err(FsError::TooLarge { limit, .. })) => failures.push(format!(
            "resume.tex ({tex}) is larger than {} MiB, far beyond any resume's source; check that resume_path names the right folder",
            limit / (1024 * 1024)
        )),
        Some(Err(error)) => failures.push(format!("resume.tex ({tex}) cannot be read: {error}")),
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
fn locate(workspace: &Workspace, path: &str) -> Result<Option<Located>, ToolError> {
    match workspace.locate(path) {
        Ok(located) if located.exists() => Ok(Some(located)),
        Ok(_) | Err(FsError::NotFound { .. }) => Ok(None),
        Err(FsError::Outside { path, .. }) => Err(ToolError::validation(format!(
            "the tracker's `resume_path` points outside the workspace (`{path}`); link a resume inside it"
        ))),
        Err(error) => Err(ToolError::validation(format!(
            "the tracker's `resume_path` cannot be used: {error}"
        ))),
    }
}

/// The placeholder tokens still in the LaTeX source, each with the line of
/// its first occurrence, as one failure (none when the source is clean).
fn placeholder_failures(source: &[u8], tex: &str) -> Option<String> {
    let found: Vec<String> = PLACEHOLDER_TOKENS
        .iter()
        .filter_map(|token| {
            let at = memchr::memmem::find(source, token.as_bytes())?;
            let line = memchr::memchr_iter(b'\n', &source[..at]).count() + 1;
            Some(format!("`{token}` (line {line})"))
        })
        .collect();
    (!found.is_empty()).then(|| {
        format!(
            "resume.tex ({tex}) still contains template placeholders: {}; replace them with real content",
            found.join(", ")
        )
    })
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
            "resume.tex (r/resume.tex) still contains template placeholders: `PROJECT-AI-` (line 2), `WORK-BULLET-POINT-` (line 3); replace them with real content"
        );
        assert_eq!(placeholder_failures(b"PROJECT-A I-", "t"), None);
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
