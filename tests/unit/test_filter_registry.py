"""The vote-filter registry: the filter version and the batch mark's version derived from it (the values of
before the registry for the built-in filters), the labels, and the registrations it refuses."""

import pytest

from arena.settings import Settings
from arena.voting.filters.anomaly import ANOMALY_FILTERS, find_anomalies
from arena.voting.filters.groups import Flag, RawVote
from arena.voting.filters.online import ONLINE_FILTERS
from arena.voting.filters.protocol import BatchFilter, OnlineFilter
from arena.voting.filters.registry import BUILTIN, REGISTRY, FilterRegistry


def _never(_signals, _settings):
    return None


def _all_ties(group):
    if len(group.votes) >= 3 and not group.decisive:
        return [Flag(v.id, "all_ties", f"{len(group.votes)} votes, none decisive") for v in group.votes]
    return []


ALL_TIES = BatchFilter("all_ties", "2", "only ties", "session", _all_ties)


def test_the_built_in_filters_give_the_versions_stored_before_the_registry():
    assert REGISTRY.filter_version() == "honeypot1+image_fetch1+min_time1+anomaly1"
    assert REGISTRY.batch_version() == "1"
    assert [f.name for f in REGISTRY.online] == ["min_time", "honeypot", "image_fetch"]
    assert REGISTRY.batch_names() == (
        "likelihood",
        "same_side",
        "favoritism",
        "address_likelihood",
        "address_favoritism",
    )


def test_the_versions_follow_the_registered_filters_in_a_stable_order():
    registry = FilterRegistry((ALL_TIES, *reversed(BUILTIN), OnlineFilter("a_first", "3", "x", _never)))
    assert registry.filter_version() == "a_first3+honeypot1+image_fetch1+min_time1+all_ties2+anomaly1"
    assert registry.batch_version() == "2+anomaly1"  # the first registered batch family's version first
    more = FilterRegistry(BUILTIN)
    more.register(ALL_TIES)
    assert more.batch_version() == "1+all_ties2"
    assert FilterRegistry(ONLINE_FILTERS).batch_version() == ""
    long = FilterRegistry(BUILTIN)
    for k in range(4):
        long.register(BatchFilter(f"extra_{k}", "1", "x", "address", _all_ties))
    assert len(long.batch_version()) == 16 and "+" not in long.batch_version()  # a digest: marks store 16


def test_labels_come_from_the_registry_and_an_unregistered_filter_keeps_the_old_label():
    registry = FilterRegistry(BUILTIN)
    assert registry.label("min_time") == "too fast"
    assert registry.label("honeypot") == "hidden form field filled"
    assert registry.label("image_fetch") == "images not loaded"
    assert registry.label("address_favoritism") == "unusual voting pattern"
    assert registry.label("gone") == "unusual voting pattern"
    assert (
        registry.grouping("address_likelihood") == "address" and registry.grouping("likelihood") == "session"
    )
    registry.unregister("min_time")
    assert registry.label("min_time") == "unusual voting pattern"
    assert [f.name for f in registry.online] == ["honeypot", "image_fetch"]
    assert registry.filter_version() == "honeypot1+image_fetch1+anomaly1"


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        (OnlineFilter("min_time", "2", "x", _never), "already registered"),
        (OnlineFilter("n" * 33, "1", "x", _never), "a name of 1-32"),
        (OnlineFilter("fine", "v" * 17, "x", _never), "a version of 1-16"),
        (BatchFilter("per_vote", "1", "x", "vote", _all_ties), "grouping must be one of session, address"),
        (
            BatchFilter("late", "2", "x", "session", _all_ties, family="anomaly"),
            "family 'anomaly' is batch version 1",
        ),
    ],
)
def test_the_registry_refuses_what_it_could_not_store_or_version(bad, message):
    registry = FilterRegistry(BUILTIN)
    with pytest.raises(ValueError, match=message):
        registry.register(bad)
    assert registry.filter_version() == "honeypot1+image_fetch1+min_time1+anomaly1"


def test_the_built_in_online_filters_judge_the_signals_as_before():
    settings = Settings(_env_file=None)
    honest = {"seconds": 3.0, "honeypot": False, "images_fetched": True}
    assert [f.evaluate(honest, settings) for f in ONLINE_FILTERS] == [None, None, None]
    bot = {"seconds": 0.5, "honeypot": True, "images_fetched": False}
    assert [f.evaluate(bot, settings) for f in ONLINE_FILTERS] == [
        "voted 0.50s after serving (< 2s)",
        "hidden honeypot field was filled",
        "client never fetched both images",
    ]


def test_a_batch_filter_runs_on_its_groups_beside_the_anomaly_filters():
    votes = [RawVote(k, "tied", "addr", "m0", "m1", "tie", "left") for k in range(3)]
    votes += [RawVote(10 + k, "decided", "addr", "m0", "m1", "model_a", "left") for k in range(3)]
    flags = find_anomalies(votes, (*ANOMALY_FILTERS, ALL_TIES))
    assert flags == [Flag(k, "all_ties", "3 votes, none decisive") for k in range(3)]
