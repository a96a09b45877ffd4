-- The objects of the scru128 extension. Every name is qualified with the extension's
-- schema (@extschema@), so that everything resolves when the extension is installed in
-- a schema of its own (CREATE EXTENSION scru128 SCHEMA ids) and is not on the search
-- path. Built-in types and functions resolve through pg_catalog, which is always
-- searched first.

-- The type: 16 bytes, big-endian, the physical layout of uuid.

CREATE TYPE @extschema@.scru128;

CREATE FUNCTION @extschema@.scru128_in(cstring) RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_in_wrapper';
CREATE FUNCTION @extschema@.scru128_out(@extschema@.scru128) RETURNS cstring
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_out_wrapper';
-- Binary I/O is the 16 bytes as they are: PostgreSQL's own uuid_recv/uuid_send do
-- exactly that (contrib/citext declares built-ins for its type the same way).
CREATE FUNCTION @extschema@.scru128_recv(internal) RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_recv';
CREATE FUNCTION @extschema@.scru128_send(@extschema@.scru128) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_send';

CREATE TYPE @extschema@.scru128 (
    INPUT = @extschema@.scru128_in,
    OUTPUT = @extschema@.scru128_out,
    RECEIVE = @extschema@.scru128_recv,
    SEND = @extschema@.scru128_send,
    INTERNALLENGTH = 16,
    ALIGNMENT = char,
    STORAGE = plain
);
COMMENT ON TYPE @extschema@.scru128 IS
    'SCRU128 ID: 16 bytes, big-endian; text is 26 base-32 digits 0-9A-V';

-- Comparison. The order of IDs is the order of their big-endian bytes, which is what
-- PostgreSQL's uuid functions compute (memcmp of 16 bytes); using them gives the type
-- the hashing and sort support (abbreviated keys) of uuid at no extra cost. The
-- extension's tests check the order against the library's on 100 000 random values.

