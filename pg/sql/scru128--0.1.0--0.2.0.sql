-- Update of the scru128 extension from 0.1.0 to 0.2.0 (ALTER EXTENSION scru128 UPDATE).
-- Every SQL change of 0.2.0; the tests check that a database updated from 0.1.0 ends
-- with the catalog of a fresh 0.2.0 install (pg/server-tests/tests/update.rs).
-- The C functions keep their names: the new library serves both versions' SQL.

\echo Use "ALTER EXTENSION scru128 UPDATE TO '0.2.0'" to load this file. \quit

-- scru128_hash and scru128_hash_extended: not LEAKPROOF, as uuid_hash and
-- uuid_hash_extended are not.
ALTER FUNCTION @extschema@.scru128_hash(@extschema@.scru128) NOT LEAKPROOF;
ALTER FUNCTION @extschema@.scru128_hash_extended(@extschema@.scru128, bigint) NOT LEAKPROOF;
-- gen_scru128(): LEAKPROOF, as gen_random_uuid() is (no arguments to leak).
ALTER FUNCTION @extschema@.gen_scru128() LEAKPROOF;

-- The btree and hash classes scru128_ops move from families of their own into
-- PostgreSQL's uuid_ops families, where a fresh 0.2.0 install creates them (see
-- pg/src/scru128.sql for why). PostgreSQL has no command that moves a class, and
-- dropping it would drop the indexes on it. So the new class is created beside the
-- old one (renamed), and what refers to the old class is pointed at the new one in
-- the catalog: the default flag, the indexes (pg_index.indclass), partition keys
-- (pg_partitioned_table.partclass) and their dependencies; then the old class and its
-- family, which nothing uses any more, are dropped. The indexes are not rebuilt: the
-- new class orders and hashes by the same functions. Sessions notice the change (the
-- pg_index and pg_partitioned_table updates invalidate what they cached of those
-- relations, and a class with a new OID is looked up afresh), so they need not
-- reconnect.

ALTER OPERATOR CLASS @extschema@.scru128_ops USING btree RENAME TO scru128_ops_0_1_0;
ALTER OPERATOR CLASS @extschema@.scru128_ops USING hash RENAME TO scru128_ops_0_1_0;

CREATE OPERATOR CLASS @extschema@.scru128_ops
    FOR TYPE @extschema@.scru128 USING btree FAMILY pg_catalog.uuid_ops AS
        OPERATOR 1 @extschema@.<,
        OPERATOR 2 @extschema@.<=,
        OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=,
        OPERATOR 5 @extschema@.>,
        FUNCTION 1 @extschema@.scru128_cmp(@extschema@.scru128, @extschema@.scru128),
        FUNCTION 2 @extschema@.scru128_sortsupport(internal),
        FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS @extschema@.scru128_ops
    FOR TYPE @extschema@.scru128 USING hash FAMILY pg_catalog.uuid_ops AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 @extschema@.scru128_hash(@extschema@.scru128),
        FUNCTION 2 @extschema@.scru128_hash_extended(@extschema@.scru128, bigint);

-- btree: the old class, renamed, gives way to the new one, made the default in its place
UPDATE pg_catalog.pg_opclass SET opcdefault = (opcname = 'scru128_ops')
 WHERE opcnamespace = '@extschema@'::regnamespace AND opcname IN ('scru128_ops', 'scru128_ops_0_1_0')
   AND opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'btree');
WITH m AS (
    SELECT old.oid AS old_class, new.oid AS new_class
      FROM pg_catalog.pg_opclass old JOIN pg_catalog.pg_opclass new ON new.opcmethod = old.opcmethod
     WHERE old.opcname = 'scru128_ops_0_1_0' AND new.opcname = 'scru128_ops'
       AND old.opcnamespace = '@extschema@'::regnamespace AND new.opcnamespace = old.opcnamespace
       AND old.opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'btree'))
UPDATE pg_catalog.pg_index i
   SET indclass = (SELECT pg_catalog.string_agg(CASE WHEN c = m.old_class THEN m.new_class ELSE c END::text,
                                                ' ' ORDER BY n)
                     FROM unnest(i.indclass::pg_catalog.oid[]) WITH ORDINALITY AS u (c, n))::pg_catalog.oidvector
  FROM m WHERE m.old_class = ANY (i.indclass::pg_catalog.oid[]);
WITH m AS (
    SELECT old.oid AS old_class, new.oid AS new_class
      FROM pg_catalog.pg_opclass old JOIN pg_catalog.pg_opclass new ON new.opcmethod = old.opcmethod
     WHERE old.opcname = 'scru128_ops_0_1_0' AND new.opcname = 'scru128_ops'
       AND old.opcnamespace = '@extschema@'::regnamespace AND new.opcnamespace = old.opcnamespace
       AND old.opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'btree'))
