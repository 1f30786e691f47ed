#!/usr/bin/env bash
# Baseline comparison of one eval suite, for CI (docs/ci/eval-suite.yml calls it on every pull request):
#
#   scripts/eval-ci.sh SUITE BASE_CHECKOUT [OUT]
#
# runs SUITE twice with `arena eval run` -- as the base branch has it (BASE_CHECKOUT/SUITE with
# BASE_CHECKOUT/models.toml) into OUT/base, and as this checkout has it (SUITE with ./models.toml) into OUT/pr --
# then `arena eval compare OUT/base OUT/pr --fail-on-regression --markdown OUT/comment.md`.
# ARENA_MODELS_FILE, when set, is used by both runs instead (with provider keys: point it at the base branch's file,
# so a pull request cannot send a key elsewhere). Both runs share ARENA_DATABASE_URL, where compare reads them.
#
# A run's own exit code 1 (a gate below its min_pass_rate) or 3 (a grader skipped, e.g. --no-judge) does not fail
# the job: suites may gate models that are meant to fail (the shipped suites pair a good sandbox model with a
# flawed one), so the question asked of a pull request is "did anything get worse than on the base branch?".
# Exit code: compare's (0 nothing regressed, 1 a metric regressed, 3 an outage left items out of the comparison),
# 2 when a run refused its input. A suite the base branch does not have yet is run and reported, not compared (0).
#
# ARENA (default `arena`) is the command line to call; EVAL_RUN_ARGS (default `--no-judge --concurrency 2`) is
# passed to both runs: drop --no-judge when a judge is configured.
set -uo pipefail

if [ $# -lt 2 ]; then
    echo "usage: scripts/eval-ci.sh SUITE BASE_CHECKOUT [OUT]" >&2
    exit 2
fi
suite=$1
base=$2
out=${3:-var/evals/ci}
arena=${ARENA:-arena}
run_args=${EVAL_RUN_ARGS:---no-judge --concurrency 2}

run() {  # NAME SUITE MODELS_FILE: one `arena eval run`; 0, 1 and 3 are results, anything else stops the job
    local name=$1 file=$2 models=${ARENA_MODELS_FILE:-$3} code
    rm -rf "$out/$name"
    echo "== $name: arena eval run $file (models file $models)"
    # shellcheck disable=SC2086  # $arena and $run_args are word lists
    ARENA_MODELS_FILE=$models $arena eval run "$file" --out "$out/$name" $run_args
    code=$?
    case $code in
        0 | 1 | 3) echo "== $name: exit $code (gates are reported; the comparison decides)" ;;
        *) echo "== $name: exit $code: the run did not complete" >&2; exit "$code" ;;
    esac
}

mkdir -p "$out"
rm -f "$out/comment.md"  # a comment left by an earlier run must not stand for this one
if [ ! -f "$base/$suite" ]; then
    run pr "$suite" models.toml
    echo "no baseline: $base/$suite does not exist on the base branch, so nothing is compared" | tee "$out/comment.md"
    exit 0
fi
run base "$base/$suite" "$base/models.toml"
run pr "$suite" models.toml
# shellcheck disable=SC2086
$arena eval compare "$out/base" "$out/pr" --fail-on-regression --markdown "$out/comment.md"
