//! Invariants of path parsing over arbitrary and path-shaped arguments.

use std::path::Path;

use proptest::prelude::*;

use super::{FolderPath, NotePath, is_hidden};

/// Arguments built from the pieces paths are made of, so that the
/// interesting cases (`..`, hidden names, NFD, separators) come up often.
fn path_like() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("..".to_owned()),
        Just(".".to_owned()),
        Just("".to_owned()),
        Just(".obsidian".to_owned()),
        Just("a".to_owned()),
        Just("Notes".to_owned()),
        Just("e\u{301}".to_owned()),
        Just("\u{e9}".to_owned()),
        Just("x.md".to_owned()),
        Just("C:".to_owned()),
        Just("\\".to_owned()),
        Just("\0".to_owned()),
        "[a-zA-Z0-9 ._-]{1,8}",
        any::<String>(),
    ];
    (any::<bool>(), prop::collection::vec(piece, 0..8)).prop_map(|(absolute, pieces)| {
        let joined = pieces.join("/");
        if absolute {
            format!("/vault/{joined}")
        } else {
            joined
        }
    })
}

fn assert_clean(path: &str) {
    assert!(!path.starts_with('/'), "{path:?}");
    assert!(!path.contains('\0') && !path.contains('\\'), "{path:?}");
    assert!(!is_hidden(path), "{path:?}");
    for name in path.split('/') {
        assert!(!matches!(name, "" | "." | ".."), "{path:?}");
    }
    assert!(unicode_normalization::is_nfc(path), "{path:?}");
}

proptest! {
    #[test]
    fn parsed_notes_are_clean_and_parse_back_to_themselves(
        arg in prop_oneof![path_like(), any::<String>()],
    ) {
        let root = Path::new("/vault");
        if let Ok(note) = NotePath::parse(&arg, root) {
            assert_clean(note.as_str());
            prop_assert!(note.as_str().to_ascii_lowercase().ends_with(".md"));
            let displayed = note.to_string();
            prop_assert_eq!(NotePath::parse(&displayed, root), Ok(note.clone()));
            prop_assert_eq!(NotePath::parse_relative(note.as_str()), Ok(note));
        }
    }

    #[test]
    fn parsed_folders_are_clean_and_parse_back_to_themselves(
        arg in prop_oneof![path_like(), any::<String>()],
    ) {
        let root = Path::new("/vault");
        if let Ok(folder) = FolderPath::parse(&arg, root) {
            if !folder.is_root() {
                assert_clean(folder.as_str());
            }
            let displayed = folder.to_string();
            prop_assert_eq!(FolderPath::parse(&displayed, root), Ok(folder));
        }
    }
}
