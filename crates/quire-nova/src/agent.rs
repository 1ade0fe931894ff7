//! The HTTP client of one try (ureq 3, blocking): how it is set up, and
//! what its errors mean.
//!
//! A try gets an agent of its own, made to the module doc of `super::http`:
//! it connects to the addresses `super::resolve` found (ureq looks
//! nothing up), within what is left of the call's deadline (connecting,
//! sending and reading the answer, body included), follows no redirect,
//! keeps no connection and uses no proxy.
//!
//! It also reads an answer in buffers of a set size. ureq's HTTP/1.1
//! parser (ureq-proto) works on the bytes buffered, and what it cannot
//! parse yet waits for more in the same buffer: an answer whose status
//! line and headers pass [`MAX_HEADER_BYTES`] is refused, and so is a
//! chunked body whose chunk-size line, chunk extension or trailer does not
//! end within [`INPUT_BUFFER_BYTES`] (a chunk-size line that ends but is
//! longer than 20 bytes is refused by the parser itself). ureq 2 read a
//! chunk-size line into memory until it ended, and a Task Manager sending
//! one without end took 87 MB in 5 s.

use std::io;
use std::net::SocketAddr;
use std::time::Duration;

use ureq::Agent;
use ureq::config::Config;
use ureq::http::Uri;
use ureq::unversioned::resolver::{ResolvedSocketAddrs, Resolver};
use ureq::unversioned::transport::{DefaultConnector, NextTimeout};

use super::model::MAX_ID_BYTES;

/// The most of an answer's status line and headers read (16 KiB). The
/// Task Manager's are a few hundred bytes; the headers a proxy before it
/// adds fit too.
pub(crate) const MAX_HEADER_BYTES: usize = 16 * 1024;

/// The buffer an answer is read into (32 KiB), and so the longest line of
/// a chunked body waited for. Larger than [`MAX_HEADER_BYTES`]: ureq
/// refuses a head only once more of it than that is buffered, and a head
/// filling the buffer would stall instead.
pub(crate) const INPUT_BUFFER_BYTES: usize = 32 * 1024;

/// The buffer a request is written from (16 KiB). The request line and
/// headers must fit in it: a path holds up to two ids of
/// [`MAX_ID_BYTES`], each byte percent-encoded as three.
pub(crate) const OUTPUT_BUFFER_BYTES: usize = 16 * 1024;

const _: () = assert!(INPUT_BUFFER_BYTES > MAX_HEADER_BYTES);
const _: () = assert!(2 * 3 * MAX_ID_BYTES + 2048 < OUTPUT_BUFFER_BYTES);

/// The `User-Agent` of every request.
const USER_AGENT: &str = concat!("quire-nova/", env!("CARGO_PKG_VERSION"));

/// An agent for one try: it connects to `addresses` and has `within` for
/// the whole try, its answer's body included.
pub(crate) fn for_one_try(addresses: Vec<SocketAddr>, within: Duration) -> Agent {
    let config = Agent::config_builder()
        .timeout_global(Some(within))
        .max_redirects(0)
        .proxy(None)
        .max_idle_connections(0)
        .max_idle_connections_per_host(0)
        // An error status is an answer to read, not a failed try.
        .http_status_as_error(false)
        .user_agent(USER_AGENT)
        .max_response_header_size(MAX_HEADER_BYTES)
        .input_buffer_size(INPUT_BUFFER_BYTES)
        .output_buffer_size(OUTPUT_BUFFER_BYTES)
        .build();
    Agent::with_parts(
        config,
        DefaultConnector::default(),
        FoundAddresses(addresses),
    )
}

/// The addresses found before the try, given to ureq in place of a lookup
/// of its own (which would not end by the deadline).
#[derive(Debug)]
struct FoundAddresses(Vec<SocketAddr>);

impl Resolver for FoundAddresses {
    fn resolve(
        &self,
        _: &Uri,
        _: &Config,
        _: NextTimeout,
    ) -> Result<ResolvedSocketAddrs, ureq::Error> {
        let mut addresses = self.empty();
        for address in &self.0 {
            // ureq keeps a few addresses; the first ones are tried first.
            if addresses.try_push(*address).is_err() {
                break;
            }
        }
        if addresses.is_empty() {
            return Err(ureq::Error::HostNotFound);
        }
        Ok(addresses)
    }
}

/// Which part of the exchange failed: the request and the answer's head
/// (what `Agent::run` does), or the answer's body (read afterwards).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    Head,
    Body,
}

