#!/bin/sh
# Verify every task card under a directory (default: cards/) with `gov card verify`.
#
# On GitHub Actions the failures become annotations on the files; elsewhere they print as
# text. Timestamps are judged as of the last commit (or GOV_CARD_NOW), so re-running an
# old build gives the same answer. Set GOV_CARD_STRICT=1 to fail on SOFT failures too,
# and GOV_CARD_CONTRACT to a contract name or file.
#
# Exit codes: 0 every card valid and passing, 1 some card invalid or failing, 2 usage error.
set -eu

dir=${1:-cards}
if [ ! -d "$dir" ]; then
    echo "lint-cards: $dir is not a directory" >&2
    exit 2
fi
if [ -z "$(find "$dir" -type f \( -name '*.json' -o -name '*.jsonl' \) -print | head -n 1)" ]; then
    echo "lint-cards: no .json or .jsonl cards under $dir; nothing to verify" >&2
    exit 0
fi

format=text
if [ "${GITHUB_ACTIONS:-}" = "true" ]; then
    format=github
fi
now=${GOV_CARD_NOW:-$(git log -1 --format=%cI 2>/dev/null || date -u +%Y-%m-%dT%H:%M:%SZ)}

set -- "$dir" --format "$format" --now "$now" --contract "${GOV_CARD_CONTRACT:-default}"
if [ -n "${GOV_CARD_STRICT:-}" ]; then
    set -- "$@" --strict
fi
exec gov card verify "$@"
