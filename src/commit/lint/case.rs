//! The letter cases of commitlint's `*-case` rules, decided the way
//! commitlint's `ensure-case` decides them.
//!
//! commitlint converts the text to the case (with es-toolkit's `camelCase`,
//! `kebabCase`, `snakeCase`, `startCase`, `upperFirst`) and calls the text
//! that case when the conversion changes nothing. So "is start case" means
//! "`startCase(text) == text`", with every quirk that brings: a single
//! capitalized word is sentence-, start- and pascal-case at once, a text
//! with an accented letter is never camel-, kebab-, snake-, pascal- or
//! start-case (the conversion strips the accent), quoted parts
//! (`` `Eslint` ``, `"X"`, `'Y'`) are left out first, and a text that is
//! empty after that, or converts to something starting with a digit, is
//! every case. Reproducing the conversions is the only way to agree with
//! commitlint on every subject, so this module does: the word splitter is
//! es-toolkit's (lodash's) `words` pattern, written out as a small scanner
//! because the `regex` crate has no look-ahead and no other crate splits
//! words this way.
//!
//! Differences, all at the edges of Unicode: Rust's `Uppercase`,
//! `Lowercase` and `Alphabetic` properties stand in for the general
//! categories `Lu`, `Ll` and `Lm`/`Lo`, and emoji are recognized by the
//! code point blocks that hold them rather than by the `Emoji_Presentation`
//! and `Extended_Pictographic` tables.

use unicode_normalization::UnicodeNormalization;

crate::named_enum! {
    /// A letter case a `*-case` rule asks for (or forbids), in the order
    /// commitlint's documentation lists them; each named as a
    /// configuration writes it (`lower-case`, `sentence-case`, ...).
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub enum Case {
        /// `lower-case`: nothing changes when lowercased.
        Lower => "lower-case",
        /// `upper-case`: nothing changes when uppercased.
        Upper => "upper-case",
        /// `camel-case`: `fooBar`.
        Camel => "camel-case",
        /// `kebab-case`: `foo-bar`.
        Kebab => "kebab-case",
        /// `pascal-case`: `FooBar`.
        Pascal => "pascal-case",
        /// `sentence-case`: the first letter is not lowercase (`Foo bar`).
        Sentence => "sentence-case",
        /// `snake-case`: `foo_bar`.
        Snake => "snake-case",
        /// `start-case`: every word capitalized (`Foo Bar`).
        Start => "start-case",
    }

    /// A case name that is none of [`Case::ALL`]'s.
    pub struct UnknownCase(pub String) = "unknown case";
    /// Takes the names [`Case::name`] gives, and the older spellings
    /// commitlint still accepts (`lowercase`, `lowerCase`, `uppercase`,
    /// `sentencecase`).
    impl FromStr with case_spelled;
}

/// The case `name` spells: a name [`Case::name`] gives, or an older
/// spelling commitlint still accepts.
fn case_spelled(name: &str) -> Option<Case> {
    match name {
        "lowercase" | "lowerCase" => Some(Case::Lower),
        "uppercase" => Some(Case::Upper),
        "sentencecase" => Some(Case::Sentence),
        _ => Case::from_name(name),
    }
}

impl Case {
    /// Whether `text` is in this case, as commitlint's `ensure-case` says.
    ///
    /// ```
    /// use quire_grammar::commit::lint::Case;
    ///
    /// assert!(Case::Sentence.matches("Add parser"));
    /// assert!(!Case::Start.matches("Add parser"));
    /// assert!(Case::Start.matches("Add Parser"));
    /// assert!(Case::Lower.matches("add `Eslint` config")); // quoted parts do not count
    /// assert!(Case::Kebab.matches("mcp-server"));
    /// ```
    pub fn matches(self, text: &str) -> bool {
        let input = without_quoted(text);
        let input = js_trim(&input);
        let converted = self.convert(input);
        if converted.is_empty() || converted.starts_with(|c: char| c.is_ascii_digit()) {
            return true;
        }
        converted == input
    }

