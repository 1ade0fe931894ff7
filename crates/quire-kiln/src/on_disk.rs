//! A note's or folder's path as it is written on disk.
//!
//! The kiln's paths are NFC ([`super::NotePath`]), but macOS, and files
//! synced from it, write names decomposed (NFD): the folder a user sees as
//! `résumé/` may be `re\u{301}sume\u{301}/` on disk. Each name on a path is
//! taken as written where it exists, else as the one name of its folder
//! that is the same once normalized, so a note in such a folder is found,
//! and a new note goes into the folder the user sees instead of into a
//! second one that looks the same. The file layer knows nothing of Unicode
//! normalization; the names come from [`Workspace::names_in`].

use quire_fs::Workspace;

use super::note_path::nfc;

/// `relative` (an NFC path relative to the root, `/`-separated) with each
/// name as it is written on disk: the name itself where its folder holds
/// it, else the first name of that folder (in byte order) that NFC makes
/// equal to it. From the first name that is on disk in no spelling, the
/// rest is kept as given (it does not exist yet).
pub(super) fn on_disk_spelling(workspace: &Workspace, relative: &str) -> String {
    let mut spelled = String::with_capacity(relative.len());
    let mut segments = relative.split('/').filter(|segment| !segment.is_empty());
    for segment in segments.by_ref() {
        let found = workspace.names_in(&spelled).ok().and_then(|names| {
            let names: Vec<String> = names
                .into_iter()
                .filter_map(|name| name.into_string().ok())
                .collect();
            names
                .iter()
                .find(|name| name.as_str() == segment)
                .or_else(|| names.iter().find(|name| nfc(name) == segment))
                .cloned()
        });
        push_name(&mut spelled, found.as_deref().unwrap_or(segment));
        if found.is_none() {
            break;
        }
    }
    for segment in segments {
        push_name(&mut spelled, segment);
    }
    spelled
}

fn push_name(path: &mut String, name: &str) {
    if !path.is_empty() {
        path.push('/');
    }
    path.push_str(name);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_name_is_spelled_as_on_disk() {
        let folder = tempfile::tempdir().unwrap();
        let nfd = "re\u{301}sume\u{301}";
        std::fs::create_dir_all(folder.path().join(nfd).join("2026")).unwrap();
        std::fs::write(folder.path().join(nfd).join("cafe\u{301}.md"), "").unwrap();
        std::fs::create_dir(folder.path().join("plain")).unwrap();
        let workspace = Workspace::new(folder.path()).unwrap();
        let cases = [
            ("résumé/cv.md", format!("{nfd}/cv.md")),
            ("résumé/café.md", format!("{nfd}/cafe\u{301}.md")),
            ("résumé/2026/x.md", format!("{nfd}/2026/x.md")),
            ("résumé", nfd.to_owned()),
            ("plain/new/résumé/x.md", "plain/new/résumé/x.md".to_owned()),
            ("missing/résumé", "missing/résumé".to_owned()),
            ("", String::new()),
        ];
        for (given, expected) in cases {
            assert_eq!(on_disk_spelling(&workspace, given), expected, "{given}");
        }
    }

    #[test]
    fn the_exact_name_wins_over_a_twin() {
        let folder = tempfile::tempdir().unwrap();
        std::fs::create_dir(folder.path().join("re\u{301}sume\u{301}")).unwrap();
        std::fs::create_dir(folder.path().join("résumé")).unwrap();
        let workspace = Workspace::new(folder.path()).unwrap();
        assert_eq!(on_disk_spelling(&workspace, "résumé/a.md"), "résumé/a.md");
    }
}
