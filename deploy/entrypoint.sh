#!/bin/sh
# Container entry point: `serve` (the default) first creates or upgrades the database and loads the taxonomy,
# starter pool and models file (`arena init`, safe to repeat), retrying for up to a minute while a database
# started beside it comes up; any other arguments run as an `arena` command.
set -e
if [ "$#" -eq 0 ] || [ "$1" = "serve" ]; then
  tries=0
  until arena init; do
    tries=$((tries + 1))
    if [ "$tries" -ge "${ARENA_INIT_TRIES:-30}" ]; then
      echo "arena init failed $tries times; giving up" >&2
      exit 1
    fi
    echo "arena init failed (try $tries); retrying in 2 s" >&2
    sleep 2
  done
  [ "$#" -gt 0 ] && shift
  exec arena serve "$@"
fi
exec arena "$@"
