/*
 * bloom_value.c
 *	  Hashing SQL values for the filter.
 *
 * A prefilter must never drop a row that the join would keep, so two values
 * that are "=" must land on the same bits.  The hash functions of a type's
 * default hash operator family give exactly that guarantee (it is what hash
 * joins rely on), across the types of the family too: int2, int4 and int8
 * share integer_ops and hash alike, numeric hashes 1.0 and 1.00 alike, text
 * hashes under its collation.  We use the family's extended (64-bit, seeded)
 * hash function.
 *
 * A filter records the family that hashed its values as its "element key"
 * (for example "pg_catalog.integer_ops"; a nondeterministic collation, whose
 * hash differs from the plain one, is appended after "@").  A value whose
 * family differs cannot be found reliably, so adding or probing it is an
 * error rather than a silent "false".  Names rather than OIDs are recorded
 * because OIDs of extension types change across dump and restore.
 */
#include "bloom_value.h"
#include "bloom_error.h"
#include "bloom_callcache.h"

#include "access/htup_details.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_opfamily.h"
#include "catalog/pg_proc.h"
#include "catalog/pg_type.h"
#include "utils/builtins.h"
#include "utils/fmgroids.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

/* Append "schema.name" to buf (of BF_MAX_ELEM_LEN + 1 bytes) at *len. */
static void
append_qualified(char *buf, size_t *len, Oid nspid, const char *name)
{
	char *nsp = get_namespace_name(nspid);
	int n;

	n = snprintf(buf + *len, BF_MAX_ELEM_LEN + 1 - *len, "%s.%s", nsp ? nsp : "?", name);
	*len += Min((size_t) n, BF_MAX_ELEM_LEN - *len);
}

static bool hasher_init(BloomHasher *h, Oid typid, Oid collid, bool missing_ok, bool check_blanks);

/*
 * Whether bpchar's extended hash function (fn) ignores trailing blanks under
 * nondeterministic collation coll, as bpchar's equality does.  PostgreSQL
 * 15's hashbpcharextended hashes the whole string under an ICU collation
 * that is not deterministic (its 32-bit hashbpchar, what hash joins use,
 * trims them): char(6) 'ab    ' and 'ab'::bpchar, equal, hash apart, and a
 * filter of the one would say "absent" of the other.  Asked of the server
 * itself, with 'a' and 'a ', so that a release that trims is taken.
 */
static bool
bpchar_hash_ignores_blanks(FmgrInfo *fn, Oid coll)
{
	Datum bare = DirectFunctionCall3(bpcharin, CStringGetDatum("a"), ObjectIdGetDatum(InvalidOid),
	                                 Int32GetDatum(-1));
	Datum blank = DirectFunctionCall3(bpcharin, CStringGetDatum("a "), ObjectIdGetDatum(InvalidOid),
	                                  Int32GetDatum(-1));

	return DatumGetUInt64(FunctionCall2Coll(fn, coll, bare, UInt64GetDatum(0))) ==
	       DatumGetUInt64(FunctionCall2Coll(fn, coll, blank, UInt64GetDatum(0)));
}

bool
bloom_hasher_init(BloomHasher *h, Oid typid, Oid collid, bool missing_ok)
{
	return hasher_init(h, typid, collid, missing_ok, true);
}

bool
bloom_hasher_init_for_writes(BloomHasher *h, Oid typid, Oid collid)
{
	return hasher_init(h, typid, collid, false, false);
}

