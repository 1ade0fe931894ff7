//! The `http` embedder: any server that speaks OpenAI's
//! `POST /v1/embeddings` (OpenAI itself, Ollama, llama.cpp's server,
//! vLLM, ...). Texts go in batches; a connection error, a 429 or a 5xx is
//! retried with backoff, anything else is reported with what the server
//! said. The vectors are normalized here, since not every server does.
//!
//! The client is ureq 3 (blocking) over rustls, trusting the certificate
//! authorities the operating system trusts (rustls-platform-verifier). No
//! part of an answer is held past a set size, whatever the server sends:
//! its status line and headers ([`MAX_HEADER_BYTES`]), a line of a chunked
//! body (ureq's parser works in a buffer of [`INPUT_BUFFER_BYTES`], where
//! ureq 2 read a chunk-size line until it ended), a success's body (in
//! proportion to the texts asked for) and an error's body.

use std::io::{self, Read};
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use ureq::http;
use ureq::tls::{RootCerts, TlsConfig};

use super::{EmbedError, Embedder, normalize};

/// The most of an answer's status line and headers read (64 KiB, ureq's
/// own default, set here so that it stays what this module says).
const MAX_HEADER_BYTES: usize = 64 * 1024;

/// The buffer an answer is read into (128 KiB), and so the longest line
/// of a chunked body waited for. Larger than [`MAX_HEADER_BYTES`]: ureq
/// refuses a head only once more of it than that is buffered.
const INPUT_BUFFER_BYTES: usize = 128 * 1024;

const _: () = assert!(INPUT_BUFFER_BYTES > MAX_HEADER_BYTES);

/// The most of a successful answer read per text asked for (256 KiB): a
/// vector of 8,192 dimensions, each written with 30 characters, fits.
const ANSWER_BYTES_PER_TEXT: u64 = 256 * 1024;

/// The most of a successful answer read besides its vectors (64 KiB: the
/// model's name, usage counts).
const ANSWER_BYTES_BASE: u64 = 64 * 1024;

/// The most of an error answer's body read: its message is a line or two,
/// and the first 300 characters are shown.
const ERROR_BODY_BYTES: u64 = 64 * 1024;

/// How many redirects are followed (as ureq 2 did).
const MAX_REDIRECTS: u32 = 5;

/// An answer as ureq gives it: its head read, its body still to read.
type Response = http::Response<ureq::Body>;

/// How the `http` embedder reaches its server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpEmbedderConfig {
    /// The server's base URL (`http://localhost:11434`), or the full
    /// endpoint (ending in `/embeddings`).
    pub url: String,
    /// The model name the server knows.
    pub model: String,
    /// Sent as `Authorization: Bearer ...` when set.
    pub api_key: Option<String>,
    /// How long one request may take.
    pub timeout: Duration,
    /// How many times a failed request is tried again.
    pub retries: u32,
    /// The most texts in one request.
    pub batch: usize,
}

impl HttpEmbedderConfig {
    /// `model` at `url`, with a 30 s timeout, 2 retries and batches of 64.
    pub fn new(url: &str, model: &str) -> Self {
        HttpEmbedderConfig {
            url: url.to_owned(),
            model: model.to_owned(),
            api_key: None,
            timeout: Duration::from_secs(30),
            retries: 2,
            batch: 64,
        }
    }

    /// The endpoint requests go to.
    fn endpoint(&self) -> String {
        let url = self.url.trim_end_matches('/');
        if url.ends_with("/embeddings") {
            url.to_owned()
        } else {
            format!("{url}/v1/embeddings")
        }
    }
}

/// An embedder behind an OpenAI-compatible HTTP API.
#[derive(Debug)]
pub struct HttpEmbedder {
    config: HttpEmbedderConfig,
    endpoint: String,
    id: String,
    dimension: usize,
    agent: ureq::Agent,
}

#[derive(Deserialize)]
struct EmbeddingsResponse {
    data: Vec<EmbeddingItem>,
}

#[derive(Deserialize)]
struct EmbeddingItem {
    #[serde(default)]
    index: Option<usize>,
    embedding: Vec<f32>,
}

impl HttpEmbedder {
    /// Connects to the server and learns the model's dimension by
    /// embedding one short text.
    pub fn connect(config: HttpEmbedderConfig) -> Result<HttpEmbedder, EmbedError> {
        let agent = agent(config.timeout);
        let endpoint = config.endpoint();
        let mut embedder = HttpEmbedder {
            id: format!("http:{}", config.model),
            endpoint,
            config,
            dimension: 0,
            agent,
        };
        let probe = embedder.request(&["dimension probe"])?;
        embedder.dimension = probe[0].len();
        if embedder.dimension == 0 {
            return Err(EmbedError::Embed(format!(
                "{} returned an empty vector for model `{}`",
                embedder.endpoint, embedder.config.model
            )));
        }
        Ok(embedder)
    }

