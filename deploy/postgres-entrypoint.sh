#!/bin/sh
# First start: initdb, then create POSTGRES_USER (password POSTGRES_PASSWORD) and POSTGRES_DB; every start: run
# the server listening on all addresses of the container, password auth for network clients.
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  initdb --username=postgres --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 \
    -D "$PGDATA" >/dev/null
  echo "host all all 0.0.0.0/0 scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  psql -v ON_ERROR_STOP=1 --username=postgres -c "CREATE ROLE \"$POSTGRES_USER\" LOGIN PASSWORD '$POSTGRES_PASSWORD'" >/dev/null
  psql -v ON_ERROR_STOP=1 --username=postgres -c "CREATE DATABASE \"$POSTGRES_DB\" OWNER \"$POSTGRES_USER\"" >/dev/null
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec postgres -D "$PGDATA" -c listen_addresses='*'
