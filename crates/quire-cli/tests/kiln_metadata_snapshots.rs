//! Snapshots of `read_metadata` for a corpus of tricky notes: frontmatter in
//! every shape (tags as a list, a string, a comma string, with `#`; aliases;
//! broken YAML; CRLF; a BOM), headings ATX and setext, wikilinks in every
//! form, links and tags inside code and comments (never counted), ambiguous
//! and unresolved links, CJK and emoji words, an NFD file name, a file that
//! is not UTF-8, an empty file and a frontmatter-only file.
//!
//! The corpus is written by the test into a temporary vault (an NFD file
//! name and Latin-1 bytes do not survive every checkout); each note's
//! snapshot is `snapshots/kiln-metadata__<name>.snap`, the JSON
//! `read_metadata` returns to a client (called through the MCP layer, in
//! process) with `modified` (the file's time) replaced.
//! Every snapshot was read by hand; update them with
//! `INSTA_UPDATE=always cargo test --test kiln_metadata_snapshots` and read
//! every change.

#[path = "support/mcp_call.rs"]
mod mcp_call;

use quire_cli::mcp::{QuireServer, Toolset};
use quire_fs::Workspace;
use serde_json::{Value, json};

/// The corpus: (snapshot name, path in the vault, bytes). Notes without a
/// name are there to be linked to.
const CORPUS: &[(&str, &str, &[u8])] = &[
    (
        "tags-list",
        "tags-list.md",
        b"---\ntags: [alpha, '#beta', Gamma/Delta, 2024]\n---\nInline #epsilon and #ALPHA again.\n",
    ),
    ("tags-string", "tags-string.md", b"---\ntags: solo\n---\n"),
    (
        "tags-comma-string",
        "tags-comma.md",
        b"---\ntags: \"one, #two,  three , \"\n---\n",
    ),
    (
        "tag-key-and-block-list",
        "tag-key.md",
        b"---\ntag:\n  - '#x/y'\n  - z\n---\n#X/Y is the same tag; #z too.\n",
    ),
    (
        "aliases",
        "aliases.md",
        b"---\naliases: [First name, '#not-a-tag', First Name]\nalias: ignored when aliases is there\n---\n",
    ),
    (
        "alias-comma-string",
        "alias.md",
        b"---\nalias: \"One, Two\"\n---\n",
    ),
    (
        "broken-yaml",
        "broken-yaml.md",
        b"---\ntitle: [unclosed\ntags: lost\n---\n# Still read\nBody #kept and [[tags-list]].\n",
    ),
    (
        "not-utf8",
        "latin1.md",
        b"---\ntags: [x]\n---\n# Caf\xe9\n[[tags-list]]\n",
    ),
    (
        "crlf",
        "crlf.md",
        b"---\r\nstatus: active\r\ntags: [win]\r\n---\r\n# Title\r\n\r\nSetext\r\n======\r\n\r\nSee [[tags-list]] #crlf\r\n- [ ] task\r\n",
    ),
    (
        "bom",
        "bom.md",
        "\u{feff}---\ntitle: With a BOM\n---\n# Heading after a BOM\n".as_bytes(),
    ),
    (
        "headings",
        "headings.md",
        b"# One\n\n## Two ##\n\n###Not a heading\n\n####### Seven is not a heading\n\nSetext one\n==========\n\nSetext two\n----------\n\n### With *emphasis*, `code` and [[tags-list|a link]]\n\n#### \n\n   ###### Six, indented three\n\n    # indented four: code\n\n> # In a quote\n",
    ),
    (
        "wikilinks",
        "wikilinks.md",
        b"Plain [[tags-list]], with heading [[tags-list#Inline|alias]], block [[crlf#^b1]],\n\
          local [[#Heading]], local block [[#^b2]], embed ![[bom]], image ![[picture.png]],\n\
          path [[sub/Deep]], with .md [[sub/Deep.md]], relative [Deep](sub/Deep.md),\n\
          web [site](https://example.com/a.md), escaped \\[[not a link]].\n\n\
          | column | link |\n|---|---|\n| a | [[tags-list\\|in a table]] |\n\n\
          Empty [[]] and [[ | ]] are not links. ^b2\n",
    ),
    ("deep", "sub/Deep.md", b"# Deep\nBack to [[wikilinks]].\n"),
    (
        "code-and-comments",
        "code.md",
        concat!(
            "Counted: [[tags-list]] #counted\n\n",
            "```\n[[in-fence]] #fencetag\n- [ ] fenced task\n```\n\n",
            "~~~md\n[[in-tilde]]\n~~~\n\n",
            "    [[indented-code]] #indented\n\n",
            "Inline `[[inline-code]] #inlinetag` code.\n\n",
            "<!-- [[html-comment]] #htmltag -->\n\n",
            "%% [[obsidian-comment]] #commenttag %%\n\n",
            "%%\nmulti-line [[in-comment]] #multi\n%%\n\n",
            "<div>\n[[in-html-block]] #divtag\n</div>\n\n",
            "Text <span>[[in-span]] #spantag</span> and [text #linktag](tags-list.md)\n\n",
            "After all that: #last\n",
        )
        .as_bytes(),
    ),
    (
        "ambiguous-and-unresolved",
        "links.md",
        b"[[dup]] is in two folders; [[x/dup]] names one; [[DUP]] ignores case;\n\
          [[missing]] and [[x/missing]] lead nowhere; [[../outside]] climbs out.\n",
    ),
    ("dup-in-x", "x/dup.md", b"x\n"),
    ("dup-in-y", "yy/dup.md", b"y\n"),
    (
        "cjk-emoji",
        "cjk.md",
        "日本語の文章 and 中文 🚀✅ well-known don't 1,000.5 3.14 v2 한국어 메모 #日本 🌱\n".as_bytes(),
    ),
    (
        "nfd-name",
        "Cafe\u{301}.md",
        "# Café\n[[tags-list]] and a link to itself [[Café]].\n".as_bytes(),
    ),
    ("empty", "empty.md", b""),
    (
        "frontmatter-only",
        "fm-only.md",
        b"---\ntitle: Only properties\ndate: 2024-01-05\n---",
    ),
    (
        "frontmatter-types",
        "types.md",
        b"---\nint: 3\nfloat: 2.50\nyes: yes\nbool: true\nempty:\ntilde: ~\ndate: 2024-01-05\ntime: 2024-01-05T10:30:00Z\nlist: [1, two]\nmap: {a: 1, b: [x]}\nquoted: '007'\nunderscored: 1_000\ninfinite: .inf\n---\nBody.\n",
    ),
    (
        "frontmatter-null-key",
        "null-key.md",
        b"---\ntitle: fine\nnull: a key YAML reads as null\n---\nBody #still-read.\n",
    ),
    (
        "frontmatter-not-a-mapping",
        "list-frontmatter.md",
        b"---\n- a\n- b\n---\nBody.\n",
    ),
    (
        "frontmatter-unclosed",
        "unclosed.md",
        b"---\ntitle: never closed\n\n# Heading\n",
    ),
    (
        "tasks-and-blocks",
        "tasks.md",
        b"- [ ] open ^t1\n- [x] done\n- [X] done too\n  - [ ] nested\n* [ ] star\n1. [ ] numbered\n- [] not a task\n- [ ]\n\nA paragraph ^para-id\n",
    ),
];

#[test]
fn read_metadata_of_each_tricky_note() {
    let dir = tempfile::tempdir().unwrap();
    for (_, path, bytes) in CORPUS {
        let file = dir.path().join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, bytes).unwrap();
    }
    let server = QuireServer::new(Workspace::new(dir.path()).unwrap(), &[Toolset::Kiln]);
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path("../snapshots");
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| {
        for (name, path, bytes) in CORPUS {
            let mut metadata =
                mcp_call::call(server.clone(), "read_metadata", json!({ "path": path }))
                    .unwrap_or_else(|error| panic!("{path}: {error}"));
            assert_eq!(metadata["size"], bytes.len() as u64, "{path}");
            let modified = metadata["modified"].as_str().unwrap_or_default();
            assert!(modified.ends_with('Z'), "{modified}");
            metadata["modified"] = Value::from("[modified]");
            insta::assert_json_snapshot!(format!("kiln-metadata__{name}"), metadata);
        }
    });
}
