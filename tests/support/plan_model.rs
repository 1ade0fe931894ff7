//! A model of the plan grammar's line rules, written independently of the
//! parser, and the invariants the robustness tests check.
//!
//! Shared by `tests/plan_roundtrip.rs`, `tests/plan_robustness.rs` and the
//! fuzz targets (`fuzz/fuzz_targets/*.rs` include it by path), so it uses
//! only the public API and the standard library.
//!
//! - [`sanitize`] turns any [`PlanDocument`] into one the grammar can express
//!   for a configuration, shaped the way the parser would return it, so that
//!   `parse(format(sanitize(doc)))` must give it back.
//! - [`check_spans`] checks that every span of an outcome is inside the text,
//!   on character boundaries, and covers what the node holds.
//! - [`check_idempotent`] checks that formatting a parse is a fixed point.

#![allow(dead_code)]

use quire_grammar::diagnostics::is_terminal_control;
use quire_grammar::plan::{
    Code, Constraint, ConstraintSyntax, Header, HeaderSyntax, ParseOutcome, ParseState,
    ParserConfig, PlanDocument, Preset, Task, TaskSyntax, format, parse, validate,
};
use quire_grammar::span::{Span, Spanned};

// ------------------------------------------------------------ line rules ---

fn is_ws(c: char) -> bool {
    c.is_whitespace()
}

/// `indent "- [" mark close text` with `close` `]: ` or `] `.
fn checkbox_task(body: &str, close: &str) -> bool {
    let Some(rest) = body.strip_prefix("- [") else {
        return false;
    };
    let Some(rest) = rest.strip_prefix(['x', ' ']) else {
        return false;
    };
    rest.strip_prefix(close)
        .is_some_and(|text| !text.is_empty())
}

/// Is `line` a task line of `syntax` (text may be blank)?
pub(crate) fn is_task(syntax: TaskSyntax, line: &str) -> bool {
    let body = line.trim_start_matches(is_ws);
    match syntax {
        TaskSyntax::CheckboxColon => checkbox_task(body, "]: "),
        TaskSyntax::Checkbox => checkbox_task(body, "] "),
        TaskSyntax::YamlTask => body.strip_prefix("- task: ").is_some_and(|rest| {
            (rest.ends_with(" (x)") || rest.ends_with(" ( )")) && rest.len() > 4
        }),
    }
}

/// Does `line` start like a task (a lone `-`, the task marker, or a bare
/// checkbox), whether or not it is one?
pub(crate) fn starts_like_task(syntax: TaskSyntax, line: &str) -> bool {
    let body = line.trim_start_matches(is_ws);
    if body.trim_end_matches(is_ws) == "-" {
        return true;
    }
    match syntax {
        TaskSyntax::CheckboxColon | TaskSyntax::Checkbox => {
            body.starts_with("- [") || body.starts_with("[x]") || body.starts_with("[ ]")
        }
        TaskSyntax::YamlTask => body.starts_with("- task:"),
    }
}

/// Is `line` a constraint line of `syntax`?
pub(crate) fn is_constraint(syntax: ConstraintSyntax, line: &str) -> bool {
    match syntax {
        ConstraintSyntax::Dash => {
            let Some(rest) = line.strip_prefix("- ") else {
                return false;
            };
            let mut chars = rest.chars();
            if !chars.next().is_some_and(|c| c.is_ascii_uppercase()) {
                return false;
            }
            let rest = chars.as_str();
            let key_end = rest
                .find(|c: char| !(c.is_ascii_lowercase() || c == ' '))
                .unwrap_or(rest.len());
            rest[key_end..]
                .strip_prefix(": ")
                .is_some_and(|value| value.starts_with(|c: char| c.is_ascii_lowercase()))
        }
        ConstraintSyntax::Blockquote => {
            let Some(rest) = line.strip_prefix("> ") else {
                return false;
            };
            let key_end = rest.find(':').unwrap_or(rest.len());
            key_end > 0
                && rest[key_end..]
                    .strip_prefix(": ")
                    .is_some_and(|value| !value.is_empty())
        }
        ConstraintSyntax::YamlKey => {
            let key_end = line
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(line.len());
            key_end > 0
                && line[key_end..]
                    .strip_prefix(": ")
                    .is_some_and(|value| !value.is_empty())
        }
    }
}

