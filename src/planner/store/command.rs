//! Running a version-control command in the workspace and turning its
//! failure into a message a model can act on.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::StoreError;

/// Runs `program args` in `root` (with `stdin` fed to it, if given) and
/// returns its stdout. A non-zero exit becomes `CommandFailed` with the
/// command's own error text, the workspace's absolute path replaced by `.`.
pub fn run(
    program: &'static str,
    args: &[&str],
    root: &Path,
    stdin: Option<&str>,
    install_hint: &'static str,
) -> Result<String, StoreError> {
    let shown = format!("{program} {}", args.join(" "));
    let mut child = Command::new(program)
        .args(args)
        .current_dir(root)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|error| match error.kind() {
            std::io::ErrorKind::NotFound => StoreError::ProgramMissing {
                program,
                hint: install_hint,
            },
            _ => StoreError::CommandFailed {
                command: shown.clone(),
                detail: error.kind().to_string(),
            },
        })?;
    if let (Some(text), Some(mut input)) = (stdin, child.stdin.take()) {
        input
            .write_all(text.as_bytes())
            .map_err(|error| StoreError::CommandFailed {
                command: shown.clone(),
                detail: format!("could not write its input: {}", error.kind()),
            })?;
    }
    let output = child
        .wait_with_output()
        .map_err(|error| StoreError::CommandFailed {
            command: shown.clone(),
            detail: error.kind().to_string(),
        })?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(StoreError::CommandFailed {
            command: shown,
            detail: sanitize(&stderr, root),
        });
    }
    String::from_utf8(output.stdout).map_err(|_| StoreError::CommandFailed {
        command: shown,
        detail: "its output is not UTF-8 text".to_owned(),
    })
}

/// A command's error text, trimmed and shortened, without the workspace's
/// absolute path.
fn sanitize(stderr: &str, root: &Path) -> String {
    let mut text = stderr.trim().to_owned();
    for root in [root.to_path_buf(), root.canonicalize().unwrap_or_default()] {
        let root = root.to_string_lossy();
        if !root.is_empty() && root != "/" {
            text = text.replace(root.as_ref(), ".");
        }
    }
    if text.is_empty() {
        return "it exited with an error and printed nothing".to_owned();
    }
    const LIMIT: usize = 600;
    match text.char_indices().nth(LIMIT) {
        Some((cut, _)) => format!("{} ...", &text[..cut]),
        None => text,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_lose_the_workspace_path() {
        let root = Path::new("/home/someone/project");
        assert_eq!(
            sanitize("Error: /home/someone/project/.jj is broken\n", root),
            "Error: ./.jj is broken"
        );
        assert_eq!(
            sanitize("  ", root),
            "it exited with an error and printed nothing"
        );
    }

    #[test]
    fn a_missing_program_says_how_to_install_it() {
        let error = run(
            "quire-no-such-program",
            &[],
            Path::new("."),
            None,
            "install it",
        )
        .unwrap_err();
        assert_eq!(
            error.to_string(),
            "`quire-no-such-program` is not installed or not on PATH; install it"
        );
    }
}
