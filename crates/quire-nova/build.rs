//! Generates the Task Manager's types from `src/task-manager.openapi.yaml`
//! with progenitor, into `$OUT_DIR/task_manager_types.rs`, which
//! `src/generated.rs` includes.
//!
//! Only the types (the request bodies, the error body) are written, not
//! progenitor's client methods: `src/http.rs` sends the requests
//! itself (its module doc says why), and methods nobody may call are
//! better not there to be called.

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    task_manager::generate();
}

mod task_manager {
    use std::path::PathBuf;

    const DOCUMENT: &str = "src/task-manager.openapi.yaml";

    pub(super) fn generate() {
        println!("cargo::rerun-if-changed={DOCUMENT}");
        let text = std::fs::read_to_string(DOCUMENT)
            .unwrap_or_else(|error| panic!("cannot read {DOCUMENT}: {error}"));
        let spec: openapiv3::OpenAPI = serde_saphyr::from_str(&text)
            .unwrap_or_else(|error| panic!("{DOCUMENT} is not an OpenAPI 3.0 document: {error}"));

        // Generating the client checks the whole document (its operations
        // too) and fills the type space, whose types are all that is kept.
        let mut generator = progenitor::Generator::default();
        generator.generate_tokens(&spec).unwrap_or_else(|error| {
            panic!("progenitor cannot generate a client from {DOCUMENT}: {error}")
        });
        let tokens = generator.get_type_space().to_stream();
        let file: syn::File = syn::parse2(tokens).unwrap_or_else(|error| {
            panic!("progenitor generated types that do not parse: {error}")
        });
        let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
            .join("task_manager_types.rs");
        std::fs::write(&out, prettyplease::unparse(&file))
            .unwrap_or_else(|error| panic!("cannot write {}: {error}", out.display()));
    }
}
