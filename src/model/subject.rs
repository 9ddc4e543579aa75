//! What each resource is, as findings and reports name it: its kind, id,
//! name and origin. Defined once per model type.

use std::borrow::Cow;

use super::certificate::{CertificatePack, CustomCertificate, CustomHostname, Zone, ZoneSetting};
use super::notification::{Policy, Pool};
use super::origin::{RecordOrigin, ValueSpan};
use super::{Account, Kind};

/// The resource facts and findings are about.
#[derive(Debug, Clone, Copy)]
pub struct Subject<'a> {
    pub kind: Kind,
    pub id: SubjectId<'a>,
    pub name: &'a str,
    pub origin: &'a RecordOrigin,
    /// Where some of its values lie in its record.
    pub spans: Spans,
}

/// A resource's id: its record's own text, or a custom hostname's, which
/// keeps a UUID packed and writes it out only when it is shown.
#[derive(Debug, Clone, Copy)]
pub enum SubjectId<'a> {
    Text(&'a str),
    Hostname(&'a CustomHostname),
}

impl<'a> SubjectId<'a> {
    pub fn text(self) -> Cow<'a, str> {
        match self {
            SubjectId::Text(id) => Cow::Borrowed(id),
            SubjectId::Hostname(host) => host.id(),
        }
    }
}

/// Where some of a subject's values lie in its record, by their field's
/// path, as the parse saw them (`ValueSpan`): a custom hostname's CA and
/// certificate expiry, a pool's legacy e-mail.
#[derive(Debug, Clone, Copy)]
pub struct Spans([(&'static str, ValueSpan); 2]);

impl Spans {
    pub const NONE: Spans = Spans([("", ValueSpan::NONE); 2]);

    /// Where the value of the record's field `path` lies, if the parse saw it.
    pub fn of(&self, path: &str) -> ValueSpan {
        self.0
            .iter()
            .find(|&&(at, span)| span != ValueSpan::NONE && at == path)
            .map_or(ValueSpan::NONE, |&(_, span)| span)
    }
}

impl Pool {
    pub fn subject(&self) -> Subject<'_> {
        Subject {
            kind: Kind::Pool,
            id: SubjectId::Text(&self.id),
            name: &self.name,
            origin: &self.origin,
            spans: Spans([(self.fields.notification_email, self.email_span), ("", ValueSpan::NONE)]),
        }
    }
}

impl Policy {
    pub fn subject(&self) -> Subject<'_> {
        Subject {
            kind: Kind::NotificationPolicy,
            id: SubjectId::Text(&self.id),
            name: &self.name,
            origin: &self.origin,
            spans: Spans::NONE,
        }
    }
}

/// Certificates are named by their first host.
fn first_host(hosts: &[String]) -> &str {
    hosts.first().map_or("", String::as_str)
}

impl CustomCertificate {
    pub fn subject(&self) -> Subject<'_> {
        Subject {
            kind: Kind::CustomCertificate,
            id: SubjectId::Text(&self.id),
            name: first_host(&self.hosts),
            origin: &self.origin,
            spans: Spans::NONE,
        }
    }
}

impl CertificatePack {
    pub fn subject(&self) -> Subject<'_> {
        Subject {
            kind: Kind::CertificatePack,
            id: SubjectId::Text(&self.id),
            name: first_host(&self.hosts),
            origin: &self.origin,
            spans: Spans::NONE,
        }
    }
}

impl CustomHostname {
    pub fn subject(&self) -> Subject<'_> {
        Subject {
            kind: Kind::CustomHostname,
            id: SubjectId::Hostname(self),
            name: self.hostname(),
            origin: &self.origin,
            spans: Spans([
                (self.fields.certificate_authority, self.spans.authority),
                (self.fields.issued.expires_on, self.spans.expires_on),
            ]),
        }
    }
}

impl ZoneSetting {
    /// `kind` is `TotalTls` or `UniversalSsl`: the setting does not know which
    /// it is. A setting is the zone's: it goes by the zone's id and name.
    pub fn subject<'a>(&'a self, kind: Kind, zone: Option<&'a Zone>) -> Subject<'a> {
        Subject {
            kind,
            id: SubjectId::Text(zone.and_then(|z| z.id.as_deref()).unwrap_or("")),
            name: zone.and_then(|z| z.name.as_deref()).unwrap_or(""),
            origin: &self.origin,
            spans: Spans::NONE,
        }
    }
}

impl Account {
    /// `None` when the account has no pools: its findings point at its first pools list.
    pub fn subject(&self) -> Option<Subject<'_>> {
        Some(Subject {
            kind: Kind::Account,
            id: SubjectId::Text(self.id.as_deref().unwrap_or("")),
            name: "",
            origin: self.pool_lists.first()?,
            spans: Spans::NONE,
        })
    }
}

impl super::list::ExportList {
    pub fn subject(&self) -> Subject<'_> {
        Subject {
            kind: Kind::List,
            id: SubjectId::Text(&self.id),
            name: &self.name,
            origin: &self.origin,
            spans: Spans::NONE,
        }
    }
}
