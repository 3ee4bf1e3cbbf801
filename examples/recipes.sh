#!/bin/sh
# Pipeline recipes for gov. Each recipe is a function you can copy into your own scripts,
# or run on its own:
#
#   examples/recipes.sh index          build an index from examples/policies
#   examples/recipes.sh route-eval     route the labelled prompts and score the routes
#   examples/recipes.sh calibrate      choose an operating point from the labelled prompts
#   examples/recipes.sh cards [DIR]    verify every task card in DIR (default: examples/cards/good)
#   examples/recipes.sh telemetry      route with telemetry on, then report on the log
#   examples/recipes.sh all            every recipe above, in that order
#
# Work files go to $GOV_WORK (default: .gov/recipes under the current folder); the index
# is $GOV_WORK/index. Inputs default to the files beside this script; override them with
# GOV_POLICIES, GOV_LABELLED and GOV_CARDS. Each recipe exits with gov's status: 0 fine,
# 1 the check found problems, 2 a usage error.
set -eu

here=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
policies=${GOV_POLICIES:-$here/policies}
labelled=${GOV_LABELLED:-$here/labelled.jsonl}
cards=${GOV_CARDS:-$here/cards/good}
work=${GOV_WORK:-.gov/recipes}
index=$work/index

# Build the index file once; later routes memory-map it.
index() {
    mkdir -p "$work"
    gov index "$policies" -o "$index"
}

have_index() {
    [ -f "$index" ] || index >&2
}

# Route every labelled prompt (JSONL in, JSONL out: the labels pass through), then score the
# routes: recall, precision, F1, top-1, false alarms, per kind. --corpus builds the index,
# or refreshes it when a policy changed, so this recipe runs on its own.
route_eval() {
    mkdir -p "$work"
    gov route --corpus "$policies" -i "$index" --format jsonl <"$labelled" >"$work/routed.jsonl"
    gov eval "$work/routed.jsonl" -i "$index"
}

# Choose the operating point (floors, fusion, threshold) from the labelled prompts, save it,
# and score routing with it. Scoring on the prompts it was chosen on is optimistic: keep a
# held-out set for the figure you report.
calibrate() {
    have_index
    gov calibrate -i "$index" --out "$work/point.json" <"$labelled"
    gov route -i "$index" --operating-point "$work/point.json" --format jsonl <"$labelled" |
        gov eval -i "$index"
}

# Verify every task card in a folder against the default contract. Set GOV_CARD_NOW to an
# RFC 3339 time to judge timestamps as of then (a CI rerun then gives the same answer).
cards() {
    dir=${1:-$cards}
    if [ -n "${GOV_CARD_NOW:-}" ]; then
        gov card verify "$dir" --format text --now "$GOV_CARD_NOW"
    else
        gov card verify "$dir" --format text
    fi
}

# Turn telemetry on for a batch of routes, then report: outcomes, latency, the documents
# routed most and those never routed. The log holds no prompt text.
telemetry() {
    have_index
    # gov takes an absolute log path only (a relative one would split the log by folder)
    mkdir -p "$work"
    log=$(cd "$work" && pwd -P)/telemetry.jsonl
    : >"$log"
    GOV_TELEMETRY_PATH=$log gov route -i "$index" --format jsonl <"$labelled" >/dev/null
    gov telemetry report "$log" -i "$index"
}

usage() {
    echo "usage: $0 index|route-eval|calibrate|cards [DIR]|telemetry|all" >&2
    exit 2
}

[ $# -ge 1 ] || usage
recipe=$1
shift
case $recipe in
    index) index ;;
    route-eval) route_eval ;;
    calibrate) calibrate ;;
    cards) cards "$@" ;;
    telemetry) telemetry ;;
    all)
        index
        route_eval
        calibrate
        cards
        telemetry
        ;;
    *) usage ;;
esac
