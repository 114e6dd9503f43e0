//! The README's editor test (its fourth Rust block), as written.

include!(concat!(env!("OUT_DIR"), "/editor_test.rs"));
