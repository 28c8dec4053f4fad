#!/usr/bin/env bash
# demo/clients/run.sh [REGISTERED [CANDIDATES]]: the seeds' first case end to
# end, on a throwaway cluster of the host's PostgreSQL: a users table of
# REGISTERED names (10,000,000) with a bloomfilter index on name, and an
# application (check_names.py, psycopg) that checks CANDIDATES names
# (1,000,000) against it, asking the server only for the filter's "maybe"
# answers.  Installs what it needs (psycopg from Debian); run as root from
# the top folder after `make install` (tools/run.sh demo does both).
set -euo pipefail
cd "$(dirname "$0")/../.."
registered=${1:-10000000}
candidates=${2:-1000000}
. tools/lib.sh
install_missing python3-psycopg
chmod -R a+rX . 2>/dev/null || true
cat >/tmp/bloom-demo-clients.sh <<SH
set -euo pipefail
psql -X -q -v ON_ERROR_STOP=1 <<SQL
CREATE EXTENSION bloomfilter;
\\timing on
CREATE TABLE users (id int8 PRIMARY KEY, name text NOT NULL UNIQUE);
INSERT INTO users SELECT g, 'user' || (g::int8 * 7919 % 100000000) FROM generate_series(1, $registered) g;
-- (analyzed first: the build sizes its first layer for the table's rows when
-- their hashes do not fit in maintenance_work_mem, and an unanalyzed table's
-- estimate can be far off)
ANALYZE users;
CREATE INDEX users_name_seen ON users USING bloomfilter (name);
\\timing off
SELECT layers, keys_added, pg_size_pretty(size_bytes) AS size, false_positive_rate FROM bloom_index_info('users_name_seen');
SQL
PYTHONPATH=$PWD/clients/python/src /usr/bin/python3 demo/clients/check_names.py $candidates
SH
pg_virtualenv -t bash /tmp/bloom-demo-clients.sh
rm -f /tmp/bloom-demo-clients.sh
