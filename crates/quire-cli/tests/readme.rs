//! The README against the code it describes: the `serve` synopsis against
//! `quire serve --help`, the tools table against the tools served, the
//! preset tables against the presets (and their syntax examples against the
//! parser), the client configuration against what a client needs, the
//! dependency line against this package. A README that drifts fails here.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use quire_cli::mcp::{QuireServer, Toolset};
use quire_fs::Workspace;
use quire_grammar::plan::{ParseState, Preset, parse};
use serde_json::{Value, json};

const README: &str = include_str!("../../../README.md");
/// The reference pages the README links to (docs/).
const SERVER: &str = include_str!("../../../docs/server.md");
const TOOLS: &str = include_str!("../../../docs/tools.md");
const CLI: &str = include_str!("../../../docs/cli.md");
const LIBRARY: &str = include_str!("../../../docs/library.md");

/// The lines of the README's section under the heading `title`.
fn section(title: &str) -> Vec<&'static str> {
    section_of(README, title)
}

/// The lines of `document`'s section under the heading `title` (any
/// level), up to the next heading of the same or a higher level. Lines
/// inside fenced code blocks are never headings (`# the main job` in a
/// shell block).
fn section_of(document: &'static str, title: &str) -> Vec<&'static str> {
    let mut lines = Vec::new();
    let mut level = None;
    let mut in_fence = false;
    for line in document.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
        }
        let heading = (!in_fence && line.starts_with('#'))
            .then(|| {
                let hashes = line.len() - line.trim_start_matches('#').len();
                line[hashes..]
                    .strip_prefix(' ')
                    .map(|text| (hashes, text.trim()))
            })
            .flatten();
        match (level, heading) {
            (None, Some((hashes, text))) if text == title => level = Some(hashes),
            (Some(open), Some((hashes, _))) if hashes <= open => break,
            (Some(_), _) => lines.push(line),
            _ => {}
        }
    }
    assert!(level.is_some(), "no section titled {title:?}");
    lines
}

/// The fenced code blocks of `lines` whose info string is `language`.
fn code_blocks(lines: &[&str], language: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<(bool, String)> = None;
    for line in lines {
        match (&mut current, line.strip_prefix("```")) {
            (None, Some(info)) => current = Some((info.trim() == language, String::new())),
            (Some(_), Some(_)) => {
                let (wanted, text) = current.take().unwrap();
                if wanted {
                    blocks.push(text);
                }
            }
            (Some((_, text)), None) => {
                text.push_str(line);
                text.push('\n');
            }
            (None, None) => {}
        }
    }
    blocks
}

/// The Markdown tables of `lines` (outside code blocks): runs of lines that
/// start with `|`, each row split into trimmed cells, the `|---|` row left
/// out. A blank line ends a table, as it does when GitHub renders it.
fn tables(lines: &[&str]) -> Vec<Vec<Vec<String>>> {
    let mut tables = Vec::new();
    let mut current: Vec<Vec<String>> = Vec::new();
    let mut in_fence = false;
    for line in lines {
        if line.starts_with("```") {
            in_fence = !in_fence;
        }
        if !in_fence && line.starts_with('|') {
            let row = cells(line);
            if !row.iter().all(|cell| cell.chars().all(|c| c == '-')) {
                current.push(row);
            }
        } else if !current.is_empty() {
            tables.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        tables.push(current);
    }
    tables
}

/// `| a | b \| c |` -> `["a", "b | c"]`.
fn cells(row: &str) -> Vec<String> {
    let inner = row.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = vec![String::new()];
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&'|') => {
                cells.last_mut().unwrap().push('|');
                chars.next();
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut().unwrap().push(c),
        }
    }
    cells
        .into_iter()
        .map(|cell| cell.trim().to_owned())
        .collect()
}

/// The text of every `code span` in `cell`.
fn code_spans(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The one table of `lines` whose header row starts with `header`.
fn table_headed<const N: usize>(lines: &[&str], header: [&str; N]) -> Vec<Vec<String>> {
    let mut found: Vec<_> = tables(lines)
        .into_iter()
        .filter(|table| table[0].starts_with(&header.map(str::to_owned)))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "expected one table headed {header:?}, found {}",
        found.len()
    );
    found.pop().unwrap()
}

