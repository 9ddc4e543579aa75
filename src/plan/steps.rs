//! A plan's steps as `apply` holds them: each step kept as its compact JSON
//! text in one buffer and decoded when it is used, so that a plan of a
//! million certificate changes fits in memory at a few hundred bytes a step
//! (a decoded step, with its JSON bodies as maps, takes several times that).
//! Read from a stream, step by step: the whole plan file is never held, and
//! the digest of the steps (which the plan id covers) is
//! computed as they are read.

use serde::de::{Deserializer, SeqAccess, Visitor};
use serde::ser::{SerializeSeq, Serializer};
use serde::{Deserialize, Serialize};
use sha2::Digest;

use super::request::StepKind;
use super::step::PlanStep;

/// The steps of one account, in order.
#[derive(Debug, Clone, Default)]
pub struct Steps {
    /// Every step's compact JSON, one after the other.
    text: String,
    /// Where each step's text ends in `text`.
    ends: Vec<usize>,
    /// The running digest of the steps' canonical texts (without the markers
    /// a plan id makes), in order.
    digest: sha2::Sha256,
}

impl Steps {
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends a step.
    pub fn push(&mut self, step: &PlanStep) {
        self.digest.update(digest_of(step));
        // A step's own type serialises without fail (its maps have string keys).
        self.text.push_str(&serde_json::to_string(step).unwrap_or_default());
        self.ends.push(self.text.len());
    }

    /// The `i`-th step (from 0), decoded.
    pub fn get(&self, i: usize) -> Option<PlanStep> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        // Written by `push` from the same type: it reads back.
        serde_json::from_str(&self.text[start..end]).ok()
    }

    /// Every step, decoded one at a time.
    pub fn iter(&self) -> impl Iterator<Item = PlanStep> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }

    /// The digest of the steps, in order (32 bytes).
    pub fn digest(&self) -> Vec<u8> {
        self.digest.clone().finalize().to_vec()
    }
}

/// The digest of steps, in order, as [`Steps::digest`] gives it, without
/// holding them: what `plan` writes is digested from the steps it makes.
pub fn digest_of_steps(steps: impl IntoIterator<Item = impl std::borrow::Borrow<PlanStep>>) -> Vec<u8> {
    let mut digest = sha2::Sha256::new();
    for step in steps {
        digest.update(digest_of(step.borrow()));
    }
    digest.finalize().to_vec()
}

/// The digest of one step as the plan id covers it: every field but the
/// marker a created policy carries and its body's `description`, which are
/// made from the id.
fn digest_of(step: &PlanStep) -> Vec<u8> {
    let mut canonical = step.clone();
    if canonical.kind == StepKind::CreatePolicy {
        canonical.marker = None;
        if let Some(body) = canonical.body.as_mut().and_then(serde_json::Value::as_object_mut) {
            body.remove("description");
        }
    }
    let text = serde_json::to_vec(&canonical).unwrap_or_default();
    sha2::Sha256::digest(&text).to_vec()
}

impl FromIterator<PlanStep> for Steps {
    fn from_iter<I: IntoIterator<Item = PlanStep>>(steps: I) -> Self {
        let mut out = Steps::default();
        for step in steps {
            out.push(&step);
        }
        out
    }
}

impl PartialEq for Steps {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.ends == other.ends
    }
}

impl Serialize for Steps {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.len()))?;
        for step in self.iter() {
            seq.serialize_element(&step)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Steps {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Each;
        impl<'de> Visitor<'de> for Each {
            type Value = Steps;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an array of plan steps")
            }

            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Steps, A::Error> {
                let mut steps = Steps::default();
                while let Some(step) = seq.next_element::<PlanStep>()? {
                    steps.push(&step);
                }
                Ok(steps)
            }
        }
        deserializer.deserialize_seq(Each)
    }
}

impl schemars::JsonSchema for Steps {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        Vec::<PlanStep>::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        Vec::<PlanStep>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn step(n: usize, kind: StepKind) -> PlanStep {
        PlanStep {
            step: n,
            kind,
            reason: format!("step {n}"),
            body: Some(json!({"ssl": {"certificate_authority": "google", "method": "http", "type": "dv"}})),
            hostname_id: Some(format!("h{n}")),
            ..PlanStep::default()
        }
    }

    #[test]
    fn steps_read_back_as_pushed_in_order() {
        let steps: Steps = (1..=3).map(|n| step(n, StepKind::EditCustomHostname)).collect();
        assert_eq!(steps.len(), 3);
        let back: Vec<PlanStep> = steps.iter().collect();
        assert_eq!(back, (1..=3).map(|n| step(n, StepKind::EditCustomHostname)).collect::<Vec<_>>());
        assert_eq!(steps.get(1).map(|s| s.step), Some(2));
        assert!(steps.get(3).is_none());
        let text = serde_json::to_string(&steps).unwrap();
        let again: Steps = serde_json::from_str(&text).unwrap();
        assert_eq!(again, steps);
        assert_eq!(again.digest(), steps.digest());
    }

    #[test]
    fn the_digest_covers_every_field_but_a_creates_markers_and_the_order() {
        let base: Steps = (1..=2).map(|n| step(n, StepKind::EditCustomHostname)).collect();
        let mut changed = step(2, StepKind::EditCustomHostname);
        changed.reason.push('!');
        let other: Steps = [step(1, StepKind::EditCustomHostname), changed].into_iter().collect();
        assert_ne!(base.digest(), other.digest());
        let swapped: Steps = [2, 1].into_iter().map(|n| step(n, StepKind::EditCustomHostname)).collect();
        assert_ne!(base.digest(), swapped.digest());
        let create = |marker: &str| {
            let mut s = step(1, StepKind::CreatePolicy);
            s.marker = Some(marker.into());
            s.body = Some(json!({"name": "x", "description": marker}));
            s
        };
        let a: Steps = [create("[a]")].into_iter().collect();
        let b: Steps = [create("[b]")].into_iter().collect();
        assert_eq!(a.digest(), b.digest());
        assert_ne!(a, b);
    }
}
