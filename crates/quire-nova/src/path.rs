//! Where each call goes: the API's paths (as the OpenAPI document names
//! them) with the ids put in, each id as exactly one path segment.
//!
//! An id is the agent's to choose, so whatever it holds must stay inside
//! its segment. Every byte outside RFC 3986's unreserved set (ASCII
//! letters and digits, `-`, `.`, `_`, `~`) is percent-encoded. Anything
//! less leaves a way out: the `url` crate (under reqwest) reads `\` as `/`
//! in `http:` URLs, so an id of `..\..\..\health` that only had `/` and
//! `%` encoded (as the generated client did) was sent as `PATCH /health`.
//! The only ids whose encoding is still a dot segment are `.` and `..`
//! themselves, which the callers refuse first (`NovaError::DotId`); a
//! `%2e` in an id is sent as `%252e`, so nothing decodes it into a dot.

use std::fmt::Write as _;

/// `GET`: whether the Task Manager is up.
pub(crate) const HEALTH: &str = "/api/health";

/// `PATCH`: execution `execution_id`.
pub(crate) fn execution(execution_id: &str) -> String {
    format!("/api/executions/{}", segment(execution_id))
}

/// `POST`: the steps of execution `execution_id`.
pub(crate) fn steps(execution_id: &str) -> String {
    format!("/api/executions/{}/steps", segment(execution_id))
}

/// `PATCH`: step `step_id` of execution `execution_id`.
pub(crate) fn step(execution_id: &str, step_id: &str) -> String {
    format!(
        "/api/executions/{}/steps/{}",
        segment(execution_id),
        segment(step_id)
    )
}

/// `id` as one path segment: its UTF-8 bytes, those outside the
/// unreserved set as `%XX` (upper-case hex).
pub(crate) fn segment(id: &str) -> String {
    let mut encoded = String::with_capacity(id.len());
    for byte in id.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            encoded.push(char::from(byte));
        } else {
            // Writing to a String cannot fail.
            let _ = write!(encoded, "%{byte:02X}");
        }
    }
    encoded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_outside_the_unreserved_set_is_encoded() {
        assert_eq!(segment("step-1.a_b~C9"), "step-1.a_b~C9");
        assert_eq!(segment(r"..\..\x"), "..%5C..%5Cx");
        assert_eq!(segment("a/b%2e%2Fc"), "a%2Fb%252e%252Fc");
        assert_eq!(segment("?#; \0é"), "%3F%23%3B%20%00%C3%A9");
        // Every byte that is neither unreserved nor a `%` introducing two
        // hex digits is gone from the result.
        let all: String = (0u8..128).map(char::from).collect();
        let encoded = segment(&all);
        assert!(
            encoded
                .bytes()
                .all(|byte| byte.is_ascii_alphanumeric() || b"-._~%".contains(&byte)),
            "{encoded}"
        );
        assert_eq!(percent_decoded(&encoded), all.as_bytes());
    }

    fn percent_decoded(text: &str) -> Vec<u8> {
        let bytes = text.as_bytes();
        let mut decoded = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] == b'%' {
                let hex = std::str::from_utf8(&bytes[at + 1..at + 3]).unwrap();
                decoded.push(u8::from_str_radix(hex, 16).unwrap());
                at += 3;
            } else {
                decoded.push(bytes[at]);
                at += 1;
            }
        }
        decoded
    }

    /// The paths are the document's: each of its path templates, with the
    /// ids put in, is the path built here.
    #[test]
    fn the_paths_are_the_openapi_documents() {
        let document: serde_json::Value =
            serde_saphyr::from_str(include_str!("task-manager.openapi.yaml")).unwrap();
        let templates: Vec<(&str, Vec<&str>)> = document["paths"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(template, item)| {
                let methods = item
                    .as_object()
                    .unwrap()
                    .keys()
                    .filter(|key| *key != "parameters")
                    .map(String::as_str)
                    .collect();
                (template.as_str(), methods)
            })
            .collect();
        let fill = |template: &str| {
            template
                .replace("{execution-id}", "E")
                .replace("{step-id}", "S")
        };
        let built = [
            (execution("E"), "patch"),
            (steps("E"), "post"),
            (step("E", "S"), "patch"),
            (HEALTH.to_owned(), "get"),
        ];
        assert_eq!(templates.len(), built.len(), "{templates:?}");
        for (template, methods) in &templates {
            let (path, method) = built
                .iter()
                .find(|(path, _)| *path == fill(template))
                .unwrap_or_else(|| panic!("no path built for {template}"));
            assert_eq!(methods, &[*method], "{path}");
        }
    }
}
