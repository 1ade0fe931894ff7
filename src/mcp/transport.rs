//! Where the server talks: Streamable HTTP on a loopback address, or an
//! in-process client for `quire call`. (stdio is in [`super::stdio`].)

use std::error::Error;
use std::net::SocketAddr;
use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::server::QuireServer;

type BoxError = Box<dyn Error + Send + Sync>;

/// Serves MCP over Streamable HTTP at `http://ADDR/mcp` until Ctrl-C.
///
/// Only loopback `Host` headers are accepted, and a browser `Origin` must be
/// a loopback origin: a web page elsewhere cannot drive the server.
pub async fn serve_http(server: QuireServer, address: SocketAddr) -> Result<(), BoxError> {
    let port = address.port();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts([
            "localhost".to_owned(),
            "127.0.0.1".to_owned(),
            "::1".to_owned(),
            format!("localhost:{port}"),
            format!("127.0.0.1:{port}"),
            format!("[::1]:{port}"),
        ])
        .with_allowed_origins(["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"])
        .enforce_origin_validation();
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = tokio::net::TcpListener::bind(address).await?;
    tracing::info!(address = %listener.local_addr()?, "serving MCP on http://{}/mcp", listener.local_addr()?);
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await?;
    Ok(())
}

/// The result of one in-process tool call.
#[derive(Debug)]
pub struct CallOutcome {
    /// The result's `structuredContent` (or its text, as a JSON string, when
    /// a tool returned no structured content).
    pub value: serde_json::Value,
    /// The result's `isError`.
    pub is_error: bool,
}

/// Calls one tool through a real MCP client and server connected in memory:
/// the same path a remote client's call takes, without a process or socket.
pub async fn call_in_process(
    server: QuireServer,
    tool: &str,
    arguments: JsonObject,
) -> Result<CallOutcome, BoxError> {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    let server_task = tokio::spawn(async move {
        match server.serve(server_end).await {
            Ok(running) => {
                let _ = running.waiting().await;
            }
            Err(error) => tracing::error!(%error, "in-process server failed to start"),
        }
    });
    let client = ().serve(client_end).await?;
    let result = client
        .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
        .await;
    let _ = client.cancel().await;
    let _ = server_task.await;
    let result = result?;
    let is_error = result.is_error.unwrap_or(false);
    let value = match result.structured_content {
        Some(value) => value,
        None => serde_json::Value::String(
            result
                .content
                .iter()
                .filter_map(|block| block.as_text().map(|text| text.text.clone()))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    };
    Ok(CallOutcome { value, is_error })
}