/// Is `line` shaped like a constraint (which the constraint section reads,
/// keeping it or skipping it with a warning)?
pub(crate) fn is_constraint_like(syntax: ConstraintSyntax, line: &str) -> bool {
    // An indented constraint (or constraint-like line) is read, and skipped.
    let unindented = line.trim_start_matches(is_ws);
    if unindented.len() < line.len() {
        return is_constraint(syntax, unindented) || is_constraint_like(syntax, unindented);
    }
    let marker = match syntax {
        ConstraintSyntax::Dash => "- ",
        ConstraintSyntax::Blockquote => "> ",
        ConstraintSyntax::YamlKey => return false,
    };
    line.strip_prefix(marker)
        .is_some_and(|tail| tail.contains(": "))
}

/// Does `line` end the description (start the constraint or task section)?
pub(crate) fn starts_section(config: &ParserConfig, line: &str) -> bool {
    is_task(config.task, line)
        || starts_like_task(config.task, line)
        || is_constraint(config.constraint, line)
        || is_constraint_like(config.constraint, line)
}

// ------------------------------------------------------------- sanitize ---

/// Removes the characters no single line can hold, and a line ending's `\r`.
fn one_line(text: &str) -> String {
    let mut line: String = text.chars().filter(|&c| c != '\n' && c != '\0').collect();
    while line.ends_with('\r') {
        line.pop();
    }
    line
}

fn truncate_chars(text: &mut String, max: usize) {
    if let Some((cut, _)) = text.char_indices().nth(max) {
        text.truncate(cut);
    }
}

fn sanitize_header(header: Option<Header>, config: &ParserConfig) -> Header {
    let header = header.unwrap_or_default();
    let title = header.title.map(|title| title.value);
    let clean_title = |title: Option<String>, trim_start: bool| {
        let mut title: String = title
            .unwrap_or_default()
            .chars()
            .filter(|&c| c != '\n' && c != '\0')
            .collect();
        if trim_start {
            title = title.trim_start_matches(is_ws).to_owned();
        }
        truncate_chars(&mut title, config.max_title_length);
        while title.ends_with('\r') {
            title.pop();
        }
        title
    };
    match config.header {
        HeaderSyntax::Conventional => {
            let mut commit_type: String = header
                .commit_type
                .map(|t| t.value)
                .unwrap_or_default()
                .chars()
                .filter(char::is_ascii_lowercase)
                .collect();
            if commit_type.is_empty() {
                commit_type = "feat".to_owned();
            }
            let scope: Option<String> = header
                .scope
                .map(|scope| {
                    scope
                        .value
                        .chars()
                        .filter(|&c| c != ')' && c != '\0' && !is_ws(c))
                        .collect::<String>()
                })
                .filter(|scope| !scope.is_empty());
            let has_scope = scope.is_some();
            let title = Some(clean_title(title, true)).filter(|t| has_scope && !t.is_empty());
            Header {
                commit_type: Some(Spanned::detached(commit_type)),
                scope: scope.map(Spanned::detached),
                breaking: header.breaking && has_scope,
                title: title.map(Spanned::detached),
                span: Span::DETACHED,
            }
        }
        HeaderSyntax::MarkdownHeading | HeaderSyntax::YamlTitle => {
            let mut title = clean_title(title, false);
            if title.is_empty() {
                title = "Title".to_owned();
            }
            Header {
                title: Some(Spanned::detached(title)),
                ..Header::default()
            }
        }
    }
}

fn sanitize_description(description: &str, config: &ParserConfig) -> Option<String> {
    let lines: Vec<String> = description
        .split('\n')
        .map(one_line)
        // Whitespace-only lines are blank lines.
        .filter(|line| !line.trim().is_empty())
        .map(|line| {
            if starts_section(config, &line) {
                format!("~{line}")
            } else {
                line
            }
        })
        .collect();
    (!lines.is_empty()).then(|| lines.join("\n"))
}