/// Each option of `quire serve --help`, and whether it takes a value.
fn serve_help_flags() -> BTreeMap<String, bool> {
    let output = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["serve", "--help"])
        .output()
        .expect("quire runs");
    assert!(output.status.success(), "quire serve --help failed");
    let help = String::from_utf8(output.stdout).unwrap();
    let flags: BTreeMap<String, bool> = help
        .lines()
        .filter_map(|line| {
            let option = line.trim_start();
            let option = option.strip_prefix("-h, ").unwrap_or(option);
            let option = option.strip_prefix("-V, ").unwrap_or(option);
            let name = option.strip_prefix("--")?;
            let (name, rest) = name.split_once(' ').unwrap_or((name, ""));
            (!name.is_empty() && !matches!(name, "help" | "version"))
                .then(|| (format!("--{name}"), rest.trim_start().starts_with('<')))
        })
        .collect();
    assert!(
        flags.contains_key("--root"),
        "could not read the options of:\n{help}"
    );
    flags
}

/// The toolsets and tools the README documents that this build lacks: the
/// nova ones, without the `nova` feature.
#[cfg(feature = "nova")]
const UNBUILT: (&[&str], &[&str]) = (&[], &[]);
#[cfg(not(feature = "nova"))]
const UNBUILT: (&[&str], &[&str]) = (
    &["nova"],
    &[
        "update_execution_session",
        "create_step",
        "update_step",
        "health_check",
    ],
);

/// Every tool the README documents: those the server can offer (the write
/// tools with `--writes allow`), and those of features this build lacks.
fn documented_tool_names() -> BTreeSet<String> {
    let mut names = served_tool_names();
    names.extend(UNBUILT.1.iter().map(|name| name.to_string()));
    names
}

/// Every tool the server can offer (the write tools with `--writes allow`).
fn served_tool_names() -> BTreeSet<String> {
    let folder = tempfile::tempdir().unwrap();
    let server =
        QuireServer::new(Workspace::new(folder.path()).unwrap(), &Toolset::ALL).allowing_writes();
    server
        .tools()
        .into_iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

/// The tools a server of `toolset` alone can offer (writes allowed).
fn tools_of(toolset: Toolset) -> usize {
    let folder = tempfile::tempdir().unwrap();
    QuireServer::new(Workspace::new(folder.path()).unwrap(), &[toolset])
        .allowing_writes()
        .tools()
        .len()
}

#[test]
fn each_toolsets_tool_count_is_the_one_served() {
    // The list at the top: "- **`kiln`** (13 tools): ...".
    let mut counted = 0;
    for line in README.lines() {
        let Some(rest) = line.strip_prefix("- **`") else {
            continue;
        };
        let Some((name, rest)) = rest.split_once("`** (") else {
            continue;
        };
        let Some((count, _)) = rest.split_once(" tool") else {
            continue;
        };
        let Some(toolset) = Toolset::ALL.iter().find(|toolset| toolset.name() == name) else {
            assert!(
                UNBUILT.0.contains(&name),
                "the README lists a toolset `{name}` that does not exist"
            );
            continue;
        };
        assert_eq!(
            count.parse::<usize>().ok(),
            Some(tools_of(*toolset)),
            "the README says `{name}` has {count} tools"
        );
        counted += 1;
    }
    assert_eq!(
        counted,
        Toolset::ALL.len(),
        "a toolset is missing from the README's list"
    );
}

#[test]
fn the_two_commands_are_the_main_job_and_the_whole_suite() {
    let commands: Vec<String> = code_blocks(&section("Two commands"), "sh")
        .concat()
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(str::to_owned)
        .collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -- serve --root examples/vault",
            "bash .ci/test"
        ]
    );
}

