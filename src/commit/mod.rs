pub mod config;
pub mod lint;
