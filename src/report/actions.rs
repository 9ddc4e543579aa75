//! A finding's remedy (its typed actions) as the JSON and SARIF reports
//! write it.

use serde::Serialize;
use serde_json::Value;

use crate::plan::remedy::Action;
use crate::plan::request::{Body, Request};

/// A finding's actions as its JSON and SARIF `actions` give them, written
/// straight from the typed actions: no tree of JSON values is built, copied
/// and dropped for each finding (at 200 000 pools that tree was a fifth of
/// the report's work).
pub struct ActionsJson {
    actions: Vec<Action>,
    /// The account as the paths write it: an encoded id, or `{account_id}`.
    account: String,
}

impl ActionsJson {
    /// None when there is no action: the finding's `actions` is then absent.
    pub fn new(actions: Vec<Action>, account: String) -> Option<ActionsJson> {
        (!actions.is_empty()).then_some(ActionsJson { actions, account })
    }
}

impl Serialize for ActionsJson {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.actions.iter().map(|a| ActionJson::of(a, &self.account)))
    }
}

/// One action: a request (`method`, `path`, `body`), a manual step
/// (`manual: true`) or a configuration edit (`terraform`), with its reason
/// and the actions it waits for. Members by name, as they have always been
/// written. Written through [`super::pretty`], which escapes its text.
#[derive(Serialize)]
struct ActionJson<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    body: Option<Body<'a>>,
    depends_on: &'a [usize],
    #[serde(skip_serializing_if = "Option::is_none")]
    manual: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    method: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<String>,
    #[serde(serialize_with = "super::pretty::escaped")]
    reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    terraform: Option<Value>,
}

impl<'a> ActionJson<'a> {
    fn of(a: &'a Action, account: &str) -> ActionJson<'a> {
        let mut out = ActionJson {
            body: None,
            depends_on: &a.depends_on,
            manual: None,
            method: None,
            path: None,
            reason: a.request.reason(),
            terraform: None,
        };
        if let Request::Terraform(edit) = &a.request {
            out.terraform = Some(edit.json());
            return out;
        }
        match (a.request.method(), a.request.path(account), a.request.body_ref()) {
            (Some(method), Some(path), Some(body)) => {
                out.method = Some(method);
                out.path = Some(path);
                out.body = Some(body);
            }
            _ => out.manual = Some(true),
        }
        out
    }
}