fn sanitize_constraint(constraint: &Constraint, syntax: ConstraintSyntax) -> Constraint {
    let mut value = one_line(&constraint.value.value);
    let key = &constraint.key.value;
    let key = match syntax {
        ConstraintSyntax::Dash => {
            let mut chars = key.chars().filter(|c| c.is_ascii_alphabetic() || *c == ' ');
            let first = chars
                .next()
                .filter(char::is_ascii_alphabetic)
                .map_or_else(|| "K".to_owned(), |c| c.to_ascii_uppercase().to_string());
            let rest: String = chars.map(|c| c.to_ascii_lowercase()).collect();
            if !value.starts_with(|c: char| c.is_ascii_lowercase()) {
                value.insert(0, 'v');
            }
            first + &rest
        }
        ConstraintSyntax::Blockquote => {
            let key: String = key
                .chars()
                .filter(|&c| c != ':' && c != '\n' && c != '\0')
                .collect();
            if key.is_empty() {
                "Key".to_owned()
            } else {
                key
            }
        }
        ConstraintSyntax::YamlKey => {
            let key: String = key
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if key.is_empty() {
                "key".to_owned()
            } else {
                key
            }
        }
    };
    if value.is_empty() {
        value.push('v');
    }
    Constraint::new(key, value)
}

fn sanitize_tasks(
    tasks: Vec<Task>,
    depth: usize,
    config: &ParserConfig,
    budget: &mut usize,
) -> Vec<Task> {
    let mut kept = Vec::new();
    for task in tasks {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let mut text = one_line(&task.text.value);
        if text.trim().is_empty() {
            text.push('t');
        }
        let children = if depth < config.max_nesting_depth {
            sanitize_tasks(task.children, depth + 1, config, budget)
        } else {
            Vec::new()
        };
        kept.push(Task::new(task.checked, text, children));
    }
    kept
}

fn sanitize_direction(direction: &str, config: &ParserConfig, after_tasks: bool) -> Option<String> {
    let lines: Vec<String> = direction.split('\n').map(one_line).collect();
    let mut direction = lines.join("\n").trim().to_owned();
    if direction.is_empty() {
        return None;
    }
    let first_line = |text: &str| text.split('\n').next().unwrap_or_default().to_owned();
    let first = first_line(&direction);
    let read_as_section = is_task(config.task, &first)
        || starts_like_task(config.task, &first)
        || (!after_tasks
            && (is_constraint(config.constraint, &first)
                || is_constraint_like(config.constraint, &first)));
    if read_as_section {
        direction.insert_str(0, "~ ");
    }
    let halt = config.direction_halt_length.filter(|&length| length > 0);
    if halt == Some(first_line(&direction).chars().count()) {
        direction.insert(0, '~');
    }
    Some(direction)
}

/// The document the parser gives for `format(&sanitize(doc, config), config)`:
/// `doc` changed as little as possible to be expressible in `config`'s syntax,
/// with detached spans. It may still exceed `max_input_length` when formatted.
pub(crate) fn sanitize(doc: PlanDocument, config: &ParserConfig) -> PlanDocument {
    let PlanDocument {
        header,
        description,
        constraints,
        tasks,
        direction,
    } = doc;
    let has_content = header.is_some()
        || description.is_some()
        || constraints.as_ref().is_some_and(|c| !c.is_empty())
        || tasks.as_ref().is_some_and(|t| !t.is_empty());
    if !has_content {
        return PlanDocument::default();
    }
    let description =
        description.and_then(|d| sanitize_description(&d.value, config).map(Spanned::detached));
    let constraints: Vec<Constraint> = constraints
        .unwrap_or_default()
        .iter()
        .map(|c| sanitize_constraint(c, config.constraint))
        .collect();
    let mut budget = config.max_task_count;
    let tasks = sanitize_tasks(tasks.unwrap_or_default(), 0, config, &mut budget);
    let tasks = (!tasks.is_empty()).then_some(tasks);
    let direction = direction
        .filter(|_| tasks.is_some() || !constraints.is_empty())
        .and_then(|d| sanitize_direction(&d.value, config, tasks.is_some()))
        .map(Spanned::detached);
    let constraints = if !constraints.is_empty() {
        Some(constraints)
    } else if tasks.is_some() && description.is_some() {
        Some(Vec::new())
    } else {
        None
    };
    PlanDocument {
        header: Some(sanitize_header(header, config)),
        description,
        constraints,
        tasks,
        direction,
    }
}

// ----------------------------------------------------------- invariants ---

pub(crate) fn presets() -> [(Preset, ParserConfig); 4] {
    Preset::ALL.map(|preset| (preset, preset.config()))
}

