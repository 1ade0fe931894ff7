//! Each rule's check: commitlint's verdict, and a finding that says what is
//! wrong, where, and what to write instead.

use super::case::Case;
use super::rule::{Level, Rule, RuleSetting, RuleValue, When};
use super::{LintFinding, LintMessage};
use crate::diagnostics::{Diagnostic, Severity};
use crate::span::{Span, Spanned};

/// What a failed rule says; the rule and level come from the caller.
struct Failure {
    span: Span,
    message: String,
    label: String,
    help: String,
    field: &'static str,
}

fn failure(
    span: Span,
    field: &'static str,
    message: impl Into<String>,
    label: impl Into<String>,
    help: impl Into<String>,
) -> Option<Failure> {
    Some(Failure {
        span,
        message: message.into(),
        label: label.into(),
        help: help.into(),
        field,
    })
}

/// The finding of `rule` set as `setting` on `message`, if it fails.
pub(super) fn rule(
    rule: Rule,
    setting: &RuleSetting,
    message: &LintMessage<'_>,
) -> Option<LintFinding> {
    let never = setting.when == When::Never;
    let failed = match (rule, &setting.value) {
        (Rule::TypeEmpty, _) => type_empty(message, never),
        (Rule::TypeCase, RuleValue::Cases(cases)) => part_case(
            "type",
            "type",
            message.commit_type.as_ref(),
            cases,
            never,
            false,
        ),
        (Rule::TypeEnum, RuleValue::Names(types)) => type_enum(message, types, never),
        (Rule::ScopeEmpty, _) => scope_empty(message, never),
        (Rule::ScopeCase, RuleValue::Cases(cases)) => {
            part_case("scope", "scope", message.scope.as_ref(), cases, never, true)
        }
        (Rule::ScopeEnum, RuleValue::Names(scopes)) => scope_enum(message, scopes, never),
        (Rule::SubjectEmpty, _) => subject_empty(message, never),
        (Rule::SubjectCase, RuleValue::Cases(cases)) => {
            let subject = message.subject.as_ref().filter(|s| {
                // commitlint judges only a subject that starts with a letter
                // that has case.
                s.value
                    .starts_with(|c: char| c.is_lowercase() || c.is_uppercase())
            });
            part_case("subject", "description", subject, cases, never, false)
        }
        (Rule::SubjectFullStop, RuleValue::Text(stop)) => subject_full_stop(message, stop, never),
        (Rule::SubjectMaxLength, RuleValue::Length(max)) => subject_max_length(message, *max),
        (Rule::HeaderTrim, _) => header_trim(message),
        (Rule::HeaderMaxLength, RuleValue::Length(max)) => header_max_length(message, *max),
        (Rule::BodyLeadingBlank, _) => leading_blank(
            "body",
            message.body.as_ref(),
            message.body_leading_blank,
            never,
        ),
        (Rule::BodyMaxLineLength, RuleValue::Length(max)) => {
            max_line_length("body", message.body.as_ref(), *max)
        }
        (Rule::FooterLeadingBlank, _) => leading_blank(
            "footer",
            message.footer.as_ref(),
            message.footer_leading_blank,
            never,
        ),
        (Rule::FooterMaxLineLength, RuleValue::Length(max)) => {
            max_line_length("footer", message.footer.as_ref(), *max)
        }
        // A value of another kind: `LintRules::set` refuses those, so no
        // setting gets here with one; such a rule has nothing to check.
        _ => None,
    }?;
    Some(Diagnostic {
        code: rule,
        severity: if setting.level == Level::Warning {
            Severity::Warning
        } else {
            Severity::Error
        },
        message: failed.message,
        label: failed.label,
        help: failed.help,
        span: failed.span,
        field: Some(failed.field.to_owned()),
    })
}