#[test]
fn serve_synopsis_lists_every_option_of_serve_help() {
    let synopsis = code_blocks(&section_of(SERVER, "The MCP server"), "text")
        .into_iter()
        .find(|block| block.starts_with("quire serve "))
        .expect("a ```text block starting with `quire serve` in \"The MCP server\"");
    let words: Vec<&str> = synopsis
        .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
        .filter(|word| !word.is_empty())
        .collect();
    let documented: BTreeMap<String, bool> = words
        .iter()
        .enumerate()
        .filter(|(_, word)| word.starts_with("--"))
        .map(|(at, word)| {
            let takes_value = words
                .get(at + 1)
                .is_some_and(|next| next.chars().all(|c| c.is_ascii_uppercase()));
            (word.to_string(), takes_value)
        })
        .collect();
    assert_eq!(
        documented,
        serve_help_flags(),
        "the README's `quire serve` synopsis (flag -> takes a value) differs from `quire serve --help`"
    );
}

#[test]
fn tools_table_is_one_table_of_every_served_tool() {
    let served = documented_tool_names();
    let table = table_headed(&section_of(TOOLS, "The tools"), ["tool", "what it does"]);
    let listed: Vec<String> = table[1..]
        .iter()
        .map(|row| code_spans(&row[0]).concat())
        .collect();
    let unique: BTreeSet<String> = listed.iter().cloned().collect();
    assert_eq!(
        listed.len(),
        unique.len(),
        "a tool listed twice: {listed:?}"
    );
    assert_eq!(
        unique, served,
        "the README's tools table (one table: a blank line inside splits it) differs from the tools served"
    );
    // No other row anywhere names a served tool (a second table, or a run
    // of rows after a blank line, which renders as text).
    let rows_naming_a_tool = tables(&TOOLS.lines().collect::<Vec<_>>())
        .into_iter()
        .flatten()
        .filter(|row| served.contains(code_spans(&row[0]).concat().as_str()))
        .count();
    assert_eq!(
        rows_naming_a_tool,
        served.len(),
        "a tool row outside the tools table"
    );
}

/// `100000` -> `100 000`, as the README writes numbers.
fn grouped(number: usize) -> String {
    let digits = number.to_string();
    let mut grouped = String::new();
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            grouped.push(' ');
        }
        grouped.push(digit);
    }
    grouped
}

fn plural(count: usize, unit: &str) -> String {
    if count == 1 {
        format!("{count} {unit}")
    } else {
        format!("{count} {unit}s")
    }
}

#[test]
fn preset_limits_table_holds_each_presets_limits() {
    let limits = table_headed(
        &section_of(CLI, "The command line"),
        ["preset", "longest title"],
    );
    assert_eq!(limits.len(), 1 + Preset::ALL.len(), "{limits:?}");
    for preset in Preset::ALL {
        let config = preset.config();
        let name = format!("`{}`", preset.name());
        let row = limits
            .iter()
            .find(|row| row[0].starts_with(&name))
            .unwrap_or_else(|| panic!("no limits row for {name}"));
        let halt = match config.direction_halt_length.filter(|&n| n > 0) {
            Some(length) => plural(length, "character"),
            None => "(never)".to_owned(),
        };
        let expected = [
            row[0].clone(),
            plural(config.max_title_length, "character"),
            format!("{} characters", grouped(config.max_input_length)),
            plural(config.max_nesting_depth, "level"),
            config.max_task_count.to_string(),
            halt,
        ];
        assert_eq!(row[..], expected[..], "the README's limits of {name}");
    }
}