/// `text` with line endings read as LF: carriage returns before a line feed
/// belong to the line ending.
fn lf(text: &str) -> String {
    let lines: Vec<&str> = text.split('\n').collect();
    let last = lines.len() - 1;
    let trimmed: Vec<&str> = lines
        .iter()
        .enumerate()
        .map(|(index, line)| {
            if index < last {
                line.trim_end_matches('\r')
            } else {
                line
            }
        })
        .collect();
    trimmed.join("\n")
}

/// Is `span` a range of `text` on character boundaries?
pub(crate) fn span_ok(text: &str, span: Span) -> bool {
    span.start <= span.end && text.get(span.range()).is_some()
}

fn check_span(text: &str, what: &str, span: Span, within: Span) -> Result<(), String> {
    if !span_ok(text, span) {
        return Err(format!(
            "{what}: span {span} is not a range of the {}-byte text on char boundaries",
            text.len()
        ));
    }
    if span.start < within.start || span.end > within.end {
        return Err(format!(
            "{what}: span {span} is outside its node's {within}"
        ));
    }
    Ok(())
}

/// `text[span]` must be `value` (`lf`: with CRLF read as LF).
fn check_spanned(
    text: &str,
    what: &str,
    node: &Spanned<String>,
    within: Span,
    lf_read: bool,
) -> Result<(), String> {
    check_span(text, what, node.span, within)?;
    let covered = &text[node.span.range()];
    let covered = if lf_read {
        lf(covered)
    } else {
        covered.to_owned()
    };
    if covered != node.value {
        return Err(format!(
            "{what}: span {} covers {covered:?} but the value is {:?}",
            node.span, node.value
        ));
    }
    Ok(())
}

fn check_tasks(text: &str, tasks: &[Task], whole: Span) -> Result<(), String> {
    for task in tasks {
        check_span(text, "task line", task.span, whole)?;
        check_spanned(text, "task text", &task.text, task.span, false)?;
        check_tasks(text, &task.children, whole)?;
    }
    Ok(())
}

/// Every span in `outcome` (a parse of `text`) is a range of `text` on char
/// boundaries, every value's span covers that value, and a halted outcome
/// has errors (a parsed one none).
pub(crate) fn check_spans(text: &str, outcome: &ParseOutcome) -> Result<(), String> {
    let whole = Span::new(0, text.len());
    for diagnostic in &outcome.diagnostics {
        check_span(text, &diagnostic.to_string(), diagnostic.span, whole)?;
    }
    // The validator's findings point into the document's spans too, and a
    // control character found in the text is exactly that character.
    for diagnostic in outcome.check(text) {
        check_span(text, &diagnostic.to_string(), diagnostic.span, whole)?;
        if diagnostic.code == Code::ControlCharacter {
            let mut found = text[diagnostic.span.range()].chars();
            let exact = found.next().is_some_and(is_terminal_control) && found.next().is_none();
            if !exact {
                return Err(format!(
                    "{diagnostic} is at {:?}, not at one control character",
                    &text[diagnostic.span.range()]
                ));
            }
        }
    }
    for diagnostic in validate(&outcome.document) {
        check_span(text, &diagnostic.to_string(), diagnostic.span, whole)?;
    }
    // A halted outcome has an error (the first is why it halted, the others
    // were found by reading on, at most 100 diagnostics after it); a parsed
    // one has none.
    let errors = outcome.diagnostics.iter().filter(|d| d.is_error()).count();
    let after_halt = outcome
        .diagnostics
        .iter()
        .position(|d| d.is_error())
        .map_or(0, |first| outcome.diagnostics.len() - first - 1);
    let halted = outcome.state == ParseState::Halted;
    if (errors > 0) != halted || after_halt > 100 {
        return Err(format!(
            "{:?} outcome with {errors} error diagnostics: {:?}",
            outcome.state, outcome.diagnostics
        ));
    }
    let document = &outcome.document;
    if let Some(header) = &document.header {
        check_span(text, "header", header.span, whole)?;
        for (what, part) in [
            ("type", &header.commit_type),
            ("scope", &header.scope),
            ("title", &header.title),
        ] {
            if let Some(part) = part {
                check_spanned(text, what, part, header.span, false)?;
            }
        }
    }
    if let Some(description) = &document.description {
        check_spanned(text, "description", description, whole, true)?;
    }
    for constraint in document.constraints.iter().flatten() {
        check_span(text, "constraint", constraint.span, whole)?;
        check_spanned(
            text,
            "constraint key",
            &constraint.key,
            constraint.span,
            false,
        )?;
        check_spanned(
            text,
            "constraint value",
            &constraint.value,
            constraint.span,
            false,
        )?;
    }
    check_tasks(text, document.tasks.as_deref().unwrap_or_default(), whole)?;
    if let Some(direction) = &document.direction {
        check_span(text, "direction", direction.span, whole)?;
        // A halted direction keeps its first line, trimmed at the end.
        let covered = lf(&text[direction.span.range()]);
        let matches = covered == direction.value
            || (outcome.state == ParseState::Halted && covered.trim_end() == direction.value);
        if !matches {
            return Err(format!(
                "direction: span {} covers {covered:?} but the value is {:?}",
                direction.span, direction.value
            ));
        }
    }
    Ok(())
}

