//! `quire fmt`: canonical form, printed, checked or written in place.

use anyhow::bail;
use quire_grammar::plan::{format, parse};

use super::{Outcome, SourceArgs, input, output, render};

pub(super) fn run(args: &SourceArgs, check: bool, write: bool) -> anyhow::Result<Outcome> {
    if write
        && args
            .file
            .as_ref()
            .is_none_or(|file| file.as_os_str() == "-")
    {
        bail!("--write needs a FILE to rewrite; to format standard input, leave out --write");
    }
    let source = input::read(args.file.as_deref(), &args.limit()?)?;
    let config = args.config()?;
    let outcome = parse(&source.text, &config);
    if !outcome.is_parsed() {
        render::report(&source.name, &source.text, &outcome.diagnostics);
        output::stderr(&format!(
            "{}: not formatted: fix the error above first",
            source.name
        ));
        return Ok(Outcome::Findings);
    }
    let dropped: Vec<_> = outcome
        .diagnostics
        .iter()
        .filter(|d| d.code.drops_text())
        .cloned()
        .collect();
    if !dropped.is_empty() {
        render::report(&source.name, &source.text, &dropped);
        output::stderr(&format!(
            "{}: not formatted: formatting would drop the ignored text above; fix or remove it first",
            source.name
        ));
        return Ok(Outcome::Findings);
    }
    let formatted = format(&outcome.document, &config);
    if check {
        if formatted == *source.text {
            return Ok(Outcome::Success);
        }
        output::stderr(&format!(
            "{}: not formatted (run `quire fmt --write {}`)",
            source.name, source.name
        ));
        return Ok(Outcome::Findings);
    }
    match &source.file {
        Some(file) if write => {
            if formatted != *source.text {
                file.replace(formatted.as_bytes())?;
            }
        }
        _ => output::document(&formatted)?,
    }
    Ok(Outcome::Success)
}
