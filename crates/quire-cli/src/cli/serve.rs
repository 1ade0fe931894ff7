//! `quire serve` and `quire call`: the MCP server, and one tool call through
//! it from the shell.

use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, bail};
use quire_cli::mcp::{self, HttpLimits, QuireServer, Toolset, WritePolicy};
use quire_fs::Workspace;
use quire_kiln::KilnOptions;

use super::{EmbedderArgs, HttpLimitArgs, Outcome, ask, output};

/// Parses `--tools tracker,planner` ([`Toolset::DEFAULT`] when absent:
/// every toolset of this build but nova).
pub(super) fn toolsets(list: Option<&str>) -> anyhow::Result<Vec<Toolset>> {
    let Some(list) = list else {
        return Ok(Toolset::DEFAULT.to_vec());
    };
    let mut chosen = Vec::new();
    for name in list.split(',').filter(|name| !name.trim().is_empty()) {
        let toolset: Toolset = name.parse()?;
        if !chosen.contains(&toolset) {
            chosen.push(toolset);
        }
    }
    if chosen.is_empty() {
        bail!("--tools is empty; name at least one toolset, e.g. --tools tracker");
    }
    Ok(chosen)
}

fn server(
    root: &Path,
    tools: Option<&str>,
    plan_file: Option<PathBuf>,
    kiln: KilnOptions,
    writes: WritePolicy,
) -> anyhow::Result<QuireServer> {
    let workspace = Workspace::new(root)
        .with_context(|| format!("cannot open the workspace root {}", root.display()))?;
    if let Some(plan_file) = &plan_file {
        // The plan file obeys the rules of every tool path; say so now
        // rather than on the first planner call.
        quire_planner::store::FileStore::new(workspace.clone(), plan_file)
            .map_err(|error| anyhow::anyhow!("--plan-file: {error}"))?;
    }
    let server = QuireServer::with_kiln_options(workspace, &toolsets(tools)?, kiln)
        .with_plan_file(plan_file);
    Ok(server.with_writes(writes))
}

/// The kiln's options for one call from the shell: no watcher, since the
/// index lives only for that call, and no index until the call needs one.
fn one_call() -> KilnOptions {
    KilnOptions {
        watch: false,
        index_at_start: false,
        ..KilnOptions::default()
    }
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: warnings, and quire's
/// own info lines).
pub(super) fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,quire=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

pub(super) fn serve(
    root: &Path,
    tools: Option<&str>,
    http: Option<&str>,
    plan_file: Option<PathBuf>,
    http_limits: &HttpLimitArgs,
    kiln: KilnOptions,
    writes: WritePolicy,
) -> anyhow::Result<Outcome> {
    // Logging first: making the server may warn (a nova variable that
    // cannot be used).
    init_logging();
    let server = server(root, tools, plan_file, kiln, writes)?;
    let address = http.map(parse_loopback).transpose()?;
    let runtime = runtime()?;
    let served = match address {
        Some(address) => runtime.block_on(mcp::serve_http(server, address, limits(http_limits))),
        None => runtime.block_on(mcp::serve_stdio(server)).map(|_| ()),
    };
    // A tool call may still be blocked in a thread (a `git` that hangs):
    // the server has stopped, so do not wait for it.
    runtime.shutdown_background();
    served.map_err(|error| anyhow::anyhow!("the MCP server stopped: {error}"))?;
    Ok(Outcome::Success)
}

/// The server's limits, changed where the command line says so.
fn limits(args: &HttpLimitArgs) -> HttpLimits {
    let mut limits = HttpLimits::default();
    if let Some(timeout) = args.http_header_timeout {
        limits.header_read_timeout = timeout;
    }
    if let Some(timeout) = args.http_body_timeout {
        limits.body_read_timeout = timeout;
    }
    if let Some(timeout) = args.http_session_idle_timeout {
        limits.session_idle_timeout = timeout;
    }
    if let Some(sessions) = args.http_max_sessions {
        limits.max_sessions = sessions as usize;
    }
    limits
}

/// `500ms`, `30s`, `10m`, `1h`, or a number of seconds.
pub(super) fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let invalid = || format!("`{text}` is not a duration; write e.g. 500ms, 30s, 10m or 1h");
    let number: u64 = number.parse().map_err(|_| invalid())?;
    let duration = match unit.trim() {
        "ms" => Duration::from_millis(number),
        "" | "s" => Duration::from_secs(number),
        "m" => Duration::from_secs(number.saturating_mul(60)),
        "h" => Duration::from_secs(number.saturating_mul(3600)),
        _ => return Err(invalid()),
    };
    if duration.is_zero() {
        return Err(format!("`{text}` is zero; give a duration above zero"));
    }
    Ok(duration)
}

fn parse_loopback(address: &str) -> anyhow::Result<SocketAddr> {
    let parsed: SocketAddr = address
        .parse()
        .with_context(|| format!("--http `{address}` is not an address; use 127.0.0.1:PORT"))?;
    if !parsed.ip().is_loopback() {
        bail!(
            "--http {address} is not a loopback address; quire serves only this machine (use 127.0.0.1:PORT or [::1]:PORT)"
        );
    }
    Ok(parsed)
}

