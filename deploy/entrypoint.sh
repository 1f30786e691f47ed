#!/bin/sh
# Container entry point: `serve` (the default) first creates or upgrades the database and loads the taxonomy,
# starter pool and models file (`arena init`, safe to repeat); any other arguments run as an `arena` command.
set -e
if [ "$#" -eq 0 ] || [ "$1" = "serve" ]; then
  arena init
  [ "$#" -gt 0 ] && shift
  exec arena serve "$@"
fi
exec arena "$@"
