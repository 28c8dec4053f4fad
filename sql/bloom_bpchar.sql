--
-- char(n) under a nondeterministic collation (1.12).  char(n)'s equality
-- ignores trailing blanks ('ab' = 'ab    '), and so must its hash.
-- PostgreSQL 15's extended hash (hashbpcharextended) counts them under a
-- nondeterministic ICU collation (its 32-bit hashbpchar, the hash joins',
-- does not), so a filter of char(6) values would say "absent" of the same
-- values cast shorter, or typed as literals: there every filter, index and
-- probe of char(n) under such a collation is refused (0A000), as name's
-- are; 17 and 18 hash them alike, and filters work (expected/
-- bloom_bpchar_1.out is 15's).  The server is asked, not its version.
--
SET client_min_messages = warning;
CREATE SCHEMA bloom_bpchar;
SET search_path = bloom_bpchar, public;
CREATE COLLATION bp_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
CREATE TABLE padded (b char(6) COLLATE bp_ci);
INSERT INTO padded VALUES ('ab'), ('abcdef');
-- what the server's hash does: the same under "C"; under bp_ci, 15 differs
SELECT hashbpcharextended('ab'::char(2) COLLATE bp_ci, 0) = hashbpcharextended('ab    '::char(6) COLLATE bp_ci, 0)
       AS extended_ignores_blanks,
       hashbpchar('ab'::char(2) COLLATE bp_ci) = hashbpchar('ab    '::char(6) COLLATE bp_ci) AS hashbpchar_ignores_blanks;
-- a filter of the column, probed with the same values, shorter and in other case
SELECT bloom_agg(b) @> ('AB'::char(2) COLLATE bp_ci) AS agg_found FROM padded;
-- (bloom_add and @> have text forms, which char(n) takes, its blanks cast away)
SELECT bloom_add(bloom_empty(100), 'ab'::char(6) COLLATE bp_ci) @> ('AB'::char(2) COLLATE bp_ci) AS add_found,
       (bloom_info(bloom_add(bloom_empty(100), 'ab'::char(6) COLLATE bp_ci))).element_family;
-- an index on it, and the column's values and literals looked up
CREATE INDEX padded_b ON padded USING bloomfilter (b);
SELECT b, bloom_index_contains('padded_b', b) AS found, EXISTS (SELECT FROM padded p WHERE p.b = 'AB') AS exists_ab
  FROM padded ORDER BY b;
SELECT bloom_index_contains('padded_b', 'AB') AS literal, bloom_index_contains('padded_b', 'AB'::bpchar) AS bpchar;
-- a deterministic column under an index collation that is not: refused on 15 too
CREATE TABLE plain_c (b char(6) COLLATE "C");
INSERT INTO plain_c VALUES ('ab');
CREATE INDEX plain_c_ci ON plain_c USING bloomfilter (b COLLATE bp_ci);
SELECT count(*) FILTER (WHERE NOT bloom_index_contains('plain_c_ci', b)) AS false_negatives FROM plain_c;
-- An index made so before 1.12 (made here by giving the column and the index
-- the collation behind their backs): its table still takes rows; on 15 its
-- readers refuse it.
CREATE TABLE old_padded (b char(6) COLLATE "C");
CREATE INDEX old_padded_b ON old_padded USING bloomfilter (b);
INSERT INTO old_padded VALUES ('ab');
UPDATE pg_attribute SET attcollation = 'bp_ci'::regcollation
 WHERE attrelid IN ('old_padded'::regclass, 'old_padded_b'::regclass) AND attname = 'b';
UPDATE pg_index SET indcollation = ('' || 'bp_ci'::regcollation::oid)::oidvector
 WHERE indexrelid = 'old_padded_b'::regclass;
\c
SET client_min_messages = warning;
SET search_path = bloom_bpchar, public;
INSERT INTO old_padded VALUES ('cd');
SELECT count(*) AS rows FROM old_padded;
SELECT bloom_index_contains('old_padded_b', 'CD'::char(2));
-- text is not char(n): its trailing blanks count, under any collation
SELECT bloom_agg(b::text) @> ('AB'::text COLLATE bp_ci) AS as_text FROM padded;
RESET search_path;
DROP SCHEMA bloom_bpchar CASCADE;