    /// One request, retried as the configuration says.
    fn request(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = json!({"model": self.config.model, "input": texts}).to_string();
        let mut attempt = 0;
        loop {
            let mut request = self
                .agent
                .post(&self.endpoint)
                .header("Content-Type", "application/json");
            if let Some(key) = &self.config.api_key {
                request = request.header("Authorization", format!("Bearer {key}"));
            }
            let failure = match request.send(&body) {
                Ok(response) if response.status().as_u16() < 400 => {
                    return self.read(response, texts.len());
                }
                Ok(response) => {
                    let status = response.status().as_u16();
                    let said = server_message(&error_text(response));
                    let failure = format!("{} answered {status}: {said}", self.endpoint);
                    if status != 429 && status < 500 {
                        return Err(EmbedError::Embed(failure));
                    }
                    failure
                }
                // Not retried: a caller waits at most the timeout.
                Err(error) if timed_out(&error) => {
                    return Err(EmbedError::Embed(format!(
                        "{} did not answer within {} s",
                        self.endpoint,
                        self.config.timeout.as_secs_f32()
                    )));
                }
                Err(error) => match malformed(&error) {
                    // Not retried: the server would answer the same.
                    Some(what) => {
                        return Err(EmbedError::Embed(format!(
                            "{} answered something that is not HTTP/1.1 as quire reads it: {what}",
                            self.endpoint
                        )));
                    }
                    None => format!("{} could not be reached: {error}", self.endpoint),
                },
            };
            if attempt >= self.config.retries {
                return Err(EmbedError::Embed(format!(
                    "{failure} (tried {} times)",
                    attempt + 1
                )));
            }
            std::thread::sleep(Duration::from_millis(200 << attempt));
            attempt += 1;
        }
    }

    /// The vectors of a successful response, in the order of the texts.
    fn read(&self, response: Response, expected: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        let limit = answer_limit(expected);
        let body = response
            .into_body()
            .into_with_config()
            .limit(limit)
            .read_to_vec()
            .map_err(|error| EmbedError::Embed(self.unread(error, limit, expected)))?;
        let parsed: EmbeddingsResponse = serde_json::from_slice(&body).map_err(|error| {
            EmbedError::Embed(format!(
                "{} answered something that is not an embeddings response: {error}",
                self.endpoint
            ))
        })?;
        if parsed.data.len() != expected {
            return Err(EmbedError::Embed(format!(
                "{} returned {} vectors for {expected} texts",
                self.endpoint,
                parsed.data.len()
            )));
        }
        let mut items = parsed.data;
        items.sort_by_key(|item| item.index);
        let mut vectors = Vec::with_capacity(expected);
        for item in items {
            let mut vector = item.embedding;
            if self.dimension != 0 && vector.len() != self.dimension {
                return Err(EmbedError::Embed(format!(
                    "{} returned a vector of {} dimensions; model `{}` gave {} before",
                    self.endpoint,
                    vector.len(),
                    self.config.model,
                    self.dimension
                )));
            }
            if vector.iter().any(|value| !value.is_finite()) {
                return Err(EmbedError::Embed(format!(
                    "{} returned a vector that is not all numbers",
                    self.endpoint
                )));
            }
            normalize(&mut vector);
            vectors.push(vector);
        }
        Ok(vectors)
    }
}

impl HttpEmbedder {
    /// Why a successful answer's body could not be read, in words.
    fn unread(&self, error: ureq::Error, limit: u64, texts: usize) -> String {
        let endpoint = &self.endpoint;
        if let ureq::Error::BodyExceedsLimit(_) = error {
            return format!(
                "{endpoint} answered with more than {limit} bytes for {texts} texts, more than their vectors take; it was not read further"
            );
        }
        if timed_out(&error) {
            return format!(
                "{endpoint} did not finish its answer within {} s",
                self.config.timeout.as_secs_f32()
            );
        }
        match malformed(&error) {
            Some(what) => format!(
                "{endpoint} answered something that is not HTTP/1.1 as quire reads it: {what}"
            ),
            None => format!("{endpoint} broke off its answer: {error}"),
        }
    }
}

