//! One rule: its metadata (id, name, docs — the single source for `explain`,
//! `rules` and SARIF) and what it checks.

use chrono::NaiveDate;
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::condition::{Condition, ConditionSpec, SpecError};
use super::severity::Severity;
use super::template::Template;
use crate::facts::catalogue::common_catalogue;
use crate::facts::{FactName, ValueType, catalogue};
use crate::model::Kind;

crate::listed! {
    /// Which of the changes a rule is about: reports sum findings up by it.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize)]
    pub enum Migration {
        /// Pool health e-mails moving to notification policies.
        Notifications = "notifications",
        /// The retirement of the Let's Encrypt cross-signed chain.
        Certificates = "certificates",
        /// Whether the exports are complete and readable.
        Export = "export",
    }
}

impl Migration {
    pub fn words(self) -> &'static str {
        match self {
            Migration::Notifications => "Pool notifications",
            Migration::Certificates => "Let's Encrypt chain",
            Migration::Export => "The exports",
        }
    }
}

crate::listed! {
    /// How a finding's remedy is built as typed actions (requests, edits or a
    /// person's decision), from the subject's typed facts: named by the rule,
    /// implemented once in `plan::remedy`, so a pack's rule can use it too.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize, serde::Serialize)]
    pub enum RemedyKind {
        /// Create the policies that take over a pool's legacy e-mail, then clear
        /// it (or the same as edits of a Terraform configuration).
        ReplaceThenClear = "replace_then_clear",
        /// Clear a pool's legacy e-mail: every alert it sends is delivered already.
        ClearPool = "clear_pool",
        /// Clear the legacy e-mail of every pool of the account, a page at a time.
        ClearPages = "clear_pages",
        /// Move a custom hostname to another CA, keeping its validation.
        CustomHostnameCa = "custom_hostname_ca",
        /// Move Total TLS to another CA.
        TotalTlsCa = "total_tls_ca",
        /// Move a zone's Universal SSL to another CA (its universal certificate
        /// pack is then issued again by it).
        UniversalSslCa = "universal_ssl_ca",
        /// A policy's filter value to correct: a plan's policy update respells
        /// what it can; the rest is a person's decision.
        PolicyFilterValue = "policy_filter_value",
        /// A person's decision, which the message describes.
        Manual = "manual",
    }
}

impl RemedyKind {
    /// What it builds, for the book.
    pub fn description(self) -> &'static str {
        match self {
            RemedyKind::ReplaceThenClear => {
                "creates the policies that take over the pool's legacy e-mail, then clears it (in Terraform source: the same as edits of the configuration)"
            }
            RemedyKind::ClearPool => "clears the pool's legacy e-mail: every alert it sends is delivered already",
            RemedyKind::ClearPages => "clears the legacy e-mail of every pool of the account, a page of the bulk clear at a time",
            RemedyKind::CustomHostnameCa => "moves the custom hostname to another CA, sending its whole `ssl` back with the CA changed",
            RemedyKind::TotalTlsCa => "moves the zone's Total TLS to another CA",
            RemedyKind::UniversalSslCa => "moves the zone's Universal SSL to another CA (once per zone)",
            RemedyKind::PolicyFilterValue => "respells the policy's filter values where the plan can; the rest is a person's decision",
            RemedyKind::Manual => "a person's step, which the message describes",
        }
    }

    /// The subject a remedy of this kind is built for; `None`: any.
    pub fn subject(self) -> Option<Kind> {
        match self {
            RemedyKind::ReplaceThenClear | RemedyKind::ClearPool => Some(Kind::Pool),
            RemedyKind::ClearPages => Some(Kind::Account),
            RemedyKind::CustomHostnameCa => Some(Kind::CustomHostname),
            RemedyKind::TotalTlsCa => Some(Kind::TotalTls),
            RemedyKind::UniversalSslCa => Some(Kind::CertificatePack),
            RemedyKind::PolicyFilterValue => Some(Kind::NotificationPolicy),
            RemedyKind::Manual => None,
        }
    }

    /// Remedies of the notification migration, which `plan` orders and
    /// proves as a whole rather than step by step.
    pub fn is_notification_migration(self) -> bool {
        matches!(self, RemedyKind::ReplaceThenClear | RemedyKind::ClearPool | RemedyKind::ClearPages)
    }
}

