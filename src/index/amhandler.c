/*
 * amhandler.c
 *	  The bloomfilter access method's handler: what the index can and cannot
 *	  do, its options, and the validation of its operator classes.
 *
 * The index answers no scan (bloomindex.h): it has neither amgettuple nor
 * amgetbitmap, so the planner never builds a path through it, and the scan
 * entry points that every access method must have refuse if ever called.
 * Its operator classes hold one support function and no operator:
 *	 FUNCTION 1  the type's extended hash function (type, int8) -> int8,
 *	             the one of its default hash operator family (bloom_agg's).
 */
#include "am.h"

#include <limits.h>

#include "access/amvalidate.h"
#include "access/htup_details.h"
#include "access/relscan.h"
#include "access/reloptions.h"
#include "catalog/pg_amop.h"
#include "catalog/pg_amproc.h"
#include "catalog/pg_opclass.h"
#include "catalog/pg_type_d.h"
#include "commands/vacuum.h"
#include "optimizer/cost.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/catcache.h"
#include "utils/lsyscache.h"
#include "utils/regproc.h"
#include "utils/selfuncs.h"
#include "utils/syscache.h"

PG_FUNCTION_INFO_V1(bloomfilter_index_handler);

static relopt_kind options_kind;

static bytea *index_options(Datum reloptions, bool validate);
static bool index_validate(Oid opclassoid);
static void index_cost(PlannerInfo *root, IndexPath *path, double loop_count, Cost *startup,
                       Cost *total, Selectivity *selectivity, double *correlation, double *pages);
static IndexScanDesc refuse_begin_scan(Relation index, int nkeys, int norderbys);
static void refuse_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys,
                          int norderbys);
static void refuse_end_scan(IndexScanDesc scan);

void
bloom_index_module_init(void)
{
	options_kind = add_reloption_kind();
	add_real_reloption(options_kind, "false_positive_rate",
	                   "The false-positive rate of the whole filter, however far it grows",
	                   BLOOM_INDEX_DEFAULT_RATE, 1e-9, 0.5, AccessExclusiveLock);
	add_int_reloption(options_kind, "capacity",
	                  "Keys of the first layer (0: the table's rows when the index is built)", 0, 0,
	                  INT_MAX, AccessExclusiveLock);
	/* (read by VACUUM, which holds ShareUpdateExclusiveLock: a change waits for it) */
	add_real_reloption(options_kind, "rebuild_factor",
	                   "VACUUM rebuilds the filter when its keys pass this many per live key "
	                   "(against the ratio at its last build); 0: never",
	                   BLOOM_INDEX_DEFAULT_REBUILD_FACTOR, 0, 100, ShareUpdateExclusiveLock);
	add_real_reloption(options_kind, "rebuild_rate_factor",
	                   "VACUUM rebuilds the filter when its estimated false-positive rate passes "
	                   "this many times the declared one; 0: never",
	                   BLOOM_INDEX_DEFAULT_REBUILD_RATE_FACTOR, 0, 1e6, ShareUpdateExclusiveLock);
}

Datum
bloomfilter_index_handler(PG_FUNCTION_ARGS)
{
	IndexAmRoutine *am = makeNode(IndexAmRoutine);

	am->amstrategies = 0;
	am->amsupport = BLOOM_INDEX_HASH_PROC;
	am->amoptsprocnum = 0;
	am->amcanorder = false;
	am->amcanorderbyop = false;
	am->amcanbackward = false;
	am->amcanunique = false;
	am->amcanmulticol = false;
	am->amoptionalkey = false;
	am->amsearcharray = false;
	am->amsearchnulls = false;
	am->amstorage = false;
	am->amclusterable = false;
	am->ampredlocks = false;
	am->amcanparallel = false;
	am->amcaninclude = false;
	am->amusemaintenanceworkmem = false;
	am->amparallelvacuumoptions = VACUUM_OPTION_NO_PARALLEL;
	am->amkeytype = InvalidOid;

	am->ambuild = bloom_index_build;
	am->ambuildempty = bloom_index_build_empty;
	am->aminsert = bloom_index_insert;
	am->ambulkdelete = bloom_index_bulk_delete;
	am->amvacuumcleanup = bloom_index_vacuum_cleanup;
	am->amcanreturn = NULL;
	am->amcostestimate = index_cost;
	am->amoptions = index_options;
	am->amproperty = NULL;
	am->ambuildphasename = NULL;
	am->amvalidate = index_validate;
	am->amadjustmembers = NULL;
	am->ambeginscan = refuse_begin_scan;
	am->amrescan = refuse_rescan;
	am->amgettuple = NULL;
	am->amgetbitmap = NULL;
	am->amendscan = refuse_end_scan;
	am->ammarkpos = NULL;
	am->amrestrpos = NULL;
	am->amestimateparallelscan = NULL;
	am->aminitparallelscan = NULL;
	am->amparallelrescan = NULL;
	PG_RETURN_POINTER(am);
}

