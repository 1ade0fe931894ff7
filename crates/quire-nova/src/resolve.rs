//! Finding the Task Manager's addresses within a call's deadline.
//!
//! The system resolver takes what it takes: a name server that does not
//! answer holds a lookup for as long as the resolver's own timeouts and
//! retries say. So the lookup runs on a thread of its own, and the call
//! waits for it only until its deadline; a lookup still going then ends on
//! its own, its result unused. An IP address needs no lookup. ureq is
//! given the addresses found (`super::agent`) and bounds connecting,
//! sending and reading by the deadline. (ureq 3's own resolver would also
//! wait on a thread, but it panics when no thread can be started; here
//! that is an error that says so.)

use std::io;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::mpsc;
use std::thread;
use std::time::Instant;

use url::Host;

/// Why no address was found.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum LookupFailure {
    /// The lookup had not ended by the deadline.
    TimedOut,
    /// The lookup failed, or found no address; in words.
    Failed(String),
}

/// The addresses of `host`, port `port`, found by `deadline`.
pub(crate) fn addresses(
    host: Host<&str>,
    port: u16,
    deadline: Instant,
) -> Result<Vec<SocketAddr>, LookupFailure> {
    match host {
        Host::Ipv4(address) => Ok(vec![SocketAddr::from((address, port))]),
        Host::Ipv6(address) => Ok(vec![SocketAddr::from((address, port))]),
        Host::Domain(name) => look_up_by(name, deadline, move |name| {
            (name, port).to_socket_addrs().map(Iterator::collect)
        }),
    }
}

/// `lookup(name)` on a thread of its own, waited for until `deadline`.
fn look_up_by(
    name: &str,
    deadline: Instant,
    lookup: impl FnOnce(&str) -> io::Result<Vec<SocketAddr>> + Send + 'static,
) -> Result<Vec<SocketAddr>, LookupFailure> {
    let name = name.to_owned();
    let left = deadline.saturating_duration_since(Instant::now());
    let (sender, receiver) = mpsc::channel();
    let looking = {
        let name = name.clone();
        move || {
            // The caller may have stopped waiting: nobody to tell.
            let _ = sender.send(lookup(&name));
        }
    };
    thread::Builder::new()
        .name("quire-nova-lookup".to_owned())
        .spawn(looking)
        .map_err(|error| {
            LookupFailure::Failed(format!(
                "the lookup of {name} could not be started: {error}"
            ))
        })?;
    match receiver.recv_timeout(left) {
        Ok(Ok(found)) if found.is_empty() => {
            Err(LookupFailure::Failed(format!("{name} has no address")))
        }
        Ok(Ok(found)) => Ok(found),
        Ok(Err(error)) => Err(LookupFailure::Failed(error.to_string())),
        Err(mpsc::RecvTimeoutError::Timeout) => Err(LookupFailure::TimedOut),
        Err(mpsc::RecvTimeoutError::Disconnected) => Err(LookupFailure::Failed(format!(
            "the lookup of {name} ended without an answer"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::{Ipv4Addr, Ipv6Addr};
    use std::time::Duration;

    #[test]
    fn an_ip_address_is_its_own_address_and_a_name_is_looked_up() {
        let later = Instant::now() + Duration::from_secs(5);
        assert_eq!(
            addresses(Host::Ipv4(Ipv4Addr::LOCALHOST), 8080, later),
            Ok(vec![SocketAddr::from((Ipv4Addr::LOCALHOST, 8080))])
        );
        assert_eq!(
            addresses(Host::Ipv6(Ipv6Addr::LOCALHOST), 9, later),
            Ok(vec![SocketAddr::from((Ipv6Addr::LOCALHOST, 9))])
        );
        let found = addresses(Host::Domain("localhost"), 8080, later).unwrap();
        assert!(
            found
                .iter()
                .all(|address| address.ip().is_loopback() && address.port() == 8080),
            "{found:?}"
        );
        // `.invalid` is reserved never to resolve (RFC 6761).
        assert!(matches!(
            addresses(Host::Domain("quire.invalid"), 80, later),
            Err(LookupFailure::Failed(_))
        ));
    }

    #[test]
    fn a_lookup_past_the_deadline_is_not_waited_for() {
        let started = Instant::now();
        let slow = |_: &str| {
            thread::sleep(Duration::from_secs(3));
            Ok(vec![SocketAddr::from((Ipv4Addr::LOCALHOST, 80))])
        };
        let deadline = started + Duration::from_millis(200);
        assert_eq!(
            look_up_by("tm.internal", deadline, slow),
            Err(LookupFailure::TimedOut)
        );
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_millis(200) && waited < Duration::from_secs(1),
            "{waited:?}"
        );
        let failing = |name: &str| Err(io::Error::other(format!("no such name: {name}")));
        assert_eq!(
            look_up_by(
                "tm.internal",
                Instant::now() + Duration::from_secs(5),
                failing
            ),
            Err(LookupFailure::Failed(
                "no such name: tm.internal".to_owned()
            ))
        );
        let nothing = |_: &str| Ok(Vec::new());
        assert_eq!(
            look_up_by(
                "tm.internal",
                Instant::now() + Duration::from_secs(5),
                nothing
            ),
            Err(LookupFailure::Failed(
                "tm.internal has no address".to_owned()
            ))
        );
    }
}
