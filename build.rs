//! Generates the Task Manager's HTTP client (feature `nova`) from
//! `src/nova/task-manager.openapi.yaml` with progenitor, into
//! `$OUT_DIR/task_manager_client.rs`, which `src/nova/generated.rs`
//! includes. Without `nova` it does nothing: the generator is an optional
//! build dependency, so other builds neither compile nor run it.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    #[cfg(feature = "nova")]
    task_manager::generate();
}

#[cfg(feature = "nova")]
mod task_manager {
    use std::path::PathBuf;

    const DOCUMENT: &str = "src/nova/task-manager.openapi.yaml";

    pub(super) fn generate() {
        println!("cargo::rerun-if-changed={DOCUMENT}");
        let text = std::fs::read_to_string(DOCUMENT)
            .unwrap_or_else(|error| panic!("cannot read {DOCUMENT}: {error}"));
        let mut spec: openapiv3::OpenAPI = serde_saphyr::from_str(&text)
            .unwrap_or_else(|error| panic!("{DOCUMENT} is not an OpenAPI 3.0 document: {error}"));
        without_error_responses(&mut spec);

        let mut generator = progenitor::Generator::default();
        let tokens = generator.generate_tokens(&spec).unwrap_or_else(|error| {
            panic!("progenitor cannot generate a client from {DOCUMENT}: {error}")
        });
        let file: syn::File = syn::parse2(tokens).unwrap_or_else(|error| {
            panic!("progenitor generated code that does not parse: {error}")
        });
        let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
            .join("task_manager_client.rs");
        std::fs::write(&out, prettyplease::unparse(&file))
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", out.display()));
    }

    /// The document declares the error answers (4XX, 5XX: an `ErrorBody`)
    /// as the contract; the generated client is given the document without
    /// them. Declared, progenitor decodes an error answer as JSON and, when
    /// the body is not JSON (a proxy's HTML 502 page), reports the bytes
    /// without the status, which a retry decision and the error message
    /// need. Undeclared, every error answer reaches `HttpClient` whole
    /// (`Error::UnexpectedResponse`), which reads it into the generated
    /// `types::ErrorBody` itself (src/nova/http.rs).
    fn without_error_responses(spec: &mut openapiv3::OpenAPI) {
        for (_, path) in spec.paths.paths.iter_mut() {
            let openapiv3::ReferenceOr::Item(path) = path else {
                continue;
            };
            let operations = [
                &mut path.get,
                &mut path.put,
                &mut path.post,
                &mut path.delete,
                &mut path.options,
                &mut path.head,
                &mut path.patch,
                &mut path.trace,
            ];
            for operation in operations.into_iter().flatten() {
                operation.responses.default = None;
                operation
                    .responses
                    .responses
                    .retain(|status, _| match status {
                        openapiv3::StatusCode::Code(code) => *code < 400,
                        openapiv3::StatusCode::Range(range) => *range < 4,
                    });
            }
        }
    }
}