UPDATE pg_catalog.pg_partitioned_table p
   SET partclass = (SELECT pg_catalog.string_agg(CASE WHEN c = m.old_class THEN m.new_class ELSE c END::text,
                                                 ' ' ORDER BY n)
                      FROM unnest(p.partclass::pg_catalog.oid[]) WITH ORDINALITY AS u (c, n))::pg_catalog.oidvector
  FROM m WHERE m.old_class = ANY (p.partclass::pg_catalog.oid[]);
WITH m AS (
    SELECT old.oid AS old_class, new.oid AS new_class
      FROM pg_catalog.pg_opclass old JOIN pg_catalog.pg_opclass new ON new.opcmethod = old.opcmethod
     WHERE old.opcname = 'scru128_ops_0_1_0' AND new.opcname = 'scru128_ops'
       AND old.opcnamespace = '@extschema@'::regnamespace AND new.opcnamespace = old.opcnamespace
       AND old.opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'btree'))
UPDATE pg_catalog.pg_depend d SET refobjid = m.new_class
  FROM m
 WHERE d.refclassid = 'pg_catalog.pg_opclass'::regclass AND d.refobjid = m.old_class
   AND d.classid = 'pg_catalog.pg_class'::regclass;
-- what sessions cached of a partitioned table goes when its pg_class row changes
UPDATE pg_catalog.pg_class SET relname = relname
 WHERE oid IN (SELECT p.partrelid FROM pg_catalog.pg_partitioned_table p JOIN pg_catalog.pg_opclass c
                 ON c.oid = ANY (p.partclass::pg_catalog.oid[])
                WHERE c.opcname = 'scru128_ops' AND c.opcnamespace = '@extschema@'::regnamespace
                  AND c.opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'btree'));
DROP OPERATOR CLASS @extschema@.scru128_ops_0_1_0 USING btree;
DROP OPERATOR FAMILY @extschema@.scru128_ops USING btree;

-- hash: the old class, renamed, gives way to the new one, made the default in its place
UPDATE pg_catalog.pg_opclass SET opcdefault = (opcname = 'scru128_ops')
 WHERE opcnamespace = '@extschema@'::regnamespace AND opcname IN ('scru128_ops', 'scru128_ops_0_1_0')
   AND opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'hash');
WITH m AS (
    SELECT old.oid AS old_class, new.oid AS new_class
      FROM pg_catalog.pg_opclass old JOIN pg_catalog.pg_opclass new ON new.opcmethod = old.opcmethod
     WHERE old.opcname = 'scru128_ops_0_1_0' AND new.opcname = 'scru128_ops'
       AND old.opcnamespace = '@extschema@'::regnamespace AND new.opcnamespace = old.opcnamespace
       AND old.opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'hash'))
UPDATE pg_catalog.pg_index i
   SET indclass = (SELECT pg_catalog.string_agg(CASE WHEN c = m.old_class THEN m.new_class ELSE c END::text,
                                                ' ' ORDER BY n)
                     FROM unnest(i.indclass::pg_catalog.oid[]) WITH ORDINALITY AS u (c, n))::pg_catalog.oidvector
  FROM m WHERE m.old_class = ANY (i.indclass::pg_catalog.oid[]);
WITH m AS (
    SELECT old.oid AS old_class, new.oid AS new_class
      FROM pg_catalog.pg_opclass old JOIN pg_catalog.pg_opclass new ON new.opcmethod = old.opcmethod
     WHERE old.opcname = 'scru128_ops_0_1_0' AND new.opcname = 'scru128_ops'
       AND old.opcnamespace = '@extschema@'::regnamespace AND new.opcnamespace = old.opcnamespace
       AND old.opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'hash'))
UPDATE pg_catalog.pg_partitioned_table p
   SET partclass = (SELECT pg_catalog.string_agg(CASE WHEN c = m.old_class THEN m.new_class ELSE c END::text,
                                                 ' ' ORDER BY n)
                      FROM unnest(p.partclass::pg_catalog.oid[]) WITH ORDINALITY AS u (c, n))::pg_catalog.oidvector
  FROM m WHERE m.old_class = ANY (p.partclass::pg_catalog.oid[]);
WITH m AS (
    SELECT old.oid AS old_class, new.oid AS new_class
      FROM pg_catalog.pg_opclass old JOIN pg_catalog.pg_opclass new ON new.opcmethod = old.opcmethod
     WHERE old.opcname = 'scru128_ops_0_1_0' AND new.opcname = 'scru128_ops'
       AND old.opcnamespace = '@extschema@'::regnamespace AND new.opcnamespace = old.opcnamespace
       AND old.opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'hash'))
UPDATE pg_catalog.pg_depend d SET refobjid = m.new_class
  FROM m
 WHERE d.refclassid = 'pg_catalog.pg_opclass'::regclass AND d.refobjid = m.old_class
   AND d.classid = 'pg_catalog.pg_class'::regclass;