#[test]
fn preset_syntax_table_examples_parse_with_their_preset() {
    let table = table_headed(&section_of(CLI, "The command line"), ["preset", "header"]);
    assert_eq!(
        table[0],
        ["preset", "header", "constraint", "task", "indent per level"]
    );
    assert_eq!(table.len(), 1 + Preset::ALL.len(), "{table:?}");
    let default_row = table
        .iter()
        .find(|row| row[0] == "`commit-message` (default)")
        .expect("a row for the default preset, marked (default)")
        .clone();
    for preset in Preset::ALL {
        let name = format!("`{}`", preset.name());
        let row = table
            .iter()
            .find(|row| row[0].starts_with(&name))
            .unwrap_or_else(|| panic!("no syntax row for {name}"));
        let cell = |column: usize| {
            if row[column] == "as `commit-message`" {
                default_row[column].clone()
            } else {
                row[column].clone()
            }
        };
        let config = preset.config();
        assert_eq!(
            cell(4),
            plural(config.indent_size, "space"),
            "indentation of {name}"
        );
        // The first example of each column, put together, is a plan this
        // preset parses with nothing ignored.
        let (header, constraint, task) = (cell(1), cell(2), cell(3));
        let (header, constraint) = (code_spans(&header)[0], code_spans(&constraint)[0]);
        let [open_task, done_task, ..] = code_spans(&task)[..] else {
            panic!("{name}: the task column shows an open and a done task: {task}");
        };
        let indent = " ".repeat(config.indent_size);
        let text = format!(
            "{header}\n\nWhat the plan is for.\n\n{constraint}\n\n{open_task}\n{indent}{done_task}\n"
        );
        let outcome = parse(&text, &config);
        assert_eq!(outcome.state, ParseState::Parsed, "{name}:\n{text}");
        assert!(
            outcome.diagnostics.is_empty(),
            "{name}: {:?}",
            outcome.diagnostics
        );
        let parsed = serde_json::to_value(&outcome.document).unwrap();
        assert_eq!(parsed["header"]["title"], "Title", "{name}: {parsed}");
        let key = constraint.split(':').next().unwrap();
        let key = key.trim_start_matches(['-', '>', ' ']);
        assert_eq!(
            parsed["constraints"],
            json!([[key, "value"]]),
            "{name}: {parsed}"
        );
        assert_eq!(
            parsed["tasks"],
            json!([[false, "text", [[true, "text", []]]]]),
            "{name}: {parsed}"
        );
    }
}

#[test]
fn client_configuration_parses_and_uses_absolute_paths() {
    let blocks = code_blocks(&section("Client configuration"), "json");
    assert_eq!(blocks.len(), 1, "one JSON client configuration");
    let config: Value = serde_json::from_str(&blocks[0])
        .unwrap_or_else(|error| panic!("the client configuration is not JSON: {error}"));
    let bundled: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/claude_desktop_config.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        config, bundled,
        "examples/claude_desktop_config.json is the README's client configuration"
    );
    let servers = config["mcpServers"]
        .as_object()
        .expect("an mcpServers object");
    assert!(servers.len() >= 2, "a vault entry and a planner entry");
    let flags = serve_help_flags();
    let mut roots = BTreeSet::new();
    let mut toolsets = BTreeSet::new();
    for (name, server) in servers {
        let command = server["command"].as_str().expect("a command");
        let args: Vec<&str> = server["args"]
            .as_array()
            .expect("args")
            .iter()
            .map(|arg| arg.as_str().expect("string args"))
            .collect();
        assert_eq!(args.first(), Some(&"serve"), "{name}");
        for text in std::iter::once(command).chain(args.iter().copied()) {
            assert!(
                !text.contains('~') && !text.contains('$'),
                "{name}: {text:?} needs a shell to expand it; JSON is not expanded"
            );
        }
        assert!(
            command.starts_with('/'),
            "{name}: command {command:?} is not absolute"
        );
        if let Some(env) = server.get("env") {
            let env = env.as_object().expect("env is an object");
            let variables = [
                "USE_MOCK_CLIENT",
                "TASK_MANAGER_HOST",
                "TASK_MANAGER_PORT",
                "TASK_MANAGER_TIMEOUT",
            ];
            for variable in env.keys() {
                assert!(
                    variables.contains(&variable.as_str()),
                    "{name}: quire reads no {variable}"
                );
            }
            #[cfg(feature = "nova")]
            quire_nova::ClientConfig::from_env(|variable| {
                env.get(variable)
                    .map(|value| value.as_str().expect("string values").to_owned())
            })
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        }
        let mut rest = args[1..].iter();
        let mut served = None;
        while let Some(flag) = rest.next() {
            let takes_value = *flags
                .get(*flag)
                .unwrap_or_else(|| panic!("{name}: `quire serve` has no option {flag}"));
            let value = if takes_value {
                *rest
                    .next()
                    .unwrap_or_else(|| panic!("{name}: {flag} without a value"))
            } else {
                ""
            };
            match *flag {
                "--root" | "--plan-file" => {
                    assert!(
                        value.starts_with('/'),
                        "{name}: {flag} {value:?} is not absolute"
                    );
                    if *flag == "--root" {
                        roots.insert(value);
                    }
                }
                "--tools" => {
                    let named: Vec<&str> = value.split(',').collect();
                    for toolset in &named {
                        assert!(
                            toolset.parse::<Toolset>().is_ok() || UNBUILT.0.contains(toolset),
                            "{name}: no toolset {toolset:?}"
                        );
                    }
                    served = Some(named);
                }
                _ => {}
            }
        }
        let served = served.unwrap_or_else(|| panic!("{name}: no --tools"));
        toolsets.extend(served);
    }
    assert_eq!(roots.len(), servers.len(), "each entry has its own --root");
    let every: BTreeSet<&str> = Toolset::ALL
        .map(Toolset::name)
        .into_iter()
        .chain(UNBUILT.0.iter().copied())
        .collect();
    assert_eq!(toolsets, every, "the entries together serve every toolset");
}

