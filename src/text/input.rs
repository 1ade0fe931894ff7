//! The input the grammars' winnow rules read.

use winnow::error::EmptyError;
use winnow::stream::{LocatingSlice, Stream};

use super::Line;

/// A winnow stream whose locations are byte offsets into the whole text.
pub(crate) type Input<'i> = LocatingSlice<&'i str>;

/// What a rule returns: it matches or it does not, without saying why.
pub(crate) type RuleResult<T> = winnow::Result<T, EmptyError>;

/// A stream over one line's content whose locations are offsets into the
/// whole text: a rule on it sees the line alone, and its spans need no
/// shifting.
pub(crate) fn line_input(text: &str, line: Line) -> Input<'_> {
    let mut input = LocatingSlice::new(&text[..line.end]);
    input.next_slice(line.start);
    input
}

#[cfg(test)]
mod tests {
    use winnow::prelude::*;
    use winnow::stream::Location;
    use winnow::token::rest;

    use super::*;
    use crate::text::split_lines;

    #[test]
    fn a_line_input_holds_the_line_at_its_offsets() {
        let text = "first\r\nsecond\r\nthird";
        let line = split_lines(text, 0, text.len())[1];
        let mut input = line_input(text, line);
        assert_eq!(input.current_token_start(), 7);
        let (content, range) = rest::<_, EmptyError>
            .with_span()
            .parse_next(&mut input)
            .unwrap();
        assert_eq!((content, range), ("second", 7..13));
    }
}
