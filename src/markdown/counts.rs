//! Line numbers, the line count and the word count (the rule is in the
//! module documentation of [`markdown`](super)).

/// The start of each line, to turn offsets into 1-based lines.
pub(super) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(super) fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|at| at + 1));
        Self { starts }
    }

    /// The 1-based line `offset` is on.
    pub(super) fn line(&self, offset: usize) -> usize {
        self.starts.partition_point(|&start| start <= offset)
    }
}

/// The lines of `text`: a last line without a line ending counts.
pub(super) fn line_count(text: &str) -> usize {
    let newlines = memchr::memchr_iter(b'\n', text.as_bytes()).count();
    newlines + usize::from(!text.is_empty() && !text.ends_with('\n'))
}

/// The words of `text`.
pub(super) fn word_count(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut words = 0;
    let mut in_word = false;
    for (index, &c) in chars.iter().enumerate() {
        if is_cjk(c) {
            words += 1;
            in_word = false;
        } else if is_word_char(c) || (in_word && joins_digits(&chars, index)) {
            words += usize::from(!in_word);
            in_word = true;
        } else {
            in_word = false;
        }
    }
    words
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '-' || c == '\'' || is_combining_mark(c)
}

fn is_combining_mark(c: char) -> bool {
    unicode_normalization::char::is_combining_mark(c)
}

/// A `,` or `.` between two digits keeps a number one word.
fn joins_digits(chars: &[char], index: usize) -> bool {
    matches!(chars[index], ',' | '.')
        && index > 0
        && chars[index - 1].is_ascii_digit()
        && chars.get(index + 1).is_some_and(char::is_ascii_digit)
}

/// Han, kana, Hangul and their compatibility forms: each is a word.
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}'
        | '\u{AC00}'..='\u{D7AF}' | '\u{F900}'..='\u{FAFF}' | '\u{FF66}'..='\u{FF9F}'
        | '\u{20000}'..='\u{2FA1F}')
}
