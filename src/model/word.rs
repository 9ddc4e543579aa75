//! Words many records share (an issuer, a status, an `ssl` method): one copy
//! each, and a thin pointer in every record that names it (8 bytes, where a
//! shared `str` takes 16: a million custom hostnames name four each).

use std::sync::Arc;

#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Word(Arc<String>);

impl std::ops::Deref for Word {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for Word {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Word {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Word {
    fn from(s: &str) -> Word {
        Word(Arc::new(s.to_string()))
    }
}

impl std::fmt::Debug for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&**self, f)
    }
}

impl std::fmt::Display for Word {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self)
    }
}

/// Shares equal words among the records of a run. Bounded, so that hostile
/// input with a million distinct values costs about what plain strings
/// would (a word not kept is a block for its count and one for its text).
///
/// Hashed with foldhash, not SipHash: a few words are looked up for every
/// record on the thread that builds the model, and SipHash was most of the
/// lookup. It is seeded at random, and the set is bounded, so input
/// cannot choose collisions.
#[derive(Default)]
pub struct Words(std::collections::HashSet<Word, foldhash::fast::RandomState>);

impl Words {
    pub fn get(&mut self, s: &str) -> Word {
        if let Some(shared) = self.0.get(s) {
            return shared.clone();
        }
        let word = Word::from(s);
        if s.len() <= 64 && self.0.len() < 4096 {
            self.0.insert(word.clone());
        }
        word
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_words_are_one_copy_and_a_word_is_a_thin_pointer() {
        let mut words = Words::default();
        let (a, b) = (words.get("active"), words.get("active"));
        assert!(Arc::ptr_eq(&a.0, &b.0));
        assert_eq!(&*a, "active");
        assert!(!Arc::ptr_eq(&a.0, &words.get("pending").0));
        let long = "x".repeat(65);
        assert!(!Arc::ptr_eq(&words.get(&long).0, &words.get(&long).0), "long values are not kept");
        for i in 0..10_000 {
            words.get(&format!("issuer-{i}"));
        }
        assert_eq!(words.0.len(), 4096, "hostile input cannot grow it without bound");
        assert_eq!(std::mem::size_of::<Option<Word>>(), 8);
    }
}
