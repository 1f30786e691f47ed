"""Scheduler: APScheduler wiring and the periodic jobs (timing runs, snapshots, backfill, retirement)."""