/// A part that is there and not empty.
fn present<'m, 'a>(part: Option<&'m Spanned<&'a str>>) -> Option<&'m Spanned<&'a str>> {
    part.filter(|part| !part.value.is_empty())
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// `text` past its first `max` characters, as a span into the message
/// (`start` is where `text` starts).
fn beyond(text: &str, start: usize, max: usize) -> Span {
    let cut = text
        .char_indices()
        .nth(max)
        .map_or(text.len(), |(at, _)| at);
    Span::new(start + cut, start + text.len())
}

fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

// ------------------------------------------------------------------ type

fn type_empty(message: &LintMessage<'_>, never: bool) -> Option<Failure> {
    let commit_type = present(message.commit_type.as_ref());
    match (commit_type, never) {
        (None, true) => {
            // A point at the end of a line is drawn without its label, so
            // an empty span becomes the whole header.
            let header = message.header.span;
            // The grammar's reason, when it gave one, says more than "no
            // type": a header it refuses may hold one in the wrong place.
            let (span, said) = match &message.header_problem {
                Some(problem) if !problem.span.is_empty() => (
                    problem.span,
                    format!("the header is not `type: subject`: {}", problem.value),
                ),
                Some(problem) => (
                    header,
                    format!("the header is not `type: subject`: {}", problem.value),
                ),
                None => (header, "the header has no type".to_owned()),
            };
            failure(
                span,
                "type",
                said,
                "expected `type: subject`",
                "start the header with a type and a colon, such as `fix: handle an empty body`",
            )
        }
        (Some(commit_type), false) => failure(
            commit_type.span,
            "type",
            format!(
                "the header has the type `{}`, and this project's headers have none",
                commit_type.value
            ),
            "a type",
            "remove the type and its colon",
        ),
        _ => None,
    }
}

fn type_enum(message: &LintMessage<'_>, types: &[String], never: bool) -> Option<Failure> {
    let commit_type = present(message.commit_type.as_ref())?;
    let listed = types.iter().any(|t| t == commit_type.value);
    if never && listed {
        return failure(
            commit_type.span,
            "type",
            format!("the type `{}` is not allowed", commit_type.value),
            "forbidden type",
            format!("use a type other than {}", list(types)),
        );
    }
    if never || listed {
        return None;
    }
    let help = match closest(commit_type.value, types) {
        Some(near) => format!("did you mean `{near}`? The types are: {}", list(types)),
        None => format!("use one of: {}", list(types)),
    };
    failure(
        commit_type.span,
        "type",
        format!("`{}` is not one of the allowed types", commit_type.value),
        "unknown type",
        help,
    )
}

/// The listed name nearest `given`: one or two edits away, or one of them
/// the start of the other (`feature` and `feat`).
fn closest<'n>(given: &str, names: &'n [String]) -> Option<&'n str> {
    let lower = given.to_lowercase();
    names
        .iter()
        .map(|name| (strsim::osa_distance(&lower, name), name))
        .filter(|(distance, name)| {
            *distance <= 2
                || (name.len() >= 2
                    && (lower.starts_with(name.as_str()) || name.starts_with(&lower)))
        })
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name.as_str())
}

// ----------------------------------------------------------------- scope

fn scope_empty(message: &LintMessage<'_>, never: bool) -> Option<Failure> {
    match (present(message.scope.as_ref()), never) {
        (None, true) => {
            let at = message
                .commit_type
                .as_ref()
                .map_or(message.header.span.start, |t| t.span.end);
            failure(
                Span::at(at),
                "scope",
                "the header has no scope",
                "expected `(scope)` here",
                "name what the commit touches in parentheses after the type: `fix(parser): ...`",
            )
        }
        (Some(scope), false) => failure(
            scope.span,
            "scope",
            format!(
                "the header has the scope `{}`, and this project's headers have none",
                scope.value
            ),
            "a scope",
            "remove the parentheses and the scope",
        ),
        _ => None,
    }
}

/// The parts of a scope, split at commitlint's default delimiters `/`, `\`
/// and `,` (with a space after it, if any).
fn scope_segments(scope: &str) -> Vec<&str> {
    let mut segments = Vec::new();
    let mut rest = scope;
    while let Some(at) = rest.find(['/', '\\', ',']) {
        segments.push(&rest[..at]);
        let mut next = &rest[at + 1..];
        if rest[at..].starts_with(',') {
            next = next.strip_prefix(' ').unwrap_or(next);
        }
        rest = next;
    }
    segments.push(rest);
    segments
}

