//! Integrations with other crates, one module each, behind their cargo features.

#[cfg(feature = "serde")]
pub mod serde_support;