/// Did the parser keep everything the text said (no text-dropping warning)?
pub(crate) fn keeps_all_text(outcome: &ParseOutcome) -> bool {
    outcome.state == ParseState::Parsed
        && !outcome
            .diagnostics
            .iter()
            .any(|diagnostic| diagnostic.code.drops_text())
}

fn json(document: &PlanDocument) -> serde_json::Value {
    serde_json::to_value(document).expect("documents serialize")
}

/// `ours.same_content(theirs)`, checked against what it promises: the same
/// answer as comparing the JSON shapes.
pub(crate) fn same_content(ours: &PlanDocument, theirs: &PlanDocument) -> Result<bool, String> {
    let same = ours.same_content(theirs);
    if same != (json(ours) == json(theirs)) {
        return Err(format!(
            "same_content says {same} for\n  {}\nand\n  {}",
            json(ours),
            json(theirs)
        ));
    }
    Ok(same)
}

/// For an outcome that [`keeps_all_text`]: its formatted text re-parses to the
/// same document (Parsed) and formats to the same text again.
pub(crate) fn check_idempotent(
    outcome: &ParseOutcome,
    config: &ParserConfig,
) -> Result<(), String> {
    let formatted = format(&outcome.document, config);
    if formatted.chars().count() > config.max_input_length {
        // Known limitation: the formatter adds blank lines between sections
        // and a final newline, so a text at the input limit can format to a
        // text over it, which halts. Not checked.
        return Ok(());
    }
    let again = parse(&formatted, config);
    check_spans(&formatted, &again)?;
    if again.state != ParseState::Parsed {
        return Err(format!(
            "the formatted text {formatted:?} does not parse: {:?}",
            again.diagnostics
        ));
    }
    if !same_content(&again.document, &outcome.document)? {
        return Err(format!(
            "the formatted text {formatted:?} parses to\n  {}\nnot\n  {}",
            json(&again.document),
            json(&outcome.document)
        ));
    }
    let reformatted = format(&again.document, config);
    if reformatted != formatted {
        return Err(format!(
            "formatting is not a fixed point:\n  {formatted:?}\n  {reformatted:?}"
        ));
    }
    Ok(())
}

/// For a [`sanitize`]d document: formatting then parsing gives it back.
/// Returns `Ok(false)` (nothing checked) when the formatted text is over the
/// input limit.
pub(crate) fn check_roundtrip(doc: &PlanDocument, config: &ParserConfig) -> Result<bool, String> {
    let text = format(doc, config);
    if text.chars().count() > config.max_input_length {
        return Ok(false);
    }
    let outcome = parse(&text, config);
    check_spans(&text, &outcome)?;
    if outcome.state != ParseState::Parsed {
        return Err(format!(
            "the formatted text {text:?} does not parse: {:?}",
            outcome.diagnostics
        ));
    }
    if let Some(warning) = outcome.diagnostics.first() {
        return Err(format!("the formatted text {text:?} gives {warning}"));
    }
    if !same_content(&outcome.document, doc)? {
        return Err(format!(
            "the formatted text {text:?} parses to\n  {}\nnot\n  {}",
            json(&outcome.document),
            json(doc)
        ));
    }
    // `doc` was built, not parsed: its spans are detached, the parsed
    // document's are not, so only `same_content` sees them as one.
    if !doc.is_empty() && outcome.document == *doc {
        return Err(format!(
            "{text:?}: the parsed document's spans are detached"
        ));
    }
    Ok(true)
}