/// What a failed try, or a body that could not be read, comes to.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Failure {
    /// The call's time ran out.
    TimedOut,
    /// No request could be formed; why, in words.
    Unsendable(String),
    /// The answer is not HTTP/1.1 as read here (malformed, or past a limit
    /// above); what was wrong with it, in words.
    Malformed(String),
    /// No connection could be made, or it broke: the innermost cause.
    Broken(String),
}

impl Failure {
    /// What `error`, met in `part`, comes to.
    pub(crate) fn of(error: ureq::Error, part: Part) -> Failure {
        match error {
            ureq::Error::Timeout(_) => Failure::TimedOut,
            ureq::Error::Io(error) if timed_out(&error) => Failure::TimedOut,
            ureq::Error::Io(error) => Failure::Broken(root_cause(&error)),
            ureq::Error::BadUri(_) | ureq::Error::Http(_) => Failure::Unsendable(error.to_string()),
            ureq::Error::LargeResponseHeader(_, limit) => Failure::Malformed(format!(
                "its status line and headers are longer than the {limit} bytes quire reads of them"
            )),
            // The parser stopped with its buffer full: in a body, only the
            // dechunker waits for a line's end.
            ureq::Error::BodyStalled => Failure::Malformed(format!(
                "its chunked body has a chunk-size, chunk-extension or trailer line that does not end within the {INPUT_BUFFER_BYTES} bytes quire reads of one"
            )),
            ureq::Error::Protocol(error) => Failure::Malformed(match part {
                Part::Head => format!("its status line or headers are not valid HTTP/1.1: {error}"),
                // In a body, only the dechunker parses anything.
                Part::Body => format!("its chunked body is not valid HTTP/1.1: {error}"),
            }),
            other => Failure::Broken(root_cause(&other)),
        }
    }

    /// What an error reading a body comes to: ureq's own error, when the
    /// reader wrapped one.
    pub(crate) fn of_read(error: io::Error) -> Failure {
        Failure::of(ureq::Error::from(error), Part::Body)
    }
}

/// Whether `error` or one of its causes is a time limit running out (a
/// socket's timeout shows as `WouldBlock` on some systems).
fn timed_out(error: &io::Error) -> bool {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(error) = cause {
        if let Some(io) = error.downcast_ref::<io::Error>()
            && matches!(
                io.kind(),
                io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
            )
        {
            return true;
        }
        if let Some(ureq::Error::Timeout(_)) = error.downcast_ref::<ureq::Error>() {
            return true;
        }
        cause = error.source();
    }
    false
}

/// The innermost cause (`Connection refused (os error 111)`): the HTTP
/// client's own message only says what it was doing.
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ureq_error_comes_to_what_it_means() {
        let timeout = io::Error::new(io::ErrorKind::TimedOut, "timed out");
        assert_eq!(Failure::of_read(timeout), Failure::TimedOut);
        let wrapped = ureq::Error::Timeout(ureq::Timeout::Global).into_io();
        assert_eq!(Failure::of_read(wrapped), Failure::TimedOut);
        let refused = io::Error::new(io::ErrorKind::ConnectionRefused, "Connection refused");
        assert_eq!(
            Failure::of(ureq::Error::Io(refused), Part::Head),
            Failure::Broken("Connection refused".to_owned())
        );
        let Failure::Malformed(said) = Failure::of_read(ureq::Error::BodyStalled.into_io()) else {
            panic!("a stalled body is malformed");
        };
        assert!(said.contains("32768 bytes"), "{said}");
        let Failure::Malformed(said) =
            Failure::of(ureq::Error::LargeResponseHeader(20000, 16384), Part::Head)
        else {
            panic!("a head past the limit is malformed");
        };
        assert!(said.contains("16384 bytes"), "{said}");
        assert!(matches!(
            Failure::of(ureq::Error::BadUri("no host".to_owned()), Part::Head),
            Failure::Unsendable(_)
        ));
    }

    #[test]
    fn only_the_addresses_found_are_connected_to() {
        let uri: Uri = "http://tm.internal:8080/api/health".parse().unwrap();
        let config = Config::default();
        let found: Vec<SocketAddr> = (1..=20)
            .map(|last| SocketAddr::from(([10, 0, 0, last], 8080)))
            .collect();
        let resolved = FoundAddresses(found.clone())
            .resolve(&uri, &config, NextTimeout::default())
            .unwrap();
        assert_eq!(&resolved[..], &found[..resolved.len()]);
        assert!(!resolved.is_empty());
        assert!(matches!(
            FoundAddresses(Vec::new()).resolve(&uri, &config, NextTimeout::default()),
            Err(ureq::Error::HostNotFound)
        ));
    }
}
