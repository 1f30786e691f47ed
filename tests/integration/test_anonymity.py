"""Anonymity before the vote, the reduced run of bench/bench_anonymity.py (150 matchups here, 1,000 there):
over the six text-to-image sandbox models no pre-vote byte (matchup JSON, headers, image bytes and metadata, the
arena page) names a model; a client that records image hash -> model from each reveal labels nothing later
(bytes never repeat, though the same outputs are served again); every image has the same byte length and
dimensions; and classifiers on (size, width, height, response time) do no better than the majority class plus 5
points. Model-page images (/media, linked from /models/<slug> and the model API) come only from retired prompts
and carry no model name in their bytes either."""

import pytest

from arena.app import create_app
from tests.conftest import serve
from tests.support.anonymity import (
    build_world,
    cross_validate,
    retire_and_publish,
    scan_model_pages,
    vote_matchups,
)

MATCHUPS = 150
PROMPTS = 4


@pytest.fixture
def voting_settings(settings):
    # One loopback address plays many voters here; each session keeps the default limit (and is rotated).
    return settings.model_copy(update={"address_votes_per_minute": 100_000})


def test_no_pre_vote_byte_size_or_timing_names_a_model(voting_settings, initialized, frozen):
    entries = build_world(voting_settings, initialized, prompts=PROMPTS)
    with serve(create_app(voting_settings, engine=initialized, clock=frozen)) as url:
        run = vote_matchups(url, entries, voting_settings, frozen, MATCHUPS)
        retire_and_publish(initialized, voting_settings, frozen)
        scan_model_pages(url, initialized, entries, run)

    assert run.matchups == MATCHUPS and run.votes >= 0.9 * MATCHUPS, run.refused
    assert run.leaks == []
    assert run.media_checked > 0 and run.media_not_retired == []
    # The same outputs were served again (so repeated bytes would have been labelled), yet no hash matched.
    assert run.repeats > MATCHUPS // 2
    assert run.hash_labelled == 0  # the attack labelled 70% of images in the last 100 matchups before the fix
    assert {(s.size, s.width, s.height) for s in run.samples} == {
        (voting_settings.served_image_bytes, 1024, 1024)
    }
    assert len({s.model for s in run.samples}) == len(entries)
    scores = cross_validate(run.samples)
    majority = scores.pop("majority class")
    assert all(accuracy <= majority + 0.05 for accuracy in scores.values()), (majority, scores)