/* bloom_hasher_init, and with check_blanks false, bloom_hasher_init_for_writes. */
static bool
hasher_init(BloomHasher *h, Oid typid, Oid collid, bool missing_ok, bool check_blanks)
{
	TypeCacheEntry *tc;
	HeapTuple tup;
	Form_pg_opfamily opf;

	tc = lookup_type_cache(typid, TYPECACHE_HASH_OPFAMILY | TYPECACHE_HASH_EXTENDED_PROC_FINFO);
	if ((!OidIsValid(tc->hash_opf) || !OidIsValid(tc->hash_extended_proc)) && missing_ok)
		return false;
	if (!OidIsValid(tc->hash_opf) || !OidIsValid(tc->hash_extended_proc))
		ereport(
		    ERROR,
		    (errcode(ERRCODE_UNDEFINED_FUNCTION),
		     errmsg("could not identify an extended hash function for type %s",
		            format_type_be(typid)),
		     errhint(
		         "A bloom filter holds values of types that have a default hash operator class.")));

	tup = SearchSysCache1(OPFAMILYOID, ObjectIdGetDatum(tc->hash_opf));
	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for operator family %u", tc->hash_opf);
	opf = (Form_pg_opfamily) GETSTRUCT(tup);
	h->elemlen = 0;
	append_qualified(h->elem, &h->elemlen, opf->opfnamespace, NameStr(opf->opfname));
	ReleaseSysCache(tup);

	/*
	 * Deterministic collations all hash a string by its bytes, so they share
	 * one key; a nondeterministic one hashes by sort key and gets its own.
	 */
	h->hashcoll = InvalidOid;
	if (type_is_collatable(typid))
	{
		h->hashcoll = OidIsValid(collid) ? collid : DEFAULT_COLLATION_OID;
		if (!get_collation_isdeterministic(h->hashcoll))
		{
			HeapTuple ctup;
			Form_pg_collation coll;
			const char *why = NULL;

			/*
			 * Only a hash function that follows the collation may hash under a
			 * nondeterministic one: name's, say, hashes the bytes while name's
			 * equality follows the collation, so 'Alice' and 'alice' would be
			 * equal and hash apart (a false negative against a text column's
			 * filter, whose key names the same family and collation); and
			 * char(n)'s only where it ignores trailing blanks, as its equality
			 * does (bpchar_hash_ignores_blanks; not for writes, which hash as
			 * they did).
			 */
			if (tc->hash_extended_proc != F_HASHTEXTEXTENDED &&
			    tc->hash_extended_proc != F_HASHBPCHAREXTENDED)
				why = "Its hash function does not follow the collation: values the collation "
				      "calls equal could hash apart.";
			else if (check_blanks && tc->hash_extended_proc == F_HASHBPCHAREXTENDED &&
			         !bpchar_hash_ignores_blanks(&tc->hash_extended_proc_finfo, h->hashcoll))
				why = "Its extended hash function hashes trailing blanks under this collation on "
				      "this server, which its equality ignores: 'ab' and 'ab  ' are equal and "
				      "would hash apart.";
			if (why != NULL)
			{
				if (missing_ok)
					return false;
				ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				                errmsg("values of type %s cannot be hashed under nondeterministic "
				                       "collation \"%s\"",
				                       format_type_be(typid), get_collation_name(h->hashcoll)),
				                errdetail("%s", why), errhint("Cast the value to text.")));
			}
			ctup = SearchSysCache1(COLLOID, ObjectIdGetDatum(h->hashcoll));
			if (!HeapTupleIsValid(ctup))
				elog(ERROR, "cache lookup failed for collation %u", h->hashcoll);
			coll = (Form_pg_collation) GETSTRUCT(ctup);
			if (h->elemlen < BF_MAX_ELEM_LEN)
				h->elem[h->elemlen++] = '@';
			append_qualified(h->elem, &h->elemlen, coll->collnamespace, NameStr(coll->collname));
			ReleaseSysCache(ctup);
		}
	}
	h->elem[h->elemlen] = '\0';

	fmgr_info_copy(&h->hashfn, &tc->hash_extended_proc_finfo, CurrentMemoryContext);
	h->typid = typid;
	h->collid = collid;
	return true;
}

/*
 * The type of argument argno as the function declares it in its pg_proc
 * row, or InvalidOid if it declares a polymorphic type there.
 */
static Oid
declared_argtype(Oid fn_oid, int argno)
{
	HeapTuple tup = SearchSysCache1(PROCOID, ObjectIdGetDatum(fn_oid));
	Form_pg_proc proc;
	Oid typid = InvalidOid;

	if (!HeapTupleIsValid(tup))
		elog(ERROR, "cache lookup failed for function %u", fn_oid);
	proc = (Form_pg_proc) GETSTRUCT(tup);
	if (argno < proc->pronargs && !IsPolymorphicType(proc->proargtypes.values[argno]))
		typid = proc->proargtypes.values[argno];
	ReleaseSysCache(tup);
	return typid;
}

/*
 * The type of the value in argument argno: that of the call's expression,
 * or, for a caller that passes no expression tree (Citus's
 * worker_partial_agg calls transition functions so), the type the function
 * declares, which 1.4's type-specific aggregates give their transition
 * functions for exactly this; 0A000 if it declares a polymorphic type.
 */
