//! What a `quire` built without some features says when asked for a
//! command it lacks: which feature adds it and how to install a quire that
//! has it, instead of clap's "unrecognized subcommand".

use std::ffi::OsStr;

/// The commands each optional feature adds: `(command, feature, what it is)`.
const OPTIONAL_COMMANDS: [(&str, &str, &str, bool); 4] = [
    ("serve", "mcp", "the MCP server", cfg!(feature = "mcp")),
    ("call", "mcp", "the MCP server", cfg!(feature = "mcp")),
    ("index", "mcp", "the MCP server", cfg!(feature = "mcp")),
    (
        "models",
        "semantic",
        "semantic search's in-process embedders",
        cfg!(feature = "semantic"),
    ),
];

/// Why `command` (the first argument) cannot run in this build, when it
/// names a command a feature left out; `None` otherwise.
pub(super) fn command_not_built(command: Option<&OsStr>) -> Option<String> {
    let command = command?.to_str()?;
    let (_, feature, what, _) = OPTIONAL_COMMANDS
        .iter()
        .find(|(name, _, _, built)| *name == command && !built)?;
    Some(format!(
        "`quire {command}` is not in this build: it was built without the `{feature}` feature ({what}). Install \
         the full quire with `cargo install --locked --path crates/quire-cli` (every feature is on by default)"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_left_out_of_the_build_names_its_feature() {
        for (command, feature, _, built) in OPTIONAL_COMMANDS {
            let said = command_not_built(Some(OsStr::new(command)));
            assert_eq!(said.is_none(), built, "{command}");
            if let Some(said) = said {
                assert!(said.contains(&format!("`{feature}` feature")), "{said}");
            }
        }
        assert_eq!(command_not_built(Some(OsStr::new("check"))), None);
        assert_eq!(command_not_built(None), None);
    }
}
