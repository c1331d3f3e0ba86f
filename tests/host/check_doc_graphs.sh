#!/usr/bin/env bash
# Every graph example in docs/ and README.md must be valid: each fenced block opened with
# ```yaml graph is written to a file and given to `fieldflow check` (all of them in one call).
#   check_doc_graphs.sh FIELDFLOW REPO_DIR
set -euo pipefail
fieldflow=$1 repo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
count=0
for doc in "$repo"/README.md "$repo"/docs/*.md; do
    # awk writes block N of DOC to WORK/<doc name>-N.yaml
    awk -v out="$work/$(basename "$doc" .md)" '
        /^```yaml graph[ \t]*$/ { n++; file = out "-" n ".yaml"; inside = 1; next }
        /^```/ && inside { inside = 0; close(file); next }
        inside { print > file }' "$doc"
done
shopt -s nullglob
graphs=("$work"/*.yaml)
[ ${#graphs[@]} -gt 0 ] || { echo "no \`\`\`yaml graph blocks found in docs/"; exit 1; }
echo "checking ${#graphs[@]} graph example(s) from the docs"
"$fieldflow" check "${graphs[@]}"