/// `quire call`: one tool call, or without a tool the list of tools.
pub(super) fn call(
    tool: Option<&str>,
    arguments: Option<&str>,
    root: &Path,
    tools: Option<&str>,
    plan_file: Option<PathBuf>,
    writes: WritePolicy,
    embedder: &EmbedderArgs,
) -> anyhow::Result<Outcome> {
    embedder.check()?;
    let Some(tool) = tool else {
        // The list does not depend on the plan file.
        let server = server(root, tools, None, one_call(), writes)?;
        output::stdout(&tool_list(&server))?;
        return Ok(Outcome::Success);
    };
    let text = match arguments {
        None => "{}".to_owned(),
        Some("-") => {
            // As much as one MCP message may hold, and not a byte more.
            const MAX_ARGUMENTS_BYTES: u64 = 16 * 1024 * 1024;
            let mut bytes = Vec::new();
            std::io::stdin()
                .take(MAX_ARGUMENTS_BYTES + 1)
                .read_to_end(&mut bytes)
                .map_err(|error| {
                    anyhow::anyhow!(
                        "cannot read the arguments from standard input: {}",
                        output::io_words(&error)
                    )
                })?;
            if bytes.len() as u64 > MAX_ARGUMENTS_BYTES {
                bail!(
                    "the arguments on standard input are longer than 16 MiB, the most one MCP message may hold"
                );
            }
            String::from_utf8(bytes).map_err(|_| {
                anyhow::anyhow!("the arguments on standard input are not UTF-8 text")
            })?
        }
        Some(text) => text.to_owned(),
    };
    let arguments = match serde_json::from_str::<serde_json::Value>(&text) {
        Ok(serde_json::Value::Object(object)) => object,
        Ok(_) => bail!(
            "the arguments must be a JSON object, e.g. '{{\"tracker_path\": \"trackers/acme.md\"}}'"
        ),
        Err(error) => bail!("the arguments are not valid JSON: {error}"),
    };
    let mut options = one_call();
    match tool {
        // Only a semantic search loads a model and embeds the notes: it
        // waits until every note is embedded, since the call ends with its
        // answer.
        "semantic_search" => {
            options.embedder = embedder.source()?;
            options.budget = Duration::from_secs(24 * 3600);
        }
        // Its `semantic` block names the embedder semantic_search would
        // use (or why there is none); nothing is loaded.
        "get_kiln_info" => options.embedder = embedder.source()?,
        _ => {}
    }
    let server = server(root, tools, plan_file, options, writes)?;
    if !server.tools().iter().any(|served| served.name == tool) {
        bail!("{}", unknown_tool(&server, tool, tools, writes));
    }
    if embedder.given() && !matches!(tool, "semantic_search" | "get_kiln_info") {
        // Not an error: the call does what was asked, the flags are moot.
        output::stderr(&format!(
            "note: --embedder, --embedder-url, --embedder-model and --models-dir are for semantic_search \
             (and get_kiln_info's `semantic` block); `{tool}` does not use them"
        ));
    }
    // With --writes ask, the terminal answers the server's questions: a
    // write, or a folder outside the root for a note tool.
    let terminal = match writes {
        WritePolicy::Ask => ask::terminal(),
        WritePolicy::Allow | WritePolicy::Deny => None,
    };
    if terminal.is_none() && writes == WritePolicy::Ask && QuireServer::is_write_tool(tool) {
        bail!(
            "`{tool}` changes notes, and with --writes ask (the default) every change is put to you first, but \
             there is no terminal to ask on; nothing was written. Pass --writes allow to write without asking"
        );
    }
    let runtime = runtime()?;
    let outcome = match terminal {
        Some(terminal) => runtime.block_on(mcp::call_in_process_asking(
            server, tool, arguments, terminal,
        )),
        None => runtime.block_on(mcp::call_in_process(server, tool, arguments)),
    }
    .map_err(|error| anyhow::anyhow!("the call to `{tool}` failed: {error}"))?;
    output::stdout_json(&outcome.value)?;
    Ok(if outcome.is_error {
        Outcome::Findings
    } else {
        Outcome::Success
    })
}

/// The served tools, one a line: the name and the first sentence of its
/// description.
fn tool_list(server: &QuireServer) -> String {
    let mut tools = server.tools();
    tools.sort_by(|a, b| a.name.cmp(&b.name));
    let width = tools.iter().map(|tool| tool.name.len()).max().unwrap_or(0);
    tools
        .iter()
        .map(|tool| {
            let description = tool.description.as_deref().unwrap_or_default();
            format!("{:width$}  {}\n", tool.name, first_sentence(description))
        })
        .collect()
}