#[test]
fn library_dependency_line_names_this_package() {
    let lines = section("The library");
    let toml = code_blocks(&lines, "toml").concat();
    // The grammar library's package, the root of the workspace.
    let package = "quire-grammar";
    let version = env!("CARGO_PKG_VERSION");
    let dependency = toml
        .lines()
        .find(|line| !line.starts_with('[') && !line.trim().is_empty())
        .expect("a dependency line");
    let (major, minor) = {
        let mut parts = version.split('.');
        (parts.next().unwrap(), parts.next().unwrap())
    };
    let expected_start = format!("{package} = {{ version = \"{major}.{minor}\" }}");
    assert!(
        dependency.starts_with(&expected_start),
        "the README's dependency line is {dependency:?}; it should start with {expected_start:?}"
    );
    // The snippet below it uses the library's crate name, `quire_grammar`;
    // the README's Rust blocks run as the grammar crate's doc tests
    // (src/lib.rs).
    let rust = code_blocks(&lines, "rust").concat();
    assert!(rust.starts_with("use quire_grammar::"), "{rust}");
}

#[test]
fn library_report_is_what_miette_shows() {
    // The library page's example error, and the report shown for it beneath.
    const NOT_A_PLAN: &str = "fix(io): Retry\nFlaky disks.\n";
    let lines = section_of(LIBRARY, "The library");
    let rust = code_blocks(&lines, "rust").concat();
    let literal = format!("PlanDocument::parse({:?})", NOT_A_PLAN);
    assert!(rust.contains(&literal), "the example parses {literal}");
    let shown_in_readme = code_blocks(&lines, "text")
        .into_iter()
        .next()
        .expect("a text block with the report");
    let error = quire_grammar::plan::PlanDocument::parse(NOT_A_PLAN).unwrap_err();
    let mut rendered = String::new();
    miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor())
        .with_width(80)
        .render_report(&mut rendered, &error)
        .unwrap();
    let trimmed = |text: &str| -> Vec<String> {
        let lines: Vec<String> = text
            .lines()
            .map(|line| line.trim_end().to_owned())
            .collect();
        let end = lines
            .iter()
            .rposition(|line| !line.is_empty())
            .map_or(0, |at| at + 1);
        lines[..end].to_vec()
    };
    assert_eq!(
        trimmed(&shown_in_readme),
        trimmed(&rendered),
        "the README's report is out of date; it is now\n{rendered}"
    );
}

#[test]
fn a_root_written_with_a_tilde_is_not_expanded() {
    // What the README warns of: a client passes `~/notes` through as it is
    // (no shell), and the server, which expands nothing either, does not
    // start, even though $HOME/notes exists.
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir(home.path().join("notes")).unwrap();
    let working_folder = tempfile::tempdir().unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_quire"))
        .args(["serve", "--root", "~/notes", "--tools", "tracker"])
        .current_dir(working_folder.path())
        .env("HOME", home.path())
        .stdin(std::process::Stdio::null())
        .output()
        .expect("quire runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("~/notes") && stderr.contains("not found"),
        "{stderr}"
    );
}

