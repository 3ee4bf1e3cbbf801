#!/bin/sh
# Lint a policy corpus (default: policies/) with `gov lint`.
#
# On GitHub Actions the findings become annotations on the policy files; elsewhere they
# print as text, grouped by document, worst first. Set GOV_LINT_FAIL_ON to warning (or
# note) to fail on less than errors, and GOV_LINT_MAX_TOKENS to check that every document
# fits a context budget. A gov-lint.json beside the policies switches rules off.
#
# Exit codes: 0 no finding at or above the threshold, 1 some, 2 usage error.
set -eu

dir=${1:-policies}
if [ ! -e "$dir" ]; then
    echo "lint-policies: $dir does not exist" >&2
    exit 2
fi

format=text
if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
    format=github
fi

set -- "$dir" --format "$format" --fail-on "${GOV_LINT_FAIL_ON:-error}"
if [ -n "${GOV_LINT_MAX_TOKENS:-}" ]; then
    set -- "$@" --max-tokens "$GOV_LINT_MAX_TOKENS"
fi
exec gov lint "$@"
