use super::args::{PlanArgs, PlanFormat};
use super::{EXIT_CLEAN, fail, load_options, warn_skipped};
use crate::check::{CheckOptions, check};
use crate::plan::render::{self, Tally};
use crate::report::Shield;

const SHELL_RETIRED: &str = "the shell format is retired: a script cannot check the live account before each change; write the plan with `--format json` and run it with `edgeaudit apply PLAN.json` (it checks before every change and can be run again after any stop)";

/// A plan made: its accounts' plans, how its pools are named in Terraform,
/// and its date.
pub(crate) struct Made {
    pub plans: Vec<crate::plan::AccountPlan>,
    pub names: render::PoolNames,
    pub as_of: chrono::NaiveDate,
}

/// Loads the exports, runs the rules (for the certificate steps), builds and
/// replays the plan, and writes it; a plan the replay rejects is never
/// written (exit 2, naming the step and the pool).
pub fn run(args: &PlanArgs) -> u8 {
    if args.format == PlanFormat::Shell {
        return fail(SHELL_RETIRED);
    }
    let Made { plans, names, as_of } = match make(args) {
        Ok(made) => made,
        Err(code) => return code,
    };
    write(args, &plans, &names, as_of)
}

/// The plan `args` ask for, or the exit code of what stopped it (said on
/// standard error). `apply --from` makes the plan again through it.
pub(crate) fn make(args: &PlanArgs) -> Result<Made, u8> {
    let fail = |e: String| Err(fail(e));
    // The same config as `check`: its date, its exclusions, its rules and
    // severities, and its waivers (a waived finding is not a step).
    let config = match super::config_in_force(args.config.as_deref(), args.no_config, &args.paths) {
        Ok(c) => c,
        Err(e) => return fail(e.to_string()),
    };
    let as_of = match super::as_of(args.as_of.as_deref(), &config) {
        Ok(d) => d,
        Err(e) => return fail(e.to_string()),
    };
    let load = match load_options(args.kind.as_deref(), args.input_format.as_deref(), &args.walk, &config) {
        Ok(o) => o,
        Err(e) => return fail(e.to_string()),
    };
    let rules = match super::configured_rules(&[], &[], &[], &config) {
        Ok(r) => r,
        Err(e) => return fail(e.to_string()),
    };
    if args.show_config {
        let excludes = config.exclude_strings();
        let shown = super::show_config::Shown {
            config_file: super::show_config::config_file(&config),
            as_of: Some((as_of, super::show_config::as_of_source(args.as_of.as_deref(), &config))),
            rules: Some(&rules),
            exclude: excludes.iter().chain(&args.walk.exclude).map(String::as_str).collect(),
            waivers: Some(&config.waivers),
            ..Default::default()
        };
        return Err(super::print(crate::report::Shield::Log, shown.render().as_bytes()));
    }
    let options = CheckOptions {
        paths: args.paths.clone(),
        load,
        as_of,
        traffic: super::traffic_options(&args.traffic, &config),
    };
    let triage = crate::triage::Triage {
        waivers: config.waivers.clone(),
        ..Default::default()
    };
    let built = check(&options, &rules, triage, |outcome, analysis| {
        warn_skipped(&outcome.skipped, args.walk.show_files);
        let from_terraform = analysis
            .inventory()
            .accounts
            .iter()
            .any(|a| a.pools.iter().any(|p| p.origin.address().is_some()) || a.policies.iter().any(|p| p.origin.address().is_some()));
        if from_terraform && !matches!(args.format, PlanFormat::Terraform) {
            crate::say!(
                "edgeaudit plan: warning: some pools or policies come from Terraform: the plan's API calls would drift from the configuration, which the next apply undoes; make the same changes in the .tf files (existing Terraform policies are never updated by the plan)"
            );
        }
        crate::plan::build(outcome, analysis, args.per_page as usize).map(|plans| (plans, render::PoolNames::of(analysis.inventory())))
    });
    let (plans, names) = match built {
        Err(errors) => return fail(errors.to_string()),
        Ok(Err(refusal)) => {
            return fail(format!("no plan written: {refusal}"));
        }
        Ok(Ok(built)) => built,
    };
    Ok(Made { plans, names, as_of })
}

fn write(args: &PlanArgs, plans: &[crate::plan::AccountPlan], names: &render::PoolNames, as_of: chrono::NaiveDate) -> u8 {
    // The plan's id is its JSON document's digest: made once.
    let document = render::json(plans, as_of, args.per_page as usize);
    let plan_id = document.plan_id.clone();
    // JSON is written through its shield as it is serialised: a plan of a
    // million steps is never held as text twice.
    let text = match args.format {
        PlanFormat::Json => String::new(),
        PlanFormat::Shell => return fail(SHELL_RETIRED),
        PlanFormat::Markdown => render::markdown(plans, as_of, &plan_id),
        PlanFormat::Terraform => render::terraform(plans, names),
        PlanFormat::Html => crate::plan::html::html(plans, as_of, &plan_id),
    };
    // Markdown and Terraform are read raw in terminals and logs too.
    let shield = match args.format {
        PlanFormat::Json => Shield::Json,
        PlanFormat::Html => Shield::Own,
        PlanFormat::Markdown | PlanFormat::Terraform | PlanFormat::Shell => Shield::Log,
    };
    let mut shown = Vec::with_capacity(text.len());
    let rendered = crate::report::shielded_by(shield, args.output.is_none(), false, &mut shown, |w| match args.format {
        PlanFormat::Json => {
            serde_json::to_writer_pretty(&mut *w, &document)?;
            w.write_all(b"\n")
        }
        _ => w.write_all(text.as_bytes()),
    });
    drop(document);
    drop(text);
    if let Err(e) = rendered {
        return fail(format!("cannot render the plan: {e}"));
    }
    let written = match &args.output {
        Some(path) => crate::files::write_output(std::path::Path::new(path), &shown).map_err(|e| format!("cannot write {path}: {e}")),
        None => crate::say::stdout(&shown).map_err(|e| format!("cannot write to stdout: {e}")),
    };
    if let Err(e) = written {
        return fail(e);
    }
    for warning in plans.iter().flat_map(|p| &p.warnings) {
        crate::say!("edgeaudit plan: warning: {}", crate::text::escape::terminal::value(warning));
    }
    crate::say!("edgeaudit plan {}: {}.", plan_id, Tally::of(plans).headline(plans));
    EXIT_CLEAN
}