    /// `text` converted to this case, as es-toolkit converts it.
    fn convert(self, text: &str) -> String {
        match self {
            Case::Lower => text.to_lowercase(),
            Case::Upper => text.to_uppercase(),
            Case::Sentence => upper_first(text),
            Case::Camel => camel_case(text),
            Case::Pascal => upper_first(&camel_case(text)),
            Case::Kebab => joined_lowercase(text, "-"),
            Case::Snake => joined_lowercase(text, "_"),
            Case::Start => start_case(text),
        }
    }
}

// ------------------------------------------------------------- conversions

/// `text` without its quoted parts: commitlint drops `` `...` ``, `"..."`
/// and `'...'` (each closed on the same line) before it looks at the case,
/// since they hold names that keep their own case.
fn without_quoted(text: &str) -> String {
    let mut kept = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let after = &rest[c.len_utf8()..];
        if matches!(c, '`' | '"' | '\'') {
            // The closing quote, on the same line (a JavaScript `.` stops at
            // any line terminator).
            let line = after
                .find(is_js_line_terminator)
                .map_or(after, |end| &after[..end]);
            if let Some(close) = line.find(c) {
                rest = &after[close + c.len_utf8()..];
                continue;
            }
        }
        kept.push(c);
        rest = after;
    }
    kept
}

fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// JavaScript's `String.prototype.trim`: white space, line terminators and
/// the byte order mark.
fn js_trim(text: &str) -> &str {
    text.trim_matches(|c: char| c.is_whitespace() || c == '\u{feff}')
}

/// `upperFirst`: the first UTF-16 unit uppercased. A character outside the
/// Basic Multilingual Plane is two units, and JavaScript leaves half of one
/// as it is, so such a first character stays.
fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) if first.len_utf16() == 1 => {
            let mut out: String = first.to_uppercase().collect();
            out.push_str(chars.as_str());
            out
        }
        _ => text.to_owned(),
    }
}

/// es-toolkit's `capitalize`: the first character uppercased (as
/// [`upper_first`]), the rest lowercased.
fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => {
            let mut out = if first.len_utf16() == 1 {
                first.to_uppercase().collect()
            } else {
                first.to_string()
            };
            out.push_str(&chars.as_str().to_lowercase());
            out
        }
        None => String::new(),
    }
}

/// The words es-toolkit's compat `camelCase`, `kebabCase`, `snakeCase` and
/// `startCase` split a text into: accents stripped (`deburr`),
/// apostrophes dropped, then `words`.
fn case_words(text: &str) -> Vec<String> {
    let normalized: String = deburr(text)
        .chars()
        .filter(|&c| c != '\'' && c != '\u{2019}')
        .collect();
    words(&normalized)
}

fn camel_case(text: &str) -> String {
    let words = case_words(text);
    let mut words = words.iter();
    let Some(first) = words.next() else {
        return String::new();
    };
    let mut out = first.to_lowercase();
    for word in words {
        out.push_str(&capitalize(word));
    }
    out
}

fn joined_lowercase(text: &str, separator: &str) -> String {
    case_words(text)
        .iter()
        .map(|word| word.to_lowercase())
        .collect::<Vec<_>>()
        .join(separator)
}