-- what sessions cached of a partitioned table goes when its pg_class row changes
UPDATE pg_catalog.pg_class SET relname = relname
 WHERE oid IN (SELECT p.partrelid FROM pg_catalog.pg_partitioned_table p JOIN pg_catalog.pg_opclass c
                 ON c.oid = ANY (p.partclass::pg_catalog.oid[])
                WHERE c.opcname = 'scru128_ops' AND c.opcnamespace = '@extschema@'::regnamespace
                  AND c.opcmethod = (SELECT oid FROM pg_catalog.pg_am WHERE amname = 'hash'));
DROP OPERATOR CLASS @extschema@.scru128_ops_0_1_0 USING hash;
DROP OPERATOR FAMILY @extschema@.scru128_ops USING hash;

-- Comparison with uuid, both ways round: the same byte order, by the same uuid
-- functions. With these, `id = $1` with a uuid parameter has an exact operator (no cast
-- is involved, so no operator that another role creates for these types elsewhere on
-- the search path can be a better match), and both a scru128 index and a uuid index
-- serve it: the two types share PostgreSQL's uuid_ops families (below).

CREATE FUNCTION @extschema@.scru128_eq_uuid(@extschema@.scru128, uuid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION @extschema@.scru128_ne_uuid(@extschema@.scru128, uuid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION @extschema@.scru128_lt_uuid(@extschema@.scru128, uuid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION @extschema@.scru128_le_uuid(@extschema@.scru128, uuid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION @extschema@.scru128_gt_uuid(@extschema@.scru128, uuid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION @extschema@.scru128_ge_uuid(@extschema@.scru128, uuid) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION @extschema@.scru128_cmp_uuid(@extschema@.scru128, uuid) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION @extschema@.uuid_eq_scru128(uuid, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION @extschema@.uuid_ne_scru128(uuid, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION @extschema@.uuid_lt_scru128(uuid, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION @extschema@.uuid_le_scru128(uuid, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION @extschema@.uuid_gt_scru128(uuid, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION @extschema@.uuid_ge_scru128(uuid, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION @extschema@.uuid_cmp_scru128(uuid, @extschema@.scru128) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.scru128, RIGHTARG = uuid,
    FUNCTION = @extschema@.scru128_eq_uuid,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.scru128, RIGHTARG = uuid,
    FUNCTION = @extschema@.scru128_ne_uuid,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.scru128, RIGHTARG = uuid,
    FUNCTION = @extschema@.scru128_lt_uuid,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.scru128, RIGHTARG = uuid,
    FUNCTION = @extschema@.scru128_le_uuid,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.scru128, RIGHTARG = uuid,
    FUNCTION = @extschema@.scru128_gt_uuid,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.scru128, RIGHTARG = uuid,
    FUNCTION = @extschema@.scru128_ge_uuid,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);
CREATE OPERATOR @extschema@.= (
    LEFTARG = uuid, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.uuid_eq_scru128,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = uuid, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.uuid_ne_scru128,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = uuid, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.uuid_lt_scru128,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = uuid, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.uuid_le_scru128,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = uuid, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.uuid_gt_scru128,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = uuid, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.uuid_ge_scru128,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);

-- The cross-type operators, in the same families (removed with the extension).

ALTER OPERATOR FAMILY pg_catalog.uuid_ops USING btree ADD
    OPERATOR 1 @extschema@.< (@extschema@.scru128, uuid),
    OPERATOR 2 @extschema@.<= (@extschema@.scru128, uuid),
    OPERATOR 3 @extschema@.= (@extschema@.scru128, uuid),
    OPERATOR 4 @extschema@.>= (@extschema@.scru128, uuid),
    OPERATOR 5 @extschema@.> (@extschema@.scru128, uuid),
    OPERATOR 1 @extschema@.< (uuid, @extschema@.scru128),
    OPERATOR 2 @extschema@.<= (uuid, @extschema@.scru128),
    OPERATOR 3 @extschema@.= (uuid, @extschema@.scru128),
    OPERATOR 4 @extschema@.>= (uuid, @extschema@.scru128),
    OPERATOR 5 @extschema@.> (uuid, @extschema@.scru128),
    FUNCTION 1 @extschema@.scru128_cmp_uuid(@extschema@.scru128, uuid),
    FUNCTION 1 @extschema@.uuid_cmp_scru128(uuid, @extschema@.scru128);
ALTER OPERATOR FAMILY pg_catalog.uuid_ops USING hash ADD
    OPERATOR 1 @extschema@.= (@extschema@.scru128, uuid),
    OPERATOR 1 @extschema@.= (uuid, @extschema@.scru128);

-- uuid -> scru128 is an assignment cast, no longer implicit: a query that involves no
-- scru128 value resolves as it would without the extension. Expressions stored before
-- (views, defaults, indexes) keep their meaning: a cast without a function is stored
-- as a relabeling, which does not depend on the cast.
DROP CAST (uuid AS @extschema@.scru128);
CREATE CAST (uuid AS @extschema@.scru128) WITHOUT FUNCTION AS ASSIGNMENT;
