//! Who is hurt, per resource: the requests its hosts received, by client
//! class, and the share from impacted clients. Carried by every certificate
//! finding on a resource that serves hosts (`impact` in JSON, SARIF
//! `properties.impact`), shown and ordered by in the other reports, and
//! ordering the plan's certificate steps.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;

use super::hosts::HostIndex;
use super::{Counters, Traffic, Window};
use crate::engine::rule::Migration;
use crate::facts::SubjectRef;
use crate::findings::Finding;
use crate::model::Kind;

/// A certificate finding's traffic.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Impact {
    pub requests: u64,
    pub impacted: u64,
    pub unknown: u64,
    pub already_broken: u64,
    /// `impacted / requests`; none without a request.
    pub share: Option<f64>,
    /// `(impacted + unknown) / requests`.
    pub upper_share: Option<f64>,
    pub window: Option<WindowJson>,
    pub sample_rate: f64,
    /// The window starts after the resource stopped serving the cross-signed
    /// chain: impacted clients that could not connect left no line, so the
    /// share is a lower bound.
    pub lower_bound: bool,
}

/// The window, in RFC 3339.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WindowJson {
    pub from: String,
    pub to: String,
}

impl WindowJson {
    pub fn of(w: &Window) -> WindowJson {
        let at = |t: DateTime<Utc>| t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        WindowJson {
            from: at(w.from),
            to: at(w.to),
        }
    }
}

/// The traffic of a run, by resource.
#[derive(Debug, Default)]
pub struct TrafficImpact {
    by_subject: HashMap<SubjectRef, Counters>,
    pub total: Counters,
    pub excluded: f64,
    pub crawlers: f64,
    pub window: Option<Window>,
    pub sample_rate: f64,
    pub files: usize,
    pub skipped: Vec<crate::text::error::InputError>,
}

fn round(n: f64) -> u64 {
    if n.is_finite() && n > 0.0 { n.round() as u64 } else { 0 }
}

impl TrafficImpact {
    pub fn of(traffic: Traffic, index: &HostIndex) -> TrafficImpact {
        let mut by_subject: HashMap<SubjectRef, Counters> = HashMap::new();
        for (host, counters) in &traffic.by_host {
            index.for_each(host, |s| by_subject.entry(s).or_default().merge(counters));
        }
        TrafficImpact {
            by_subject,
            total: traffic.total,
            excluded: traffic.excluded,
            crawlers: traffic.crawlers,
            window: traffic.window,
            sample_rate: traffic.sample_rate,
            files: traffic.files,
            skipped: traffic.skipped,
        }
    }

    /// The impact a finding carries: a certificate finding on a resource that serves hosts.
    pub fn of_finding(&self, f: &Finding) -> Option<Impact> {
        if f.rule.migration != Some(Migration::Certificates) || !serves_hosts(f.subject.kind) {
            return None;
        }
        let c = self.by_subject.get(&f.subject).copied().unwrap_or_default();
        let requests = round(c.requests);
        let share = |n: f64| (requests > 0).then(|| n / c.requests);
        let unused = crate::engine::dates::named("cross_sign_unused").map(|d| d.day);
        let expiry = crate::engine::dates::named("cross_sign_expiry").map(|d| d.day);
        // Managed certificates stopped using the cross-signed chain on 2024-09-09; an
        // uploaded certificate may have served it until it expired on 2024-09-30.
        let stopped = if f.subject.kind == Kind::CustomCertificate {
            expiry
        } else {
            unused
        };
        let lower_bound = match (self.window, stopped) {
            (Some(w), Some(day)) => w.from.date_naive() >= day,
            _ => false,
        };
        Some(Impact {
            requests,
            impacted: round(c.impacted),
            unknown: round(c.unknown),
            already_broken: round(c.already_broken),
            share: share(c.impacted),
            upper_share: share(c.impacted + c.unknown),
            window: self.window.as_ref().map(WindowJson::of),
            sample_rate: self.sample_rate,
            lower_bound,
        })
    }

    /// Every finding's impact, in the findings' order.
    pub fn of_findings(&self, findings: &[Finding]) -> Vec<Option<Impact>> {
        findings.iter().map(|f| self.of_finding(f)).collect()
    }
}

/// Whether resources of this kind serve hosts.
pub fn serves_hosts(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::CustomHostname | Kind::CertificatePack | Kind::CustomCertificate | Kind::TotalTls
    )
}

/// Orders the certificate findings that carry an impact by impacted
/// requests, then share, each keeping the places such findings had among the
/// others (the rest keep their order). `order` holds the findings' indexes.
pub fn order_by_impact(order: &mut [usize], impacts: &[Option<Impact>]) {
    let slots: Vec<usize> = (0..order.len())
        .filter(|&i| impacts.get(order[i]).is_some_and(Option::is_some))
        .collect();
    let mut ranked: Vec<usize> = slots.iter().map(|&i| order[i]).collect();
    ranked.sort_by(|&a, &b| {
        let (x, y) = (impacts[a].as_ref(), impacts[b].as_ref());
        let key = |i: Option<&Impact>| (i.map_or(0, |i| i.impacted), i.and_then(|i| i.share).unwrap_or(0.0));
        let (kx, ky) = (key(x), key(y));
        ky.0.cmp(&kx.0).then(ky.1.total_cmp(&kx.1))
    });
    for (slot, finding) in slots.into_iter().zip(ranked) {
        order[slot] = finding;
    }
}

/// `3.2 % of 12,345 requests` and the upper bound, as reports write it.
pub fn words(i: &Impact) -> String {
    match (i.share, i.upper_share) {
        (Some(share), Some(upper)) => {
            let mut out = format!(
                "{} of {} requests from impacted clients ({})",
                crate::words::thousands(i.impacted),
                crate::words::thousands(i.requests),
                percent(share)
            );
            if upper > share {
                out.push_str(&format!(", up to {} with clients that do not tell", percent(upper)));
            }
            if i.lower_bound {
                out.push_str(
                    " — a lower bound: the window starts after the cross-signed chain was gone, and clients that failed left no line",
                );
            }
            out
        }
        _ => "no request in the traffic given".to_string(),
    }
}

pub fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p == 0.0 {
        "0 %".to_string()
    } else if p < 0.01 {
        "< 0.01 %".to_string()
    } else if p < 10.0 {
        format!("{p:.2} %")
    } else {
        format!("{p:.1} %")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn impact(impacted: u64, share: f64) -> Option<Impact> {
        Some(Impact {
            requests: 100,
            impacted,
            unknown: 0,
            already_broken: 0,
            share: Some(share),
            upper_share: Some(share),
            window: None,
            sample_rate: 1.0,
            lower_bound: false,
        })
    }

    #[test]
    fn certificate_findings_are_ranked_in_their_own_places() {
        let impacts = vec![None, impact(1, 0.01), None, impact(50, 0.5), impact(50, 0.6)];
        let mut order = vec![0, 1, 2, 3, 4];
        order_by_impact(&mut order, &impacts);
        assert_eq!(order, vec![0, 4, 2, 3, 1]);
    }

    #[test]
    fn shares_in_words() {
        assert_eq!(percent(0.0296), "2.96 %");
        assert_eq!(percent(0.5), "50.0 %");
        assert_eq!(percent(0.00001), "< 0.01 %");
    }
}