Oid
bloom_value_type(FunctionCallInfo fcinfo, int argno)
{
	Oid typid = get_fn_expr_argtype(fcinfo->flinfo, argno);

	if (!OidIsValid(typid) && OidIsValid(fcinfo->flinfo->fn_oid))
		typid = declared_argtype(fcinfo->flinfo->fn_oid, argno);
	if (!OidIsValid(typid))
		ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
		                errmsg("could not determine the data type of the value"),
		                errdetail("The function was called with no expression tree, and it "
		                          "declares a polymorphic type for the value."),
		                errhint("A sharded engine (Citus) can run on its workers only the "
		                        "aggregates declared for one type; the README lists the types.")));
	return typid;
}

BloomHasher *
bloom_agg_keep_hasher(FunctionCallInfo fcinfo, BloomHasher *hasher, BloomKeptHasher *kept,
                      MemoryContext cxt)
{
	Assert(hasher != NULL && kept != NULL);
	if (fcinfo->flinfo->fn_expr != NULL || hasher == &kept->hasher)
		return hasher;
	kept->valid = false;
	kept->hasher = *hasher;
	/* the hash function's own cache (fn_extra) must live as long as the state */
	fmgr_info_copy(&kept->hasher.hashfn, &hasher->hashfn, cxt);
	kept->fn_oid = fcinfo->flinfo->fn_oid;
	kept->collid = PG_GET_COLLATION();
	kept->valid = true;
	return &kept->hasher;
}

/* Set up the hasher of argument argno in the call site's cache. */
static BloomHasher *
hasher_setup(FunctionCallInfo fcinfo, int argno)
{
	BloomCallCache *cache = bloom_call_cache(fcinfo);
	Oid typid = bloom_value_type(fcinfo, argno);
	MemoryContext old;

	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	cache->hasher_valid = false;
	bloom_hasher_init(&cache->hasher, typid, PG_GET_COLLATION(), false);
	cache->hasher_argno = argno;
	cache->hasher_valid = true;
	cache->elem_checked = false;
	MemoryContextSwitchTo(old);
	return &cache->hasher;
}

BloomHasher *
bloom_hasher_for_arg(FunctionCallInfo fcinfo, int argno)
{
	BloomCallCache *cache = bloom_call_cache(fcinfo);

	if (cache->hasher_valid && cache->hasher_argno == argno)
		return &cache->hasher;
	return hasher_setup(fcinfo, argno);
}

BloomHasher *
bloom_agg_hasher(FunctionCallInfo fcinfo, int argno, const BloomKeptHasher *kept)
{
	if (kept != NULL && kept->valid && fcinfo->flinfo->fn_expr == NULL &&
	    kept->fn_oid == fcinfo->flinfo->fn_oid && kept->collid == PG_GET_COLLATION())
		return (BloomHasher *) &kept->hasher;
	return bloom_hasher_for_arg(fcinfo, argno);
}

uint64
bloom_hash_arg(FunctionCallInfo fcinfo, int argno, const bf_view *view, bool kept)
{
	BloomHasher *hasher = bloom_hasher_for_arg(fcinfo, argno);
	BloomCallCache *cache = bloom_call_cache(fcinfo);

	/* a kept filter's element key is checked once, not per row */
	if (!kept || !cache->elem_checked)
	{
		bloom_check_elem(view, hasher);
		cache->elem_checked = kept;
	}
	return bloom_hash_value(hasher, PG_GETARG_DATUM(argno), view->p.seed);
}

uint64
bloom_hash_value(BloomHasher *hasher, Datum value, uint64 seed)
{
	Assert(OidIsValid(hasher->typid) && hasher->elemlen > 0);
	return DatumGetUInt64(
	    FunctionCall2Coll(&hasher->hashfn, hasher->hashcoll, value, UInt64GetDatum(seed)));
}

void
bloom_check_elem(const bf_view *view, const BloomHasher *hasher)
{
	if (view->elemlen == 0)
		return;
	if (!bf_elem_equal(view->elem, view->elemlen, hasher->elem, hasher->elemlen))
		ereport(
		    ERROR,
		    (errcode(ERRCODE_DATATYPE_MISMATCH),
		     errmsg("bloom filter holds values hashed by %s, not values of type %s (hashed by %s)",
		            bloom_elem_for_message(view->elem, view->elemlen),
		            format_type_be(hasher->typid), hasher->elem),
		     errhint("Probe a filter with values of the type family it was built from, or cast the "
		             "value.")));
}