fn scope_enum(message: &LintMessage<'_>, scopes: &[String], never: bool) -> Option<Failure> {
    let scope = present(message.scope.as_ref())?;
    if scopes.is_empty() {
        return None;
    }
    let listed = |name: &str| scopes.iter().any(|s| s == name);
    let segments = scope_segments(scope.value);
    if never {
        if !segments.iter().any(|s| listed(s)) && !listed(scope.value) {
            return None;
        }
        return failure(
            scope.span,
            "scope",
            format!("the scope `{}` is not allowed", scope.value),
            "forbidden scope",
            format!("use a scope other than {}", list(scopes)),
        );
    }
    if segments.iter().all(|s| listed(s)) || listed(scope.value) {
        return None;
    }
    let unknown = segments
        .iter()
        .find(|s| !listed(s))
        .copied()
        .unwrap_or(scope.value);
    let help = match closest(unknown, scopes) {
        Some(near) => format!("did you mean `{near}`? The scopes are: {}", list(scopes)),
        None => format!("use one of: {}", list(scopes)),
    };
    failure(
        scope.span,
        "scope",
        format!("`{unknown}` is not one of the allowed scopes"),
        "unknown scope",
        help,
    )
}

// ------------------------------------------------------------------ case

/// `type-case`, `scope-case`, `subject-case`: the part (each of its
/// segments, for a scope) is in one of `cases`, or with `never`, in none.
fn part_case(
    what: &str,
    field: &'static str,
    part: Option<&Spanned<&str>>,
    cases: &[Case],
    never: bool,
    by_segment: bool,
) -> Option<Failure> {
    let part = present(part)?;
    let in_case = |text: &str, case: Case| {
        if by_segment {
            scope_segments(text)
                .iter()
                .all(|segment| case.matches(segment))
        } else {
            case.matches(text)
        }
    };
    let passes = |text: &str| {
        let matching = cases.iter().any(|&case| in_case(text, case));
        matching != never
    };
    if passes(part.value) {
        return None;
    }
    let names = |cases: &[Case]| {
        cases
            .iter()
            .map(|c| c.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (message, label) = if never {
        let matched: Vec<Case> = cases
            .iter()
            .copied()
            .filter(|&c| in_case(part.value, c))
            .collect();
        (
            format!(
                "the {what} `{}` is {}, which is not allowed",
                part.value,
                names(&matched)
            ),
            format!("{} not allowed", names(&matched)),
        )
    } else {
        (
            format!("the {what} `{}` is not {}", part.value, or_list(cases)),
            format!("not {}", or_list(cases)),
        )
    };
    let help = match case_fix(part.value, &passes) {
        Some(fixed) => format!("write `{fixed}`"),
        None if never => format!("write the {what} in none of these cases: {}", names(cases)),
        None => format!("write the {what} in {}", or_list(cases)),
    };
    failure(part.span, field, message, label, help)
}

fn or_list(cases: &[Case]) -> String {
    match cases {
        [one] => one.name().to_owned(),
        _ => format!(
            "any of {}",
            cases
                .iter()
                .map(|c| c.name())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// The first of a few simple rewrites of `text` that passes: first letter
/// lowered, all lowered, first letter raised, all raised.
fn case_fix(text: &str, passes: &dyn Fn(&str) -> bool) -> Option<String> {
    let mut first_lowered = String::new();
    let mut first_raised = String::new();
    let mut chars = text.chars();
    if let Some(first) = chars.next() {
        first_lowered.extend(first.to_lowercase());
        first_lowered.push_str(chars.as_str());
        first_raised.extend(first.to_uppercase());
        first_raised.push_str(chars.as_str());
    }
    [
        first_lowered,
        text.to_lowercase(),
        first_raised,
        text.to_uppercase(),
    ]
    .into_iter()
    .find(|candidate| candidate != text && passes(candidate))
}

// --------------------------------------------------------------- subject

fn subject_empty(message: &LintMessage<'_>, never: bool) -> Option<Failure> {
    match (present(message.subject.as_ref()), never) {
        (None, true) => {
            // Point at the colon the subject should follow, or at the whole
            // header when it has none (a point at the end of a line is drawn
            // without its label).
            let header = &message.header;
            let (span, label) = match header.value.strip_suffix(':') {
                Some(_) => (
                    Span::new(header.span.end.saturating_sub(1), header.span.end),
                    "expected a subject after this colon",
                ),
                None => (header.span, "no subject in this header"),
            };
            failure(
                span,
                "description",
                "the header has no subject",
                label,
                "say what the commit does after the colon and a space: `fix: handle an empty body`",
            )
        }
        (Some(subject), false) => failure(
            subject.span,
            "description",
            "the header has a subject, and this project's headers have none",
            "a subject",
            "end the header at the colon",
        ),
        _ => None,
    }
}

fn subject_full_stop(message: &LintMessage<'_>, stop: &str, never: bool) -> Option<Failure> {
    let header = message.header.value;
    // commitlint: a header that ends at its colon has no subject to stop.
    if header
        .find(':')
        .is_some_and(|colon| colon > 0 && colon + 1 == header.len())
    {
        return None;
    }
    let last = header.chars().next_back()?;
    let has_stop =
        last.len_utf16() == 1 && stop.chars().eq(std::iter::once(last)) && !header.ends_with("...");
    let last_span = Span::new(
        message.header.span.end.saturating_sub(last.len_utf8()),
        message.header.span.end,
    );
    match (has_stop, never) {
        (true, true) => failure(
            last_span,
            "description",
            format!("the subject ends with `{stop}`"),
            "full stop",
            format!("remove the `{stop}`: a subject is a title, not a sentence"),
        ),
        (false, false) => failure(
            Span::at(message.header.span.end),
            "description",
            format!("the subject does not end with `{stop}`"),
            format!("expected `{stop}` here"),
            format!("end the subject with `{stop}`"),
        ),
        _ => None,
    }
}

fn subject_max_length(message: &LintMessage<'_>, max: usize) -> Option<Failure> {
    let subject = present(message.subject.as_ref())?;
    let length = chars(subject.value);
    if length <= max {
        return None;
    }
    failure(
        beyond(subject.value, subject.span.start, max),
        "description",
        format!("the subject has {length} characters; the limit is {max}"),
        format!("{} over the limit", plural(length - max, "character")),
        "shorten the subject and say the rest in the body",
    )
}

// ---------------------------------------------------------------- header

fn is_js_space(c: char) -> bool {
    c.is_whitespace() || c == '\u{feff}'
}

fn header_trim(message: &LintMessage<'_>) -> Option<Failure> {
    let header = message.header.value;
    let start = message.header.span.start;
    let leading = header.len() - header.trim_start_matches(is_js_space).len();
    let trailing = header.len() - header.trim_end_matches(is_js_space).len();
    let (span, message, label) = match (leading > 0, trailing > 0) {
        (false, false) => return None,
        (true, true) if leading == header.len() => (
            Span::new(start, start + header.len()),
            "the header is only white space",
            "white space",
        ),
        (true, true) => (
            Span::new(start, start + header.len()),
            "the header starts and ends with white space",
            "surrounded by white space",
        ),
        (true, false) => (
            Span::new(start, start + leading),
            "the header starts with white space",
            "leading white space",
        ),
        (false, true) => (
            Span::new(start + header.len() - trailing, start + header.len()),
            "the header ends with white space",
            "trailing white space",
        ),
    };
    let trimmed = header.trim_matches(is_js_space);
    let help = if trimmed.is_empty() {
        "start the message with its header, such as `fix: handle an empty body`".to_owned()
    } else {
        format!("write `{trimmed}`")
    };
    failure(span, "header", message, label, help)
}

fn header_max_length(message: &LintMessage<'_>, max: usize) -> Option<Failure> {
    let header = message.header.value;
    let length = chars(header);
    if length <= max {
        return None;
    }
    failure(
        beyond(header, message.header.span.start, max),
        "header",
        format!("the header has {length} characters; the limit is {max}"),
        format!("{} over the limit", plural(length - max, "character")),
        "shorten the subject and say the rest in the body",
    )
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

// ------------------------------------------------------------ body, footer

fn field_of(part: &str) -> &'static str {
    if part == "body" { "body" } else { "footers" }
}

fn leading_blank(
    part: &str,
    block: Option<&Spanned<&str>>,
    blank: bool,
    never: bool,
) -> Option<Failure> {
    let block = present(block)?;
    let first_line_end = block.value.find('\n').unwrap_or(block.value.len());
    let first_line = Span::new(block.span.start, block.span.start + first_line_end);
    match (blank, never) {
        (false, false) => failure(
            first_line,
            field_of(part),
            format!("no blank line before the {part}"),
            format!("expected a blank line before this {part}"),
            format!("insert an empty line before the {part}"),
        ),
        (true, true) => failure(
            first_line,
            field_of(part),
            format!("a blank line comes before the {part}, and this project's messages have none"),
            format!("{part} after a blank line"),
            format!("remove the empty line before the {part}"),
        ),
        _ => None,
    }
}

/// commitlint's URL exemption: `\bhttps?://\S+` anywhere in the line.
fn holds_url(line: &str) -> bool {
    line.match_indices("http").any(|(at, _)| {
        let boundary = !line[..at]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        let rest = &line[at + 4..];
        let rest = rest.strip_prefix('s').unwrap_or(rest);
        boundary
            && rest
                .strip_prefix("://")
                .and_then(|after| after.chars().next())
                .is_some_and(|c| !c.is_whitespace())
    })
}

fn max_line_length(part: &str, block: Option<&Spanned<&str>>, max: usize) -> Option<Failure> {
    let block = present(block)?;
    let mut too_long = Vec::new();
    let mut offset = 0;
    for raw in block.value.split('\n') {
        // commitlint splits at `\r?\n`: a carriage return before the line
        // feed is not part of the line.
        let line = if offset + raw.len() < block.value.len() {
            raw.strip_suffix('\r').unwrap_or(raw)
        } else {
            raw
        };
        let length = chars(line);
        if length > max && !holds_url(line) {
            too_long.push((block.span.start + offset, line, length));
        }
        offset += raw.len() + 1;
    }
    let (&(start, line, length), others) = too_long.split_first()?;
    let more = match others.len() {
        0 => String::new(),
        n => format!(" ({} more too long)", plural(n, "line")),
    };
    failure(
        beyond(line, start, max),
        field_of(part),
        format!("a {part} line has {length} characters; the limit is {max}{more}"),
        format!("{} over the limit", plural(length - max, "character")),
        format!("wrap the {part} at {max} characters (a line holding a URL may be longer)"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_exemption_is_commitlints() {
        assert!(holds_url("see https://example.com/a/b"));
        assert!(holds_url("(http://x)"));
        assert!(!holds_url("xhttps://example.com"));
        assert!(!holds_url("https:// spaced"));
        assert!(!holds_url("ftp://example.com"));
    }

    #[test]
    fn scope_segments_split_at_commitlints_delimiters() {
        assert_eq!(scope_segments("a/b\\c,d, e"), ["a", "b", "c", "d", "e"]);
        assert_eq!(scope_segments("core"), ["core"]);
        assert_eq!(scope_segments("a,,b"), ["a", "", "b"]);
    }

    #[test]
    fn near_names_are_suggested() {
        let types: Vec<String> = ["feat", "fix", "docs"].map(String::from).to_vec();
        assert_eq!(closest("feature", &types), Some("feat"));
        assert_eq!(closest("fxi", &types), Some("fix"));
        assert_eq!(closest("Docs", &types), Some("docs"));
        assert_eq!(closest("refactor", &types), None);
    }
}
