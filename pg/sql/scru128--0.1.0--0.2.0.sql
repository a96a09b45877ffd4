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

-- Comparison with uuid, both ways round: the same byte order, by the same uuid
-- functions. With these, `id = $1` with a uuid parameter has an exact operator (no cast
-- is involved, so no operator that another role creates for these types elsewhere on
-- the search path can be a better match), and both a scru128 index and a uuid index
-- serve it (the operators are in both types' btree and hash families, below). `=` is
-- HASHES (hash joins between the types) but not MERGES: a merge join needs both types'
-- own order operators in one btree family, and putting scru128's into uuid_ops (or
-- uuid's into scru128_ops) would let the planner take a column's sort order from the
-- other family and miss the column's own index.

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
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
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
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES
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

-- The cross-type operators in the btree and hash families of both types: of
-- scru128_ops (a scru128 index serves `id = $1` with a uuid $1) and of PostgreSQL's
-- uuid_ops (a uuid index serves `u = id`); hash joins between the two types.
-- A hash family holds a hash function for each of its types (the two hash alike:
-- scru128_hash is uuid_hash). Only cross-type operators are added (see above), and
-- queries that involve no scru128 plan as before (the tests compare their plans).

ALTER OPERATOR FAMILY @extschema@.scru128_ops USING btree ADD
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

ALTER OPERATOR FAMILY @extschema@.scru128_ops USING hash ADD
    OPERATOR 1 @extschema@.= (@extschema@.scru128, uuid),
    OPERATOR 1 @extschema@.= (uuid, @extschema@.scru128),
    FUNCTION 1 pg_catalog.uuid_hash(uuid),
    FUNCTION 2 pg_catalog.uuid_hash_extended(uuid, bigint);
ALTER OPERATOR FAMILY pg_catalog.uuid_ops USING hash ADD
    OPERATOR 1 @extschema@.= (@extschema@.scru128, uuid),
    OPERATOR 1 @extschema@.= (uuid, @extschema@.scru128),
    FUNCTION 1 @extschema@.scru128_hash(@extschema@.scru128),
    FUNCTION 2 @extschema@.scru128_hash_extended(@extschema@.scru128, bigint);

-- uuid -> scru128 is an assignment cast, no longer implicit: a query that involves no
-- scru128 value resolves as it would without the extension. Expressions stored before
-- (views, defaults, indexes) keep their meaning: a cast without a function is stored
-- as a relabeling, which does not depend on the cast.
DROP CAST (uuid AS @extschema@.scru128);
CREATE CAST (uuid AS @extschema@.scru128) WITHOUT FUNCTION AS ASSIGNMENT;
