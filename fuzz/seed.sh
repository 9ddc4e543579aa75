#!/usr/bin/env bash
# Seeds each target's corpus from the project's own fixtures (corpora are not committed).
set -euo pipefail
cd "$(dirname "$0")"
for t in json_loader yaml_loader bind_reader pem_bundle config baseline rule_pack check_file; do mkdir -p "corpus/$t"; done
find ../fixtures ../tests/fixtures -name '*.json' -exec cp {} corpus/json_loader/ \;
find ../fixtures ../tests/fixtures \( -name '*.yaml' -o -name '*.yml' \) -exec cp {} corpus/yaml_loader/ \;
find ../fixtures ../tests/fixtures \( -name '*.zone' -o -name '*.bind' \) -exec cp {} corpus/bind_reader/ \;
cp ../tests/fixtures/chains/*.pem corpus/pem_bundle/
cp ../src/config/starter.yaml corpus/config/
cp ../rules/*.yaml corpus/rule_pack/
printf '{"version":1,"tool":"edgeaudit","findings":[\n{"fingerprint":"00","rule":"LB001","resource":"pool/a","name":"a","field":"/notification_email"}\n]}\n' > corpus/baseline/one.json
# check_file: the first byte picks the format in `edgeaudit::input::FORMATS`' order; the
# example seeds every format of the registry from the fixtures its extensions name.
(cd .. && cargo run --quiet --example fuzz_seeds -- fuzz/corpus/check_file)
echo "seeded $(find corpus -type f | wc -l) inputs"