crate::listed! {
    /// What a reader does about a finding, in the words a summary groups
    /// findings by ("clear now", "create a policy first", "choose a CA").
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, serde::Serialize)]
    pub enum RuleAction {
        /// The legacy e-mail is replaced: clear it.
        ClearNow = "clear_now",
        /// A policy must deliver the legacy e-mails before the field is cleared.
        CreatePolicyFirst = "create_policy_first",
        /// A policy is wrong as written.
        FixPolicy = "fix_policy",
        /// A resource stays on Let's Encrypt unless another CA is chosen.
        ChooseCa = "choose_ca",
        /// A certificate or its chain must be uploaded again or renewed.
        ReplaceCertificate = "replace_certificate",
        /// The export must be made again or completed.
        FixExport = "fix_export",
        /// Nothing to do (a note).
        None = "none",
    }
}

impl RuleAction {
    pub fn words(self) -> &'static str {
        match self {
            RuleAction::ClearNow => "Clear now",
            RuleAction::CreatePolicyFirst => "Create a policy first",
            RuleAction::FixPolicy => "Fix a policy",
            RuleAction::ChooseCa => "Choose a CA",
            RuleAction::ReplaceCertificate => "Replace a certificate",
            RuleAction::FixExport => "Fix the export",
            RuleAction::None => "Nothing to do",
        }
    }
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    /// A kebab-case name, stable like the id.
    pub name: String,
    /// The kinds of resource the rule is about (usually one).
    pub subjects: Vec<Kind>,
    pub severity: Severity,
    /// One sentence: what the finding means.
    pub summary: String,
    pub when: Vec<Condition>,
    /// A list fact: one finding per element.
    pub for_each: Option<FactName>,
    /// The fact whose field the finding points at.
    pub at: Option<FactName>,
    pub message: Template,
    /// The message for a resource of Terraform source, whose remedy is an
    /// edit of the configuration rather than API calls.
    pub message_terraform: Option<Template>,
    pub rationale: String,
    pub remediation: String,
    pub assumptions: Vec<String>,
    pub example: Option<String>,
    pub references: Vec<String>,
    pub tags: Vec<String>,
    /// Earlier stages of the change: before `before`, the rule reports with
    /// the phase's severity and message instead. Sorted by date.
    pub phases: Vec<Phase>,
    /// Evaluated only for as-of dates in [from, until).
    pub effective_from: Option<NaiveDate>,
    pub effective_until: Option<NaiveDate>,
    /// The pack file it came from.
    pub pack: String,
    /// Whether it is one of edgeaudit's own rules (embedded at build time).
    /// A `--rules` pack's words are text from outside: escaped as values are.
    pub builtin: bool,
    /// The change it is about; none for a pack's rule that does not say.
    pub migration: Option<Migration>,
    /// What to do about a finding; none for a pack's rule that does not say.
    pub action: Option<RuleAction>,
    /// How its remedy is built as actions; none: the remedy is not an action.
    pub remedy: Option<RemedyKind>,
}

/// `subject: pool` or `subject: [custom_certificate, custom_hostname]`.
#[derive(Debug)]
pub struct Subjects(pub Vec<String>);

impl<'de> Deserialize<'de> for Subjects {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Subjects;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a subject or a list of subjects")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Subjects, E> {
                Ok(Subjects(vec![v.to_string()]))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Subjects, A::Error> {
                let mut out = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    out.push(s);
                }
                Ok(Subjects(out))
            }
        }
        d.deserialize_any(V)
    }
}