static bytea *
index_options(Datum reloptions, bool validate)
{
	/* designated: 18 added a field (isset_offset), zero here */
	static const relopt_parse_elt table[] = {
	    {.optname = "false_positive_rate",
	     .opttype = RELOPT_TYPE_REAL,
	     .offset = offsetof(BloomIndexOptions, false_positive_rate)},
	    {.optname = "rebuild_factor",
	     .opttype = RELOPT_TYPE_REAL,
	     .offset = offsetof(BloomIndexOptions, rebuild_factor)},
	    {.optname = "rebuild_rate_factor",
	     .opttype = RELOPT_TYPE_REAL,
	     .offset = offsetof(BloomIndexOptions, rebuild_rate_factor)},
	    {.optname = "capacity",
	     .opttype = RELOPT_TYPE_INT,
	     .offset = offsetof(BloomIndexOptions, capacity)},
	};

	BloomIndexOptions *options = build_reloptions(
	    reloptions, validate, options_kind, sizeof(BloomIndexOptions), table, lengthof(table));

	/* below these a rebuild would find nothing to drop, and VACUUM would rebuild every time */
	if (validate && options != NULL && options->rebuild_factor != 0 &&
	    options->rebuild_factor < 1.05)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("rebuild_factor must be 0 (never) or at least 1.05, not %g",
		                       options->rebuild_factor)));
	if (validate && options != NULL && options->rebuild_rate_factor != 0 &&
	    options->rebuild_rate_factor <= 1)
		ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
		                errmsg("rebuild_rate_factor must be 0 (never) or more than 1, not %g",
		                       options->rebuild_rate_factor)));
	return (bytea *) options;
}

/*
 * Whether proc is the extended hash function of type's default hash
 * operator class (bytea's takes internal, timestamptz's timestamp: their
 * signatures are not the type's, yet they are its hash).
 */
static bool
is_default_hash(Oid proc, Oid type)
{
	BloomHasher hasher;

	return bloom_hasher_init(&hasher, type, InvalidOid, true) &&
	       bloom_index_hashes_as_default(proc, type, &hasher);
}

/*
 * An operator class is valid when it has no operator, and its support
 * function 1 is its type's default extended hash function (or an earlier
 * release's name for it): the one rule CREATE INDEX applies, so that an
 * operator class this accepts is one an index can be built with.  Problems are reported at INFO, as PostgreSQL's own
 * validators do.
 */
static bool
index_validate(Oid opclassoid)
{
	HeapTuple classtup;
	Form_pg_opclass classform;
	Oid opfamily, opcintype;
	char *classname;
	CatCList *procs, *ops;
	bool valid = true;
	bool has_hash = false;

	classtup = SearchSysCache1(CLAOID, ObjectIdGetDatum(opclassoid));
	if (!HeapTupleIsValid(classtup))
		elog(ERROR, "cache lookup failed for operator class %u", opclassoid);
	classform = (Form_pg_opclass) GETSTRUCT(classtup);
	opfamily = classform->opcfamily;
	opcintype = classform->opcintype;
	classname = NameStr(classform->opcname);

	procs = SearchSysCacheList1(AMPROCNUM, ObjectIdGetDatum(opfamily));
	for (int i = 0; i < procs->n_members; i++)
	{
		Form_pg_amproc proc = (Form_pg_amproc) GETSTRUCT(&procs->members[i]->tuple);

		if (proc->amprocnum != BLOOM_INDEX_HASH_PROC)
		{
			ereport(INFO, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
			               errmsg("bloomfilter operator family contains function %s with invalid "
			                      "support number %d",
			                      format_procedure(proc->amproc), proc->amprocnum)));
			valid = false;
			continue;
		}
		/* what CREATE INDEX demands (bloom_index_hasher): bloom_agg's hash, no other */
		if (!is_default_hash(proc->amproc, proc->amproclefttype))
		{
			ereport(INFO,
			        (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
			         errmsg("bloomfilter operator family contains function %s for support number "
			                "%d, which is not the extended hash function of type %s's default hash "
			                "operator class",
			                format_procedure(proc->amproc), proc->amprocnum,
			                format_type_be(proc->amproclefttype))));
			valid = false;
		}
		if (proc->amproclefttype == opcintype && proc->amprocrighttype == opcintype)
			has_hash = true;
	}
	ReleaseSysCacheList(procs);

	ops = SearchSysCacheList1(AMOPSTRATEGY, ObjectIdGetDatum(opfamily));
	if (ops->n_members > 0)
	{
		ereport(INFO,
		        (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
		         errmsg("bloomfilter operator family of operator class \"%s\" contains operators",
		                classname),
		         errdetail("A bloomfilter index answers no operator.")));
		valid = false;
	}
	ReleaseSysCacheList(ops);

	if (!has_hash)
	{
		ereport(INFO, (errcode(ERRCODE_INVALID_OBJECT_DEFINITION),
		               errmsg("bloomfilter operator class \"%s\" is missing support function %d",
		                      classname, BLOOM_INDEX_HASH_PROC)));
		valid = false;
	}
	ReleaseSysCache(classtup);
	return valid;
}

/* Never a path: no operator matches a clause, and no scan could be run. */
static void
index_cost(PlannerInfo *root, IndexPath *path, double loop_count, Cost *startup, Cost *total,
           Selectivity *selectivity, double *correlation, double *pages)
{
	*startup = disable_cost;
	*total = disable_cost;
	*selectivity = 1.0;
	*correlation = 0.0;
	*pages = 0.0;
}

static pg_noreturn void
refuse_scan(Relation index)
{
	ereport(ERROR,
	        (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
	         errmsg("bloomfilter index \"%s\" cannot be scanned", RelationGetRelationName(index)),
	         errhint("Ask it with bloom_index_contains() or bloom_index_filter().")));
}

static IndexScanDesc
refuse_begin_scan(Relation index, int nkeys, int norderbys)
{
	refuse_scan(index);
}

static void
refuse_rescan(IndexScanDesc scan, ScanKey keys, int nkeys, ScanKey orderbys, int norderbys)
{
	refuse_scan(scan->indexRelation);
}

static void
refuse_end_scan(IndexScanDesc scan)
{
	refuse_scan(scan->indexRelation);
}
