//! `quire serve` and `quire call`: the MCP server, and one tool call through
//! it from the shell.

use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use anyhow::{Context, bail};
use quire::mcp::{self, QuireServer, Toolset};
use quire::workspace::Workspace;

use super::{Outcome, output};

/// Parses `--tools tracker,planner` (all toolsets of this build when absent).
pub fn toolsets(list: Option<&str>) -> anyhow::Result<Vec<Toolset>> {
    let Some(list) = list else {
        return Ok(Toolset::ALL.to_vec());
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
) -> anyhow::Result<QuireServer> {
    let workspace = Workspace::new(root)
        .with_context(|| format!("cannot open the workspace root {}", root.display()))?;
    Ok(QuireServer::new(workspace, &toolsets(tools)?).with_plan_file(plan_file))
}

fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")
}

/// Logs go to stderr, filtered by `RUST_LOG` (default: warnings, and quire's
/// own info lines).
pub fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn,quire=info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

pub fn serve(
    root: &Path,
    tools: Option<&str>,
    http: Option<&str>,
    plan_file: Option<PathBuf>,
) -> anyhow::Result<Outcome> {
    let server = server(root, tools, plan_file)?;
    let address = http.map(parse_loopback).transpose()?;
    init_logging();
    let runtime = runtime()?;
    let served = match address {
        Some(address) => runtime.block_on(mcp::serve_http(server, address)),
        None => runtime.block_on(mcp::serve_stdio(server)),
    };
    served.map_err(|error| anyhow::anyhow!("the MCP server stopped: {error}"))?;
    Ok(Outcome::Success)
}

fn parse_loopback(address: &str) -> anyhow::Result<SocketAddr> {
    let parsed: SocketAddr = address
        .parse()
        .with_context(|| format!("--http {address:?} is not an address; use 127.0.0.1:PORT"))?;
    if !parsed.ip().is_loopback() {
        bail!(
            "--http {address} is not a loopback address; quire serves only this machine (use 127.0.0.1:PORT or [::1]:PORT)"
        );
    }
    Ok(parsed)
}

pub fn call(
    tool: &str,
    arguments: Option<&str>,
    root: &Path,
    tools: Option<&str>,
    plan_file: Option<PathBuf>,
) -> anyhow::Result<Outcome> {
    let text = match arguments {
        None => "{}".to_owned(),
        Some("-") => {
            let mut text = String::new();
            std::io::stdin()
                .read_to_string(&mut text)
                .context("cannot read the arguments from standard input")?;
            text
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
    let server = server(root, tools, plan_file)?;
    let outcome = runtime()?
        .block_on(mcp::call_in_process(server, tool, arguments))
        .map_err(|error| anyhow::anyhow!("the call to `{tool}` failed: {error}"))?;
    output::stdout_json(&outcome.value)?;
    Ok(if outcome.is_error {
        Outcome::Findings
    } else {
        Outcome::Success
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolset_lists() {
        assert_eq!(toolsets(None).unwrap(), Toolset::ALL.to_vec());
        assert_eq!(
            toolsets(Some("tracker, tracker")).unwrap(),
            vec![Toolset::Tracker]
        );
        assert_eq!(
            toolsets(Some("nope")).unwrap_err().to_string(),
            "unknown toolset `nope`; this build has: tracker, planner"
        );
        assert!(toolsets(Some(",")).is_err());
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