/// How a rule reports while the as-of date is before `before`.
#[derive(Debug, Clone)]
pub struct Phase {
    pub before: NaiveDate,
    pub severity: Severity,
    pub message: Template,
    /// What the rule says in this phase, for its docs.
    pub summary: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PhaseSpec {
    /// A named date (`cross_sign_unused`) or `YYYY-MM-DD`.
    pub as_of_before: Spanned<String>,
    pub severity: Option<Severity>,
    pub message: Option<Spanned<String>>,
    pub summary: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackSpec {
    pub rules: Vec<RuleSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleSpec {
    pub id: Spanned<String>,
    pub name: String,
    pub subject: Spanned<Subjects>,
    pub severity: Severity,
    pub summary: String,
    pub when: Vec<ConditionSpec>,
    pub for_each: Option<Spanned<String>>,
    pub at: Option<Spanned<String>>,
    pub message: Spanned<String>,
    pub message_terraform: Option<Spanned<String>>,
    pub rationale: String,
    pub remediation: String,
    #[serde(default)]
    pub assumptions: Vec<String>,
    pub example: Option<String>,
    #[serde(default)]
    pub references: Vec<String>,
    #[serde(default)]
    pub tags: Vec<String>,
    #[serde(default)]
    pub phases: Vec<PhaseSpec>,
    pub effective_from: Option<Spanned<String>>,
    pub effective_until: Option<Spanned<String>>,
    /// `notifications`, `certificates` or `export`.
    #[serde(default)]
    pub migration: Option<Migration>,
    /// `clear_now`, `create_policy_first`, `fix_policy`, `choose_ca`,
    /// `replace_certificate`, `fix_export` or `none`.
    #[serde(default)]
    pub action: Option<RuleAction>,
    /// A [`RemedyKind`] (`RemedyKind::ALL`, and the book's table of them);
    /// absent: the remedy is not an action.
    #[serde(default)]
    pub remedy: Option<Spanned<RemedyKind>>,
}

fn spec_error<T>(s: &Spanned<T>, message: String) -> SpecError {
    SpecError {
        line: s.referenced.line() as usize,
        column: s.referenced.column() as usize,
        message,
    }
}

impl RuleSpec {
    pub fn compile(self, pack: &str) -> Result<Rule, SpecError> {
        let id = self.id.value.clone();
        if id.is_empty()
            || !id.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
            || !id.starts_with(|c: char| c.is_ascii_uppercase())
        {
            return Err(spec_error(
                &self.id,
                format!("rule id `{id}` must be upper-case letters then digits, like LB001"),
            ));
        }
        let mut subjects = Vec::new();
        for name in &self.subject.value.0 {
            let kind = Kind::parse(name).filter(|k| !catalogue(*k).is_empty()).ok_or_else(|| {
                let subjects: Vec<&str> = Kind::all().filter(|k| !catalogue(*k).is_empty()).map(Kind::as_str).collect();
                spec_error(
                    &self.subject,
                    format!("unknown subject `{name}`; subjects with facts: {}", subjects.join(", ")),
                )
            })?;
            subjects.push(kind);
        }
        if subjects.is_empty() {
            return Err(spec_error(&self.subject, "a rule needs a subject".into()));
        }
        let subject = subjects.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ");
        if let Some(remedy) = &self.remedy
            && let Some(needs) = remedy.value.subject()
            && subjects.iter().any(|k| *k != needs)
        {
            return Err(spec_error(
                remedy,
                format!("remedy `{}` is built for subject {needs}, not {subject}", remedy.value.as_str()),
            ));
        }
        let common = common_catalogue(&subjects);
        let facts = common.as_slice();
        let fact_named = |s: &Spanned<String>, want_list: bool| -> Result<FactName, SpecError> {
            match facts.iter().find(|f| f.name.as_str() == s.value) {
                Some(f) if want_list && f.value_type != ValueType::List => Err(spec_error(
                    s,
                    format!("`for_each` needs a list fact; `{}` is a {}", f.name, f.value_type.as_str()),
                )),
                Some(f) => Ok(f.name),
                None => Err(spec_error(s, format!("unknown fact `{}` for subject {subject}", s.value))),
            }
        };
        let for_each = self.for_each.as_ref().map(|s| fact_named(s, true)).transpose()?;
        let at = self.at.as_ref().map(|s| fact_named(s, false)).transpose()?;
        let template = |source: &Spanned<String>| -> Result<Template, SpecError> {
            // A named date is written in as text; facts stay placeholders.
            let message = Template::parse(&source.value)
                .and_then(|t| t.fill(|name| super::dates::named(name).map(|d| d.shown.to_string())))
                .map_err(|m| spec_error(source, m))?;
            for placeholder in message.placeholders() {
                let known = facts.iter().any(|f| f.name.as_str() == placeholder) || (placeholder == "item" && for_each.is_some());
                if !known {
                    return Err(spec_error(
                        source,
                        format!("message placeholder `{{{placeholder}}}` names no fact of subject {subject}"),
                    ));
                }
            }
            Ok(message)
        };
        let message = template(&self.message)?;
        let message_terraform = self.message_terraform.as_ref().map(template).transpose()?;
        let mut phases = Vec::new();
        for phase in &self.phases {
            let before = super::dates::parse(&phase.as_of_before.value).map_err(|m| spec_error(&phase.as_of_before, m))?;
            let message = match &phase.message {
                Some(m) => template(m)?,
                None => message.clone(),
            };
            phases.push(Phase {
                before,
                severity: phase.severity.unwrap_or(self.severity),
                message,
                summary: phase.summary.clone(),
            });
        }
        phases.sort_by_key(|p| p.before);
        let when = self.when.into_iter().map(|c| c.compile(facts)).collect::<Result<Vec<_>, _>>()?;
        let date = |s: &Option<Spanned<String>>| -> Result<Option<NaiveDate>, SpecError> {
            s.as_ref()
                .map(|s| super::dates::parse(&s.value).map_err(|m| spec_error(s, m)))
                .transpose()
        };
        Ok(Rule {
            id,
            name: self.name,
            subjects,
            severity: self.severity,
            summary: self.summary,
            when,
            for_each,
            at,
            message,
            message_terraform,
            rationale: self.rationale,
            remediation: self.remediation,
            assumptions: self.assumptions,
            example: self.example,
            references: self.references,
            tags: self.tags,
            phases,
            effective_from: date(&self.effective_from)?,
            effective_until: date(&self.effective_until)?,
            pack: pack.to_string(),
            builtin: false,
            migration: self.migration,
            action: self.action,
            remedy: self.remedy.map(|r| r.value),
        })
    }
}

impl Rule {
    /// The subjects as written in docs: `pool`, or `custom_certificate, custom_hostname`.
    pub fn subject_names(&self) -> String {
        self.subjects.iter().map(|k| k.as_str()).collect::<Vec<_>>().join(", ")
    }

    /// The phase in force at this as-of date (the earliest whose date is
    /// still ahead), if any.
    pub fn phase_at(&self, as_of: NaiveDate) -> Option<usize> {
        self.phases.iter().position(|p| as_of < p.before)
    }

    pub fn severity_in(&self, phase: Option<usize>) -> Severity {
        phase.and_then(|i| self.phases.get(i)).map_or(self.severity, |p| p.severity)
    }

    pub fn message_in(&self, phase: Option<usize>) -> &Template {
        phase.and_then(|i| self.phases.get(i)).map_or(&self.message, |p| &p.message)
    }

    /// The message for a finding on the resource whose facts these are: in
    /// Terraform's words for a resource of Terraform source, when the rule has them.
    pub fn message_for(&self, phase: Option<usize>, facts: &dyn crate::facts::Facts) -> &Template {
        match &self.message_terraform {
            Some(t) if crate::facts::catalogue::keys::TERRAFORM_SOURCE.of(facts) == Some(true) => t,
            _ => self.message_in(phase),
        }
    }

    /// Whether the rule applies at this as-of date.
    pub fn is_effective(&self, as_of: NaiveDate) -> bool {
        self.effective_from.is_none_or(|d| as_of >= d) && self.effective_until.is_none_or(|d| as_of < d)
    }
}

#[cfg(test)]
mod tests {
    /// `RemedyKind::ALL` holds every kind once: a new variant stops this
    /// match from compiling until it is given a place, and then ALL must
    /// hold it there.
    #[test]
    fn every_remedy_kind_is_in_all() {
        use super::RemedyKind::{self, *};
        let place = |k: RemedyKind| match k {
            ReplaceThenClear => 0,
            ClearPool => 1,
            ClearPages => 2,
            CustomHostnameCa => 3,
            TotalTlsCa => 4,
            UniversalSslCa => 5,
            PolicyFilterValue => 6,
            Manual => 7,
        };
        for (i, kind) in RemedyKind::ALL.into_iter().enumerate() {
            assert_eq!(place(kind), i, "{}", kind.as_str());
            let parsed: RemedyKind = serde_json::from_value(serde_json::json!(kind.as_str())).expect("its YAML name");
            assert_eq!(parsed, kind);
        }
    }

    /// `RuleAction::ALL` and `Migration::ALL` hold every value once, in
    /// place (the book's table of a rule's values is made from them).
    #[test]
    fn every_action_and_migration_is_in_all() {
        use super::{Migration, RuleAction};
        let place = |a: RuleAction| match a {
            RuleAction::ClearNow => 0,
            RuleAction::CreatePolicyFirst => 1,
            RuleAction::FixPolicy => 2,
            RuleAction::ChooseCa => 3,
            RuleAction::ReplaceCertificate => 4,
            RuleAction::FixExport => 5,
            RuleAction::None => 6,
        };
        for (i, action) in RuleAction::ALL.into_iter().enumerate() {
            assert_eq!(place(action), i, "{action:?}");
        }
        let place = |m: Migration| match m {
            Migration::Notifications => 0,
            Migration::Certificates => 1,
            Migration::Export => 2,
        };
        for (i, migration) in Migration::ALL.into_iter().enumerate() {
            assert_eq!(place(migration), i, "{migration:?}");
        }
    }
}