/// The agent every request of an embedder goes through: `timeout` for a
/// whole request (its answer's body included), no proxy from the
/// environment, at most [`MAX_REDIRECTS`] redirects, and the buffer sizes
/// above.
fn agent(timeout: Duration) -> ureq::Agent {
    let tls = TlsConfig::builder()
        .root_certs(RootCerts::PlatformVerifier)
        .build();
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        .proxy(None)
        .max_redirects(MAX_REDIRECTS)
        // An error status is an answer to read, not a failed request.
        .http_status_as_error(false)
        .max_response_header_size(MAX_HEADER_BYTES)
        .input_buffer_size(INPUT_BUFFER_BYTES)
        .tls_config(tls)
        .build()
        .new_agent()
}

/// The most of a successful answer to `texts` texts read.
fn answer_limit(texts: usize) -> u64 {
    ANSWER_BYTES_BASE.saturating_add(ANSWER_BYTES_PER_TEXT.saturating_mul(texts as u64))
}

/// The start of an error answer's body as text: at most
/// [`ERROR_BODY_BYTES`], and what came before a failure to read the rest
/// (or that it could not be read, when nothing came).
fn error_text(response: Response) -> String {
    let mut body = Vec::new();
    let reader = response.into_body().into_reader();
    match reader.take(ERROR_BODY_BYTES).read_to_end(&mut body) {
        Err(error) if body.iter().all(u8::is_ascii_whitespace) => {
            let error = ureq::Error::from(error);
            let why = malformed(&error).unwrap_or_else(|| error.to_string());
            format!("(its body could not be read: {why})")
        }
        // A body that breaks off still says what it said until then.
        _ => String::from_utf8_lossy(&body).into_owned(),
    }
}

/// Whether `error` is a time limit running out.
fn timed_out(error: &ureq::Error) -> bool {
    match error {
        ureq::Error::Timeout(_) => true,
        ureq::Error::Io(error) => matches!(
            error.kind(),
            io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
        ),
        _ => false,
    }
}

/// What is wrong with an answer that is not HTTP/1.1 as read here
/// (malformed, or past a limit above), in words; `None` for other errors.
fn malformed(error: &ureq::Error) -> Option<String> {
    match error {
        ureq::Error::LargeResponseHeader(_, limit) => Some(format!(
            "its status line and headers are longer than the {limit} bytes quire reads of them"
        )),
        // The parser stopped with its buffer full: in a body, only the
        // dechunker waits for a line's end.
        ureq::Error::BodyStalled => Some(format!(
            "its chunked body has a chunk-size, chunk-extension or trailer line that does not end within the {INPUT_BUFFER_BYTES} bytes quire reads of one"
        )),
        ureq::Error::Protocol(error) => Some(error.to_string()),
        _ => None,
    }
}

/// The `error.message` (or `error`) of an error body, else its text.
fn server_message(text: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(text).ok();
    let message = parsed.as_ref().and_then(|value| {
        value
            .pointer("/error/message")
            .or_else(|| value.get("error"))
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned)
    });
    let text = message.unwrap_or_else(|| text.trim().to_owned());
    let shown: String = text.chars().take(300).collect();
    if shown.is_empty() {
        "(no body)".to_owned()
    } else {
        shown
    }
}

impl Embedder for HttpEmbedder {
    fn id(&self) -> &str {
        &self.id
    }