/// es-toolkit's compat `startCase`: a word in capitals stays, any other is
/// capitalized; words joined by one space.
fn start_case(text: &str) -> String {
    case_words(js_trim(text))
        .iter()
        .map(|word| {
            if *word == word.to_uppercase() {
                word.clone()
            } else {
                capitalize(word)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// es-toolkit's `deburr`: decomposed (NFD), combining marks of the three
/// diacritic blocks dropped, and the Latin letters that do not decompose
/// spelled in ASCII.
fn deburr(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.nfd() {
        if matches!(c, '\u{300}'..='\u{36f}' | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}') {
            continue;
        }
        match c {
            'Æ' => out.push_str("Ae"),
            'Ð' | 'Đ' => out.push('D'),
            'Ø' => out.push('O'),
            'Þ' => out.push_str("Th"),
            'ß' => out.push_str("ss"),
            'æ' => out.push_str("ae"),
            'ð' | 'đ' => out.push('d'),
            'ø' => out.push('o'),
            'þ' => out.push_str("th"),
            'Ħ' => out.push('H'),
            'ħ' => out.push('h'),
            'ı' => out.push('i'),
            'Ĳ' => out.push_str("IJ"),
            'ĳ' => out.push_str("ij"),
            'ĸ' => out.push('k'),
            'Ŀ' | 'Ł' => out.push('L'),
            'ŀ' | 'ł' => out.push('l'),
            'ŉ' => out.push_str("'n"),
            'Ŋ' => out.push('N'),
            'ŋ' => out.push('n'),
            'Œ' => out.push_str("Oe"),
            'œ' => out.push_str("oe"),
            'Ŧ' => out.push('T'),
            'ŧ' => out.push('t'),
            'ſ' => out.push('s'),
            _ => out.push(c),
        }
    }
    out
}

// ------------------------------------------------------------------ words

fn is_upper(c: char) -> bool {
    c.is_uppercase()
}

fn is_lower(c: char) -> bool {
    c.is_lowercase()
}

/// `[\p{Lm}\p{Lo}]`: a letter without case.
fn is_misc(c: char) -> bool {
    c.is_alphabetic() && !c.is_uppercase() && !c.is_lowercase()
}

fn is_misc_upper(c: char) -> bool {
    is_upper(c) || is_misc(c)
}

fn is_misc_lower(c: char) -> bool {
    is_lower(c) || is_misc(c)
}

/// `[\p{Z}\p{P}` and the Latin-1 characters that are no letters or digits`]`.
fn is_break(c: char) -> bool {
    matches!(c, '\0'..='\u{2f}' | '\u{3a}'..='\u{40}' | '\u{5b}'..='\u{60}' | '\u{7b}'..='\u{bf}' | '\u{d7}' | '\u{f7}')
        || c.is_whitespace()
        || is_punctuation(c)
}

/// The general punctuation blocks and the CJK and full-width punctuation,
/// standing in for `\p{P}`.
fn is_punctuation(c: char) -> bool {
    matches!(c, '\u{2010}'..='\u{2027}' | '\u{2030}'..='\u{205e}' | '\u{2e00}'..='\u{2e7f}' | '\u{3001}'..='\u{3003}' | '\u{3008}'..='\u{3011}' | '\u{ff01}'..='\u{ff0f}' | '\u{ff1a}'..='\u{ff20}')
}

/// The blocks that hold emoji, standing in for `\p{Emoji_Presentation}` and
/// `\p{Extended_Pictographic}`.
fn is_emoji(c: char) -> bool {
    matches!(c, '\u{a9}' | '\u{ae}' | '\u{203c}' | '\u{2049}' | '\u{2122}' | '\u{2139}'
        | '\u{2194}'..='\u{21ff}' | '\u{2300}'..='\u{23ff}' | '\u{25a0}'..='\u{27bf}'
        | '\u{2900}'..='\u{297f}' | '\u{2b00}'..='\u{2bff}' | '\u{3030}' | '\u{303d}'
        | '\u{3297}' | '\u{3299}' | '\u{1f000}'..='\u{1faff}' | '\u{1fc00}'..='\u{1fffd}')
}

fn is_js_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// es-toolkit's compat `words` (lodash's `unicodeWords`): every match of
/// its word pattern, left to right. The pattern's alternatives are tried in
/// its order at each position, as a regular expression engine does; the
/// contraction suffixes (`'s`, `'ll`, ...) are left out because the callers
/// drop apostrophes first.
fn words(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut found = Vec::new();
    let mut at = 0;
    while at < chars.len() {
        match word_at(&chars, at) {
            Some(end) => {
                found.push(chars[at..end].iter().collect());
                at = end;
            }
            None => at += 1,
        }
    }
    found
}

/// The end of the word starting at `at`, if one does.
fn word_at(chars: &[char], at: usize) -> Option<usize> {
    lower_word(chars, at)
        .or_else(|| upper_word(chars, at))
        .or_else(|| mixed_word(chars, at))
        .or_else(|| capitals(chars, at))
        .or_else(|| ordinal(chars, at, true))
        .or_else(|| ordinal(chars, at, false))
        .or_else(|| run(chars, at, |c| c.is_ascii_digit()))
        .or_else(|| chars.get(at).filter(|&&c| is_emoji(c)).map(|_| at + 1))
}

/// The end of the longest run of `class` from `at`, when it is not empty.
fn run(chars: &[char], at: usize, class: impl Fn(char) -> bool) -> Option<usize> {
    let end = at + chars[at..].iter().take_while(|&&c| class(c)).count();
    (end > at).then_some(end)
}

/// `\p{Lu}?\p{Ll}+(?=break|\p{Lu}|$)`
fn lower_word(chars: &[char], at: usize) -> Option<usize> {
    let start = if is_upper(chars[at]) { at + 1 } else { at };
    let end = run(chars, start.min(chars.len()), is_lower).or_else(|| {
        // `\p{Lu}?` gives its letter back when no lowercase follows it.
        (start > at).then(|| run(chars, at, is_lower)).flatten()
    })?;
    match chars.get(end) {
        None => Some(end),
        Some(&c) if is_break(c) || is_upper(c) => Some(end),
        Some(_) => None,
    }
}

/// `(?:\p{Lu}|misc)+(?=break|\p{Lu}(?:\p{Ll}|misc)|$)`, giving letters back
/// until the look-ahead holds (`XMLHttp` gives `XML`).
fn upper_word(chars: &[char], at: usize) -> Option<usize> {
    let longest = run(chars, at, is_misc_upper)?;
    (at + 1..=longest).rev().find(|&end| match chars.get(end) {
        None => true,
        Some(&c) if is_break(c) => true,
        Some(&c) => is_upper(c) && chars.get(end + 1).is_some_and(|&n| is_misc_lower(n)),
    })
}

/// `\p{Lu}?(?:\p{Ll}|misc)+`
fn mixed_word(chars: &[char], at: usize) -> Option<usize> {
    if is_upper(chars[at])
        && let Some(end) = chars
            .get(at + 1)
            .and_then(|_| run(chars, at + 1, is_misc_lower))
    {
        return Some(end);
    }
    run(chars, at, is_misc_lower)
}

/// `\p{Lu}+`
fn capitals(chars: &[char], at: usize) -> Option<usize> {
    run(chars, at, is_upper)
}

/// `\d*(?:1ST|2ND|3RD|(?![123])\dTH)(?=\b|[a-z_])` (`upper`) or its
/// lowercase twin `\d*(?:1st|2nd|3rd|(?![123])\dth)(?=\b|[A-Z_])`.
fn ordinal(chars: &[char], at: usize, upper: bool) -> Option<usize> {
    let digits = chars[at..]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .count();
    let suffixes: [[char; 2]; 4] = if upper {
        [['S', 'T'], ['N', 'D'], ['R', 'D'], ['T', 'H']]
    } else {
        [['s', 't'], ['n', 'd'], ['r', 'd'], ['t', 'h']]
    };
    // `\d*` gives digits back one at a time until the rest matches.
    (0..=digits).rev().find_map(|taken| {
        let digit = *chars.get(at + taken)?;
        let suffix = match digit {
            '1' => suffixes[0],
            '2' => suffixes[1],
            '3' => suffixes[2],
            '0' | '4'..='9' => suffixes[3],
            _ => return None,
        };
        let end = at + taken + 3;
        if chars.get(at + taken + 1..end)? != suffix {
            return None;
        }
        let follows = match chars.get(end) {
            None => true,
            Some(&c) if !is_js_word(c) => true,
            Some(&c) if upper => c.is_ascii_lowercase() || c == '_',
            Some(&c) => c.is_ascii_uppercase() || c == '_',
        };
        follows.then_some(end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_as_lodash_does() {
        let cases: [(&str, &[&str]); 9] = [
            ("fred, barney, & pebbles", &["fred", "barney", "pebbles"]),
            ("camelCase", &["camel", "Case"]),
            ("XMLHttpRequest", &["XML", "Http", "Request"]),
            ("snake_case-kebab", &["snake", "case", "kebab"]),
            ("v2 release", &["v", "2", "release"]),
            ("the 21st time", &["the", "21st", "time"]),
            ("11th", &["11", "th"]),
            ("ABCdef", &["AB", "Cdef"]),
            ("add ✨ sparkle", &["add", "✨", "sparkle"]),
        ];
        for (text, expected) in cases {
            assert_eq!(words(text), expected, "{text:?}");
        }
    }

    #[test]
    fn conversions_agree_with_es_toolkit() {
        assert_eq!(camel_case("Foo Bar"), "fooBar");
        assert_eq!(camel_case("HTTPRequest"), "httpRequest");
        assert_eq!(joined_lowercase("fooBar baz", "-"), "foo-bar-baz");
        assert_eq!(joined_lowercase("Foo Bar", "_"), "foo_bar");
        assert_eq!(start_case("hello world"), "Hello World");
        assert_eq!(start_case("HELLO world"), "HELLO World");
        assert_eq!(start_case("--foo-bar--"), "Foo Bar");
        assert_eq!(upper_first("élan"), "Élan");
        assert_eq!(deburr("Crème brûlée Æsir"), "Creme brulee Aesir");
    }

    #[test]
    fn quoted_parts_are_left_out() {
        assert_eq!(
            without_quoted("fix `Eslint` and \"X\" or 'y' it"),
            "fix  and  or  it"
        );
        assert_eq!(without_quoted("don't stop"), "don't stop");
        assert_eq!(without_quoted("a 'b\nc' d"), "a 'b\nc' d");
    }

    #[test]
    fn cases_decide_as_ensure_case_does() {
        use Case::*;
        let table: [(&str, Case, bool); 22] = [
            ("add parser", Lower, true),
            ("Add parser", Lower, false),
            ("ADD PARSER", Upper, true),
            ("Add parser", Sentence, true),
            ("add parser", Sentence, false),
            ("Add Parser", Start, true),
            ("Add parser", Start, false),
            ("Add", Start, true),
            ("Add", Pascal, true),
            ("AddParser", Pascal, true),
            ("addParser", Camel, true),
            ("add-parser", Kebab, true),
            ("add_parser", Snake, true),
            ("add parser", Kebab, false),
            ("Élan Vital", Start, false), // the accent is stripped
            ("`Eslint`", Sentence, true), // empty once the quotes go
            ("`Eslint` config", Sentence, false),
            ("2fa login", Upper, true), // converts to a leading digit
            ("Add `Foo`.", Start, false),
            ("mcp-server", Kebab, true),
            ("v2", Kebab, false),
            ("🚀 Launch", Sentence, true),
        ];
        for (text, case, expected) in table {
            assert_eq!(case.matches(text), expected, "{text:?} {case}");
        }
    }

    #[test]
    fn names_round_trip_and_old_spellings_parse() {
        for case in Case::ALL {
            assert_eq!(case.name().parse(), Ok(case));
        }
        assert_eq!("lowerCase".parse(), Ok(Case::Lower));
        assert_eq!("sentencecase".parse(), Ok(Case::Sentence));
        let error = "title-case".parse::<Case>().unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("unknown case `title-case`; use one of: lower-case")
        );
    }
}