/// The first sentence of `text` (up to a `.` that ends a word), cut at a
/// word boundary before 110 characters.
fn first_sentence(text: &str) -> String {
    const LONGEST: usize = 110;
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let sentence = match text.find(". ") {
        Some(end) => &text[..=end],
        None => text.as_str(),
    };
    if sentence.chars().count() <= LONGEST {
        return sentence.to_owned();
    }
    let cut = sentence
        .char_indices()
        .nth(LONGEST)
        .map_or(sentence.len(), |(at, _)| at);
    let cut = sentence[..cut].rfind(' ').unwrap_or(cut);
    format!("{} ...", sentence[..cut].trim_end_matches([',', ';', ':']))
}

/// Why `tool` cannot be called, and which tools can.
fn unknown_tool(
    server: &QuireServer,
    tool: &str,
    tools: Option<&str>,
    writes: WritePolicy,
) -> String {
    let shown = quire_grammar::diagnostics::one_line(tool);
    let mut names: Vec<String> = server.tools().iter().map(|t| t.name.to_string()).collect();
    names.sort();
    let served: Vec<&str> = server.toolsets().iter().map(|t| t.name()).collect();
    let kiln_served = server.toolsets().contains(&Toolset::Kiln);
    let reason = match Toolset::of_tool(tool) {
        _ if kiln_served && writes == WritePolicy::Deny && QuireServer::is_write_tool(tool) => {
            format!(
                "`{shown}` writes notes, and --writes deny leaves the write tools out; use --writes ask (asks before \
             each change) or --writes allow"
            )
        }
        Some(toolset) if tools.is_none() => format!(
            "`{shown}` belongs to the {toolset} toolset, which is served only when named: pass `--tools {toolset}` \
             (or `--tools {},{toolset}` to keep the others)",
            served.join(",")
        ),
        Some(toolset) => format!(
            "`{shown}` belongs to the {toolset} toolset, which `--tools {}` leaves out; add it (`--tools {},{toolset}`){}",
            tools.unwrap_or_default(),
            served.join(","),
            if Toolset::DEFAULT.contains(&toolset) {
                " or leave --tools out"
            } else {
                ""
            }
        ),
        None => format!("there is no tool `{shown}`"),
    };
    format!(
        "{reason}. The tools served ({}) are: {}. Run `quire call` without a tool to see what each does",
        served.join(", "),
        names.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolset_lists() {
        assert_eq!(toolsets(None).unwrap(), Toolset::DEFAULT.to_vec());
        #[cfg(feature = "nova")]
        assert_eq!(
            toolsets(Some("kiln,nova")).unwrap(),
            vec![Toolset::Kiln, Toolset::Nova]
        );
        assert_eq!(
            toolsets(Some("tracker, tracker")).unwrap(),
            vec![Toolset::Tracker]
        );
        let known = if cfg!(feature = "nova") {
            "tracker, planner, kiln, nova"
        } else {
            "tracker, planner, kiln"
        };
        assert_eq!(
            toolsets(Some("nope")).unwrap_err().to_string(),
            format!("unknown toolset `nope`; this build has: {known}")
        );
        assert!(toolsets(Some(",")).is_err());
        let nova = toolsets(Some("nova")).map_err(|error| error.to_string());
        if cfg!(feature = "nova") {
            assert!(nova.is_ok());
        } else {
            assert_eq!(
                nova.unwrap_err(),
                "unknown toolset `nova`; this build has: tracker, planner, kiln (`nova` needs quire built with the `nova` feature: `cargo install --path . --features nova`)"
            );
        }
    }

    /// A nova tool called without `--tools` says that nova must be named.
    #[cfg(feature = "nova")]
    #[test]
    fn a_nova_tool_needs_its_toolset_named() {
        let folder = tempfile::tempdir().unwrap();
        let workspace = Workspace::new(folder.path()).unwrap();
        let server = QuireServer::new(workspace.clone(), &Toolset::DEFAULT);
        let message = unknown_tool(&server, "create_step", None, WritePolicy::Ask);
        assert!(
            message.starts_with(
                "`create_step` belongs to the nova toolset, which is served only when named: pass `--tools nova`"
            ),
            "{message}"
        );
        let kiln = QuireServer::new(workspace, &[Toolset::Kiln]);
        let message = unknown_tool(&kiln, "update_step", Some("kiln"), WritePolicy::Ask);
        assert!(
            message.starts_with(
                "`update_step` belongs to the nova toolset, which `--tools kiln` leaves out; add it (`--tools kiln,nova`). "
            ),
            "{message}"
        );
    }

    #[test]
    fn durations_take_a_unit() {
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("12"), Ok(Duration::from_secs(12)));
        assert_eq!(parse_duration("10m"), Ok(Duration::from_secs(600)));
        assert_eq!(parse_duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in ["", "s", "1.5s", "-1s", "10 years", "0s"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn only_loopback_addresses_are_served() {
        assert!(parse_loopback("127.0.0.1:8080").is_ok());
        assert!(parse_loopback("[::1]:8080").is_ok());
        assert!(
            parse_loopback("0.0.0.0:8080")
                .unwrap_err()
                .to_string()
                .contains("loopback")
        );
        assert!(parse_loopback("localhost").is_err());
    }
}
