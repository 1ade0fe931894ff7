//! Moving byte offsets onto character boundaries.

/// `offset` clamped into `text` and moved back to the start of the character
/// it falls in, so `&text[..char_boundary(text, offset)]` never panics.
pub fn char_boundary(text: &str, offset: usize) -> usize {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_clamped_and_moved_back_to_a_character_start() {
        // 'é' is bytes 1..3, '€' bytes 3..6.
        let text = "aé€";
        let moved: Vec<usize> = (0..9).map(|offset| char_boundary(text, offset)).collect();
        assert_eq!(moved, [0, 1, 1, 3, 3, 3, 6, 6, 6]);
        assert_eq!(char_boundary("", 5), 0);
    }
}
