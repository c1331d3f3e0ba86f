# Sourced by the batch benchmarks (batch_devices.sh, batch_throughput.sh): what they share.
# ROOT (the source tree), FIELDFLOW (the program; default build/bin/fieldflow, else fieldflow on
# PATH) and GRAPH (default graphs/lake.yaml).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${FIELDFLOW:-}" ]; then
    if [ -x "$ROOT/build/bin/fieldflow" ]; then FIELDFLOW=$ROOT/build/bin/fieldflow; else FIELDFLOW=fieldflow; fi
fi
GRAPH=${GRAPH:-$ROOT/graphs/lake.yaml}

# need_arguments N "$@": with fewer than N arguments, print the calling script's header comment
# (its usage) and exit 2.
need_arguments() {
    if [ $(($# - 1)) -lt "$1" ]; then
        awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0" >&2
        exit 2
    fi
}

# work_folder NAME: WORK, a new temporary folder, removed on exit unless KEEP=1.
work_folder() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$WORK"' EXIT
}
