//! The `http` embedder: any server that speaks OpenAI's
//! `POST /v1/embeddings` (OpenAI itself, Ollama, llama.cpp's server,
//! vLLM, ...). Texts go in batches; a connection error, a 429 or a 5xx is
//! retried with backoff, anything else is reported with what the server
//! said. The vectors are normalized here, since not every server does.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use super::{EmbedError, Embedder, normalize};

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
        let agent = ureq::AgentBuilder::new().timeout(config.timeout).build();
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
        let body = json!({"model": self.config.model, "input": texts});
        let mut attempt = 0;
        loop {
            let mut request = self.agent.post(&self.endpoint);
            if let Some(key) = &self.config.api_key {
                request = request.set("Authorization", &format!("Bearer {key}"));
            }
            let failure = match request.send_json(&body) {
                Ok(response) => return self.read(response, texts.len()),
                Err(ureq::Error::Status(status, response)) => {
                    let text = response.into_string().unwrap_or_default();
                    let said = server_message(&text);
                    let failure = format!("{} answered {status}: {said}", self.endpoint);
                    if status != 429 && status < 500 {
                        return Err(EmbedError::Embed(failure));
                    }
                    failure
                }
                Err(ureq::Error::Transport(transport)) => {
                    if transport.kind() == ureq::ErrorKind::Io
                        && transport.to_string().contains("timed out")
                    {
                        // Not retried: a caller waits at most the timeout.
                        return Err(EmbedError::Embed(format!(
                            "{} did not answer within {} s",
                            self.endpoint,
                            self.config.timeout.as_secs_f32()
                        )));
                    }
                    format!("{} could not be reached: {transport}", self.endpoint)
                }
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
    fn read(&self, response: ureq::Response, expected: usize) -> Result<Vec<Vec<f32>>, EmbedError> {
        let parsed: EmbeddingsResponse = response.into_json().map_err(|error| {
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
    use std::sync::{Arc, Mutex};

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
