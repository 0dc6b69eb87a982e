//! The store's keys, kept in its table itself when short enough (nearly every
//! `namespace/name` is), so that a lookup compares the key it probes without following
//! a pointer to it: one cache miss fewer per `get` on a large cache.

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};

/// Bytes a key may have and stay inline: the enum is then 56 bytes, and a table entry
/// (key and `Arc`) one 64-byte cache line.
const INLINE: usize = 54;

#[derive(Clone)]
pub(super) enum Key {
    Inline { len: u8, bytes: [u8; INLINE] },
    Heap(Box<[u8]>),
}

impl Key {
    pub(super) fn new(key: &str) -> Key {
        let source = key.as_bytes();
        match u8::try_from(source.len()) {
            Ok(len) if source.len() <= INLINE => {
                let mut bytes = [0; INLINE];
                bytes[..source.len()].copy_from_slice(source);
                Key::Inline { len, bytes }
            }
            _ => Key::Heap(source.into()),
        }
    }

    fn bytes(&self) -> &[u8] {
        match self {
            Key::Inline { len, bytes } => &bytes[..usize::from(*len)],
            Key::Heap(bytes) => bytes,
        }
    }
}

/// Looked up by the key's bytes: `Hash` and `Eq` agree with `[u8]`'s, as `Borrow` asks.
impl Borrow<[u8]> for Key {
    fn borrow(&self) -> &[u8] {
        self.bytes()
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.bytes().hash(state);
    }
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for Key {}

impl PartialOrd for Key {
    fn partial_cmp(&self, other: &Key) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// Byte order, which is `str` order for UTF-8.
impl Ord for Key {
    fn cmp(&self, other: &Key) -> std::cmp::Ordering {
        self.bytes().cmp(other.bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_keys_are_inline_and_long_ones_on_the_heap_with_one_order() {
        let short = Key::new("ns-042/app-7d9f8c6b5-04242");
        let long_name = format!("ns/{}", "n".repeat(253));
        let long = Key::new(&long_name);
        assert!(matches!(short, Key::Inline { .. }));
        assert!(matches!(long, Key::Heap(_)));
        assert_eq!(short.bytes(), b"ns-042/app-7d9f8c6b5-04242");
        assert_eq!(long.bytes(), long_name.as_bytes());
        assert!(Key::new("a/b") < Key::new("a/c") && Key::new("a/c") < long);
        assert_eq!(std::mem::size_of::<Key>(), 56);
    }
}