    fn dimension(&self) -> usize {
        self.dimension
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.config.batch.max(1)) {
            vectors.extend(self.request(batch)?);
        }
        Ok(vectors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpListener;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Instant;

    /// A server on 127.0.0.1 answering each request with the next of
    /// `answers` (status, body; a status of 0 stalls), recording the bodies
    /// it was sent.
    fn server(answers: Vec<(u16, String)>) -> (String, Arc<Mutex<Vec<String>>>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let recorded = Arc::clone(&seen);
        std::thread::spawn(move || {
            for (status, body) in answers {
                let Ok((stream, _)) = listener.accept() else {
                    return;
                };
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut length = 0;
                let mut line = String::new();
                while reader.read_line(&mut line).unwrap_or(0) > 2 {
                    if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                        length = value.trim().parse().unwrap_or(0);
                    }
                    line.clear();
                }
                let mut request = vec![0; length];
                reader.read_exact(&mut request).unwrap();
                recorded
                    .lock()
                    .unwrap()
                    .push(String::from_utf8(request).unwrap());
                if status == 0 {
                    std::thread::sleep(Duration::from_secs(3));
                    continue;
                }
                let mut stream = stream;
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        (url, seen)
    }

    fn vectors(vectors: &[&[f32]]) -> String {
        let data: Vec<_> = vectors
            .iter()
            .enumerate()
            .map(|(index, v)| json!({"index": index, "embedding": v}))
            .collect();
        json!({"data": data}).to_string()
    }

    fn config(url: &str) -> HttpEmbedderConfig {
        HttpEmbedderConfig {
            timeout: Duration::from_secs(1),
            batch: 2,
            ..HttpEmbedderConfig::new(url, "nomic")
        }
    }

    #[test]
    fn texts_go_in_batches_and_come_back_normalized_in_order() {
        let (url, seen) = server(vec![
            (200, vectors(&[&[3.0, 4.0]])),
            (200, r#"{"data": [{"index": 1, "embedding": [0, 2]}, {"index": 0, "embedding": [5, 0]}]}"#.into()),
            (200, vectors(&[&[0.0, 0.5]])),
        ]);
        let embedder = HttpEmbedder::connect(config(&url)).unwrap();
        assert_eq!((embedder.id(), embedder.dimension()), ("http:nomic", 2));
        let got = embedder.embed(&["a", "b", "c"]).unwrap();
        assert_eq!(got, [vec![1.0, 0.0], vec![0.0, 1.0], vec![0.0, 1.0]]);
        let bodies = seen.lock().unwrap();
        let second: serde_json::Value = serde_json::from_str(&bodies[1]).unwrap();
        assert_eq!(second, json!({"model": "nomic", "input": ["a", "b"]}));
        let third: serde_json::Value = serde_json::from_str(&bodies[2]).unwrap();
        assert_eq!(third, json!({"model": "nomic", "input": ["c"]}));
    }

    #[test]
    fn a_server_error_is_retried_and_a_client_error_is_not() {
        let (url, seen) = server(vec![
            (503, "busy".into()),
            (200, vectors(&[&[1.0, 0.0]])),
            (
                400,
                r#"{"error": {"message": "model `nomic` not found"}}"#.into(),
            ),
        ]);
        let embedder = HttpEmbedder::connect(config(&url)).unwrap();
        let error = embedder.embed(&["x"]).unwrap_err().to_string();
        assert!(
            error.contains("answered 400: model `nomic` not found"),
            "{error}"
        );
        assert_eq!(seen.lock().unwrap().len(), 3);
    }

    #[test]
    fn unreachable_stalled_and_malformed_servers_say_so() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        drop(listener);
        let mut refused = config(&url);
        refused.retries = 0;
        let error = HttpEmbedder::connect(refused).unwrap_err().to_string();
        assert!(
            error.contains("could not be reached") && error.contains(&url),
            "{error}"
        );

        let (url, seen) = server(vec![(0, String::new())]);
        let error = HttpEmbedder::connect(config(&url)).unwrap_err().to_string();
        assert!(error.contains("did not answer within 1 s"), "{error}");
        assert_eq!(seen.lock().unwrap().len(), 1, "a timeout is not retried");

        let (url, _) = server(vec![(200, "[1, 2]".into())]);
        let error = HttpEmbedder::connect(config(&url)).unwrap_err().to_string();
        assert!(error.contains("not an embeddings response"), "{error}");

        let (url, _) = server(vec![
            (200, vectors(&[&[1.0, 0.0]])),
            (200, vectors(&[&[1.0, 0.0, 0.0]])),
        ]);
        let embedder = HttpEmbedder::connect(config(&url)).unwrap();
        let error = embedder.embed(&["x"]).unwrap_err().to_string();
        assert!(
            error.contains("3 dimensions") && error.contains("gave 2 before"),
            "{error}"
        );
    }

    /// A server on 127.0.0.1 that answers one request with `start`, then
    /// `repeat` again and again until the client hangs up (or 20 s pass),
    /// counting the bytes the client took.
    fn flooding_server(start: &'static str, repeat: Vec<u8>) -> (String, Arc<AtomicU64>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let sent = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&sent);
        std::thread::spawn(move || {
            let Ok((stream, _)) = listener.accept() else {
                return;
            };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 2 {
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut request = vec![0; length];
            let _ = reader.read_exact(&mut request);
            let mut stream = stream;
            if stream.write_all(start.as_bytes()).is_err() {
                return;
            }
            let until = Instant::now() + Duration::from_secs(20);
            while Instant::now() < until && stream.write_all(&repeat).is_ok() {
                counted.fetch_add(repeat.len() as u64, Ordering::Relaxed);
            }
        });
        (url, sent)
    }

    /// The most a flooding server may get the client to take before it
    /// hangs up: what a bounded reader holds (its 128 KiB buffer) plus
    /// what the socket buffers of both ends take in on loopback (a few
    /// MiB). ureq 2, reading a chunk-size line, took all it was sent until
    /// the timeout: over 80 MB in 5 s.
    const FLOOD_BOUND: u64 = 16 * 1024 * 1024;

    /// Answers that never end where a reader waits for a line's end: a
    /// chunk-size line, a chunk extension, header lines, one header line.
    /// Each is refused at once, not at the timeout, without a retry, with
    /// an error that says what was wrong, and the client stops reading.
    #[test]
    fn answers_that_never_end_a_line_are_refused_at_once() {
        const CHUNKED: &str = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n";
        const CHUNKED_503: &str = "HTTP/1.1 503 Busy\r\nTransfer-Encoding: chunked\r\n\r\n";
        const EXTENDED: &str = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;";
        let header_lines = format!("X-Filler: {}\r\n", "y".repeat(1000)).repeat(64);
        let floods: [(&str, &'static str, Vec<u8>, &str); 5] = [
            (
                "a chunk-size line",
                CHUNKED,
                vec![b'f'; 64 * 1024],
                "chunked body",
            ),
            (
                "a chunk extension",
                EXTENDED,
                vec![b'x'; 64 * 1024],
                "chunked body",
            ),
            (
                "header lines",
                "HTTP/1.1 200 OK\r\n",
                header_lines.into_bytes(),
                "headers",
            ),
            (
                "a header line",
                "HTTP/1.1 200 OK\r\nX-Filler: ",
                vec![b'y'; 64 * 1024],
                "headers",
            ),
            // An error's body is read for its message, and no further.
            (
                "an error's chunk-size line",
                CHUNKED_503,
                vec![b'f'; 64 * 1024],
                "answered 503: (its body could not be read: its chunked body has",
            ),
        ];
        for (what, start, repeat, said) in floods {
            let (url, sent) = flooding_server(start, repeat);
            let mut config = config(&url);
            config.timeout = Duration::from_secs(5);
            config.retries = 0;
            let started = Instant::now();
            let error = HttpEmbedder::connect(config).unwrap_err().to_string();
            let waited = started.elapsed();
            assert!(error.contains(said), "{what}: {error}");
            assert!(error.contains(&url), "{what}: {error}");
            assert!(waited < Duration::from_secs(2), "{what}: {waited:?}");
            // The server stops once the client has hung up.
            std::thread::sleep(Duration::from_millis(100));
            let sent = sent.load(Ordering::Relaxed);
            assert!(sent < FLOOD_BOUND, "{what}: the client took {sent} bytes");
        }
    }

    /// An answer of any length is read only as far as the vectors of the
    /// texts asked for can take, and refused past it (ureq 2 parsed a
    /// vector that never ends into memory until the timeout).
    #[test]
    fn an_endless_success_body_is_refused_at_its_limit() {
        let (url, sent) = flooding_server(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"data\": [{\"embedding\": [",
            b"0.5, ".repeat(10_000),
        );
        let mut config = config(&url);
        config.timeout = Duration::from_secs(5);
        let started = Instant::now();
        let error = HttpEmbedder::connect(config).unwrap_err().to_string();
        assert!(
            error.contains(&format!("more than {} bytes for 1 texts", answer_limit(1))),
            "{error}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "{error}");
        std::thread::sleep(Duration::from_millis(100));
        let sent = sent.load(Ordering::Relaxed);
        assert!(sent < FLOOD_BOUND, "the client took {sent} bytes");
    }

    /// An `https` endpoint is reached over TLS, checked against the
    /// system's certificate authorities (ureq panics when the verifier
    /// asked for is not built in): a server that answers in plain text is
    /// an error that says the endpoint could not be reached.
    #[test]
    fn an_https_endpoint_is_reached_over_tls() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("https://{}", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let Ok((mut stream, _)) = listener.accept() else {
                return;
            };
            // The start of the TLS handshake, answered in plain HTTP.
            let mut hello = [0; 5];
            let _ = stream.read_exact(&mut hello);
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
        });
        let mut config = config(&url);
        config.retries = 0;
        let error = HttpEmbedder::connect(config).unwrap_err().to_string();
        assert!(
            error.contains("could not be reached") && error.contains(&url),
            "{error}"
        );
    }

    #[test]
    fn endpoints_and_messages_read_as_given() {
        assert_eq!(config("http://h:1/").endpoint(), "http://h:1/v1/embeddings");
        assert_eq!(
            config("http://h:1/api/embeddings").endpoint(),
            "http://h:1/api/embeddings"
        );
        assert_eq!(
            server_message(r#"{"error": "no such model"}"#),
            "no such model"
        );
        assert_eq!(server_message("  plain  "), "plain");
        assert_eq!(server_message(""), "(no body)");
    }
}