#[test]
fn the_quire_toml_example_is_a_configuration_quire_takes() {
    let start = CLI.find("```toml\n[commit]").expect("a quire.toml example") + "```toml\n".len();
    let end = start + CLI[start..].find("```").unwrap();
    let config = quire_grammar::commit::config::CommitConfig::parse(&CLI[start..end])
        .unwrap_or_else(|error| panic!("the README's quire.toml: {error}"));
    config
        .lint_rules()
        .unwrap_or_else(|error| panic!("the README's quire.toml: {error}"));
    assert_eq!(
        config.scopes.as_deref(),
        Some(&["cli".to_owned(), "mcp".to_owned()][..])
    );
}

/// The features a manifest's `[features]` table declares, and its
/// `default` list.
fn features_of(manifest: &str) -> (BTreeSet<String>, Vec<String>) {
    let table = manifest
        .split("\n[features]\n")
        .nth(1)
        .expect("a [features] table")
        .split("\n[")
        .next()
        .unwrap_or_default();
    let mut names = BTreeSet::new();
    let mut default = Vec::new();
    for line in table.lines().filter(|line| !line.starts_with('#')) {
        let Some((name, list)) = line.split_once(" = [") else {
            continue;
        };
        if name == "default" {
            default = list
                .trim_end_matches(']')
                .split(',')
                .map(|item| item.trim().trim_matches('"').to_owned())
                .filter(|item| !item.is_empty())
                .collect();
        } else {
            names.insert(name.to_owned());
        }
    }
    (names, default)
}

#[test]
fn the_readmes_feature_claims_are_the_manifests() {
    // quire-cli: "Its features: `mcp` (...), `semantic` (...), `nova` (...);
    // all on by default."
    let (features, default) = features_of(include_str!("../Cargo.toml"));
    let install = section("Install").join("\n");
    // Each feature is a code span followed by what it adds in parentheses.
    let list = install
        .split("Its features:")
        .nth(1)
        .expect("the Install section lists the features")
        .split("all on by default")
        .next()
        .unwrap_or_default();
    let parts: Vec<&str> = list.split('`').collect();
    let claimed: BTreeSet<String> = parts
        .iter()
        .enumerate()
        .skip(1)
        .step_by(2)
        .filter(|(at, _)| {
            parts
                .get(at + 1)
                .is_some_and(|after| after.trim_start().starts_with('('))
        })
        .map(|(_, name)| (*name).to_owned())
        .collect();
    assert_eq!(claimed, features, "the README's features of quire-cli");
    assert_eq!(
        default.iter().cloned().collect::<BTreeSet<_>>(),
        features,
        "the README says every feature is on by default"
    );
    // quire-grammar: "the features `frontmatter` (...) and `markdown` (...)".
    let (grammar_features, grammar_default) = features_of(include_str!("../../../Cargo.toml"));
    let library = section("The library").join("\n");
    for feature in &grammar_features {
        assert!(
            library.contains(&format!("`{feature}`")),
            "the README's library section names the grammar's feature {feature}"
        );
    }
    assert!(
        grammar_default.is_empty(),
        "the README says the grammars are opt-in"
    );
}

#[test]
fn the_commit_checkers_build_has_no_server_in_it() {
    // "the commit checker alone builds ... without the MCP server (no
    // tokio, no rmcp)".
    let install = section("Install").join("\n");
    assert!(install.contains("--no-default-features"), "{install}");
    assert!(install.contains("(no tokio, no rmcp)"), "{install}");
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let output = Command::new(env!("CARGO"))
        .args(["tree", "--manifest-path", manifest, "-p", "quire-cli"])
        .args([
            "--no-default-features",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let tree = String::from_utf8_lossy(&output.stdout);
    for server_crate in ["tokio", "rmcp", "schemars", "hyper", "candle-core"] {
        assert!(
            !tree
                .lines()
                .any(|line| line.starts_with(&format!("{server_crate} "))),
            "the commit checker's build pulls in {server_crate}"
        );
    }
}