CREATE FUNCTION @extschema@.scru128_eq(@extschema@.scru128, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_eq';
CREATE FUNCTION @extschema@.scru128_ne(@extschema@.scru128, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ne';
CREATE FUNCTION @extschema@.scru128_lt(@extschema@.scru128, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_lt';
CREATE FUNCTION @extschema@.scru128_le(@extschema@.scru128, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_le';
CREATE FUNCTION @extschema@.scru128_gt(@extschema@.scru128, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_gt';
CREATE FUNCTION @extschema@.scru128_ge(@extschema@.scru128, @extschema@.scru128) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_ge';
CREATE FUNCTION @extschema@.scru128_cmp(@extschema@.scru128, @extschema@.scru128) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF LANGUAGE internal AS 'uuid_cmp';
CREATE FUNCTION @extschema@.scru128_sortsupport(internal) RETURNS void
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_sortsupport';
-- Not LEAKPROOF, as uuid_hash and uuid_hash_extended are not: every function declared
-- with a uuid function's code has that function's labels (the tests compare them).
CREATE FUNCTION @extschema@.scru128_hash(@extschema@.scru128) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_hash';
CREATE FUNCTION @extschema@.scru128_hash_extended(@extschema@.scru128, bigint) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE internal AS 'uuid_hash_extended';

CREATE OPERATOR @extschema@.= (
    LEFTARG = @extschema@.scru128, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.scru128_eq,
    COMMUTATOR = OPERATOR(@extschema@.=), NEGATOR = OPERATOR(@extschema@.<>),
    RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR @extschema@.<> (
    LEFTARG = @extschema@.scru128, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.scru128_ne,
    COMMUTATOR = OPERATOR(@extschema@.<>), NEGATOR = OPERATOR(@extschema@.=),
    RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR @extschema@.< (
    LEFTARG = @extschema@.scru128, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.scru128_lt,
    COMMUTATOR = OPERATOR(@extschema@.>), NEGATOR = OPERATOR(@extschema@.>=),
    RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR @extschema@.<= (
    LEFTARG = @extschema@.scru128, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.scru128_le,
    COMMUTATOR = OPERATOR(@extschema@.>=), NEGATOR = OPERATOR(@extschema@.>),
    RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR @extschema@.> (
    LEFTARG = @extschema@.scru128, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.scru128_gt,
    COMMUTATOR = OPERATOR(@extschema@.<), NEGATOR = OPERATOR(@extschema@.<=),
    RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR @extschema@.>= (
    LEFTARG = @extschema@.scru128, RIGHTARG = @extschema@.scru128,
    FUNCTION = @extschema@.scru128_ge,
    COMMUTATOR = OPERATOR(@extschema@.<=), NEGATOR = OPERATOR(@extschema@.<),
    RESTRICT = scalargesel, JOIN = scalargejoinsel
);

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

-- Operator classes: btree (with sort support; btequalimage allows deduplication), hash,
-- and BRIN minmax (time-ordered keys keep each block range's min and max close).
--
-- The btree and hash classes belong to PostgreSQL's uuid_ops families, as name_ops
-- belongs to text_ops: one family orders (and hashes) both types alike, with the
-- cross-type operators in it too. A scru128 index then serves `id = $1` with a uuid
-- $1 (also `id = ANY($1)` with a uuid[], which sorts the array with the family's
-- uuid functions) and a uuid index serves `u = id`; merge and hash joins work between
-- the types, and the planner can carry equalities across them. Families of their own
-- would need each other's same-type operators for all that (an index scan with a
-- uuid[] fails without them), and an operator in two btree families takes its order
-- from the first one: ORDER BY id would then go by uuid_ops and miss the index of id.
-- Nothing of uuid changes: its operators and functions are in uuid_ops as before, and
-- queries that involve no scru128 plan as before (the tests compare their plans).

CREATE OPERATOR CLASS @extschema@.scru128_ops
    DEFAULT FOR TYPE @extschema@.scru128 USING btree FAMILY pg_catalog.uuid_ops AS
        OPERATOR 1 @extschema@.<,
        OPERATOR 2 @extschema@.<=,
        OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=,
        OPERATOR 5 @extschema@.>,
        FUNCTION 1 @extschema@.scru128_cmp(@extschema@.scru128, @extschema@.scru128),
        FUNCTION 2 @extschema@.scru128_sortsupport(internal),
        FUNCTION 4 btequalimage(oid);

CREATE OPERATOR CLASS @extschema@.scru128_ops
    DEFAULT FOR TYPE @extschema@.scru128 USING hash FAMILY pg_catalog.uuid_ops AS
        OPERATOR 1 @extschema@.=,
        FUNCTION 1 @extschema@.scru128_hash(@extschema@.scru128),
        FUNCTION 2 @extschema@.scru128_hash_extended(@extschema@.scru128, bigint);

CREATE OPERATOR CLASS @extschema@.scru128_minmax_ops
    DEFAULT FOR TYPE @extschema@.scru128 USING brin AS
        OPERATOR 1 @extschema@.<,
        OPERATOR 2 @extschema@.<=,
        OPERATOR 3 @extschema@.=,
        OPERATOR 4 @extschema@.>=,
        OPERATOR 5 @extschema@.>,
        FUNCTION 1 brin_minmax_opcinfo(internal),
        FUNCTION 2 brin_minmax_add_value(internal, internal, internal, internal),
        FUNCTION 3 brin_minmax_consistent(internal, internal, internal),
        FUNCTION 4 brin_minmax_union(internal, internal, internal);

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

-- min() and max(), which use a btree index (SORTOP) like those of the built-in types.

CREATE FUNCTION @extschema@.scru128_smaller(@extschema@.scru128, @extschema@.scru128)
    RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_smaller_wrapper';
CREATE FUNCTION @extschema@.scru128_larger(@extschema@.scru128, @extschema@.scru128)
    RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_larger_wrapper';
CREATE AGGREGATE @extschema@.min(@extschema@.scru128) (
    SFUNC = @extschema@.scru128_smaller, STYPE = @extschema@.scru128,
    COMBINEFUNC = @extschema@.scru128_smaller, SORTOP = OPERATOR(@extschema@.<),
    PARALLEL = SAFE
);
CREATE AGGREGATE @extschema@.max(@extschema@.scru128) (
    SFUNC = @extschema@.scru128_larger, STYPE = @extschema@.scru128,
    COMBINEFUNC = @extschema@.scru128_larger, SORTOP = OPERATOR(@extschema@.>),
    PARALLEL = SAFE
);

-- Casts. None is implicit, so that a query that involves no scru128 value resolves as
-- it would without the extension (an implicit uuid -> scru128 made max(uuid) and
-- scru128_extract_timestamp(uuid) exist, and turned UNION of uuid and scru128 into
-- scru128), and an expression that mixes the types names its reading.
-- - uuid -> scru128, ASSIGNMENT, without a function (the same 16 bytes): a uuid
--   parameter (this crate's sqlx integration) stores into a scru128 column, and
--   `ALTER COLUMN id TYPE scru128` converts a uuid column in place. Comparisons with
--   uuid need no cast: they have operators of their own (above).
-- - scru128 -> uuid, ASSIGNMENT, without a function: stores into uuid columns.
-- - scru128 -> text and -> bytea, ASSIGNMENT: lossless, like PostgreSQL's own casts
--   to text.
-- - text -> scru128 and bytea -> scru128, EXPLICIT: they can fail (bad text, a length
--   other than 16); a quoted literal needs no cast at all.
-- - scru128 -> timestamptz, EXPLICIT: it keeps only the time.

CREATE CAST (uuid AS @extschema@.scru128) WITHOUT FUNCTION AS ASSIGNMENT;
CREATE CAST (@extschema@.scru128 AS uuid) WITHOUT FUNCTION AS ASSIGNMENT;

CREATE FUNCTION @extschema@.scru128_to_text(@extschema@.scru128) RETURNS text
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_to_text_wrapper';
CREATE FUNCTION @extschema@.scru128_from_text(text) RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_from_text_wrapper';
CREATE CAST (@extschema@.scru128 AS text)
    WITH FUNCTION @extschema@.scru128_to_text(@extschema@.scru128) AS ASSIGNMENT;
CREATE CAST (text AS @extschema@.scru128)
    WITH FUNCTION @extschema@.scru128_from_text(text);

CREATE FUNCTION @extschema@.scru128_to_bytea(@extschema@.scru128) RETURNS bytea
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_to_bytea_wrapper';
CREATE FUNCTION @extschema@.scru128_from_bytea(bytea) RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_from_bytea_wrapper';
CREATE CAST (@extschema@.scru128 AS bytea)
    WITH FUNCTION @extschema@.scru128_to_bytea(@extschema@.scru128) AS ASSIGNMENT;
CREATE CAST (bytea AS @extschema@.scru128)
    WITH FUNCTION @extschema@.scru128_from_bytea(bytea);

-- Time and fields.

CREATE FUNCTION @extschema@.scru128_extract_timestamp(@extschema@.scru128) RETURNS timestamptz
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'scru128_extract_timestamp_wrapper';
COMMENT ON FUNCTION @extschema@.scru128_extract_timestamp(@extschema@.scru128) IS
    'creation time of a SCRU128 ID (millisecond precision)';
CREATE CAST (@extschema@.scru128 AS timestamptz)
    WITH FUNCTION @extschema@.scru128_extract_timestamp(@extschema@.scru128);

CREATE FUNCTION @extschema@.scru128_timestamp(@extschema@.scru128) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_timestamp_wrapper';
COMMENT ON FUNCTION @extschema@.scru128_timestamp(@extschema@.scru128) IS
    'the 44-bit timestamp field: milliseconds since 2020-01-01T00:00:00Z';
CREATE FUNCTION @extschema@.scru128_counter(@extschema@.scru128) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_counter_wrapper';
COMMENT ON FUNCTION @extschema@.scru128_counter(@extschema@.scru128) IS
    'the 28-bit counter field';
CREATE FUNCTION @extschema@.scru128_per_sec_random(@extschema@.scru128) RETURNS integer
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'scru128_per_sec_random_wrapper';
COMMENT ON FUNCTION @extschema@.scru128_per_sec_random(@extschema@.scru128) IS
    'the 24-bit per_sec_random field';
CREATE FUNCTION @extschema@.scru128_per_gen_random(@extschema@.scru128) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c
    AS 'MODULE_PATHNAME', 'scru128_per_gen_random_wrapper';
COMMENT ON FUNCTION @extschema@.scru128_per_gen_random(@extschema@.scru128) IS
    'the 32-bit per_gen_random field (unsigned, hence bigint)';
CREATE FUNCTION @extschema@.scru128_from_fields(
        "timestamp" bigint, counter integer, per_sec_random integer, per_gen_random bigint)
    RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_from_fields_wrapper';
COMMENT ON FUNCTION @extschema@.scru128_from_fields(bigint, integer, integer, bigint) IS
    'a SCRU128 ID from its four fields (an ERROR if one is out of its range)';

CREATE FUNCTION @extschema@.scru128_min(timestamptz) RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_min_wrapper';
COMMENT ON FUNCTION @extschema@.scru128_min(timestamptz) IS
    'the smallest SCRU128 ID of the millisecond of a time: the lower bound of a time range';
CREATE FUNCTION @extschema@.scru128_max(timestamptz) RETURNS @extschema@.scru128
    IMMUTABLE STRICT PARALLEL SAFE LANGUAGE c AS 'MODULE_PATHNAME', 'scru128_max_wrapper';
COMMENT ON FUNCTION @extschema@.scru128_max(timestamptz) IS
    'the largest SCRU128 ID of the millisecond of a time: the upper bound of a time range';

-- The generator. VOLATILE; PARALLEL RESTRICTED so that it runs in the session's own
-- backend, whose IDs strictly increase (a parallel worker would have a generator of its
-- own: unique IDs, but not in call order); LEAKPROOF as gen_random_uuid() is (it has
-- no arguments to leak).

CREATE FUNCTION @extschema@.gen_scru128() RETURNS @extschema@.scru128
    VOLATILE STRICT PARALLEL RESTRICTED LEAKPROOF LANGUAGE c AS 'MODULE_PATHNAME', 'gen_scru128_wrapper';
COMMENT ON FUNCTION @extschema@.gen_scru128() IS
    'a new SCRU128 ID: strictly increasing within a session, unique across sessions and servers';
