"""The shared metrics directory of `arena serve --workers N`: made fresh, or the given one emptied of an earlier
run's files, and exported for the workers; a process without it keeps the in-memory registry."""

import os

from arena.runtime import metrics_files


def test_without_a_directory_a_fresh_one_is_made_and_exported(monkeypatch):
    # setenv (not delenv) so the variable prepare_shared_metrics exports is removed again afterwards: left
    # set, every later test in this process would scrape in multiprocess mode
    monkeypatch.setenv(metrics_files.ENV, "")
    assert metrics_files.multiprocess_dir() is None  # one process: prometheus-client's in-memory registry
    path = metrics_files.prepare_shared_metrics()
    assert path.is_dir() and not any(path.iterdir())
    assert os.environ[metrics_files.ENV] == str(path) == metrics_files.multiprocess_dir()


def test_a_given_directory_loses_an_earlier_runs_files_only(monkeypatch, tmp_path):
    (tmp_path / "counter_4242.db").write_bytes(b"old")
    (tmp_path / "histogram_4242.db").write_bytes(b"old")
    (tmp_path / "README").write_text("kept")
    monkeypatch.setenv(metrics_files.ENV, str(tmp_path))
    assert metrics_files.prepare_shared_metrics() == tmp_path
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README"]
