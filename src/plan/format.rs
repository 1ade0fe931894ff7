//! Writing a plan document back as text.
//!
//! The formatter prints what the document holds, in the syntax of the given
//! configuration, with one blank line between sections and `indent_size`
//! spaces per task level. It never changes the words: no case changes, no
//! trimming, no reordering.

use std::fmt::Write;

use super::ast::{Constraint, Header, PlanDocument, Task};
use super::config::{ConstraintSyntax, HeaderSyntax, ParserConfig, TaskSyntax};

/// Formats `document` as text ending in one newline (an empty document gives
/// an empty string).
///
/// `parse(&format(doc, config), config)` gives back `doc` for every document
/// the grammar can express: a title needs a scope in the commit-message
/// syntax, the description is one paragraph whose lines do not start a
/// section, and a direction follows constraints or tasks.
///
/// ```
/// use quire_grammar::plan::{format, parse, ParserConfig};
///
/// let config = ParserConfig::default();
/// let text = "fix(io): Retry\n\nFlaky disks.\n- Never: retry forever\n- [ ]: Add a retry\n    - [x]: Measure\n";
/// let formatted = format(&parse(text, &config).document, &config);
/// assert_eq!(formatted, "fix(io): Retry\n\nFlaky disks.\n\n- Never: retry forever\n\n- [ ]: Add a retry\n  - [x]: Measure\n");
/// assert_eq!(format(&parse(&formatted, &config).document, &config), formatted);
/// ```
pub fn format(document: &PlanDocument, config: &ParserConfig) -> String {
    let mut sections: Vec<String> = Vec::with_capacity(5);
    if let Some(header) = &document.header {
        sections.push(format_header(header, config.header));
    }
    if let Some(description) = document.description() {
        sections.push(description.to_owned());
    }
    if let Some(constraints) = document.constraints.as_deref().filter(|c| !c.is_empty()) {
        let lines: Vec<String> = constraints
            .iter()
            .map(|c| format_constraint(c, config.constraint))
            .collect();
        sections.push(lines.join("\n"));
    }
    if let Some(tasks) = document.tasks.as_deref().filter(|t| !t.is_empty()) {
        let mut block = String::new();
        write_tasks(&mut block, tasks, 0, config);
        block.pop(); // the last task's newline; sections are joined below
        sections.push(block);
    }
    if let Some(direction) = document.direction() {
        sections.push(direction.to_owned());
    }
    if sections.is_empty() {
        return String::new();
    }
    let mut text = sections.join("\n\n");
    text.push('\n');
    text
}

fn format_header(header: &Header, syntax: HeaderSyntax) -> String {
    let title = header.title();
    match syntax {
        HeaderSyntax::Conventional => {
            let mut line = header.commit_type().unwrap_or_default().to_owned();
            if let Some(scope) = header.scope() {
                let _ = write!(line, "({scope})");
            }
            if header.breaking {
                line.push('!');
            }
            line.push(':');
            if let Some(title) = title {
                line.push(' ');
                line.push_str(title);
            }
            line
        }
        HeaderSyntax::MarkdownHeading => format!("# {}", title.unwrap_or_default()),
        HeaderSyntax::YamlTitle => format!("title: {}", title.unwrap_or_default()),
    }
}

fn format_constraint(constraint: &Constraint, syntax: ConstraintSyntax) -> String {
    let (key, value) = (constraint.key(), constraint.value());
    match syntax {
        ConstraintSyntax::Dash => format!("- {key}: {value}"),
        ConstraintSyntax::Blockquote => format!("> {key}: {value}"),
        ConstraintSyntax::YamlKey => format!("{key}: {value}"),
    }
}

fn write_tasks(out: &mut String, tasks: &[Task], depth: usize, config: &ParserConfig) {
    for task in tasks {
        let indent = depth * config.indent_size;
        let _ = write!(out, "{:indent$}", "");
        let mark = if task.checked { 'x' } else { ' ' };
        let text = task.text();
        let _ = match config.task {
            TaskSyntax::CheckboxColon => writeln!(out, "- [{mark}]: {text}"),
            TaskSyntax::Checkbox => writeln!(out, "- [{mark}] {text}"),
            TaskSyntax::YamlTask => writeln!(out, "- task: {text} ({mark})"),
        };
        write_tasks(out, &task.children, depth + 1, config);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::parse;

    fn reformat(text: &str, config: &ParserConfig) -> String {
        format(&parse(text, config).document, config)
    }

    #[test]
    fn empty_document_formats_to_nothing() {
        assert_eq!(reformat("", &ParserConfig::default()), "");
    }

    #[test]
    fn words_are_kept_as_written() {
        let text = "feat(Core)!: Keep UPPER Case\n\nDescription WITH caps.\n- Never: do X\n- [x]: Task ONE\n\nFinish It";
        assert_eq!(
            reformat(text, &ParserConfig::default()),
            "feat(Core)!: Keep UPPER Case\n\nDescription WITH caps.\n\n- Never: do X\n\n- [x]: Task ONE\n\nFinish It\n"
        );
    }

    #[test]
    fn each_preset_writes_its_own_syntax() {
        let md = "# Ship\n\nWhy.\n> Never: rush\n- [x] Build\n  - [ ] Test\n";
        assert_eq!(
            reformat(md, &ParserConfig::MARKDOWN_TASKS),
            "# Ship\n\nWhy.\n\n> Never: rush\n\n- [x] Build\n  - [ ] Test\n"
        );
        let yaml = "title: Ship\n\nWhy.\nscope: core\n- task: Build (x)\n    - task: Test ( )\n";
        assert_eq!(
            reformat(yaml, &ParserConfig::YAML_LIKE),
            "title: Ship\n\nWhy.\n\nscope: core\n\n- task: Build (x)\n    - task: Test ( )\n"
        );
    }
}
