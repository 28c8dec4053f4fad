/*
 * private.c
 *	  The custom_private lists of the runtime filters' nodes: the only file
 *	  that knows their positions (private.h says what each holds).
 */
#include "private.h"

#include "catalog/pg_type_d.h"
#include "nodes/makefuncs.h"
#include "nodes/primnodes.h"
#include "nodes/value.h"

/* The head of a build's and a probe's list: their positions 0 to 2. */
typedef enum NodeHeadSlot
{
	HEAD_ID,         /* Integer */
	HEAD_OPERATORS,  /* OidList */
	HEAD_COLLATIONS, /* OidList */
	HEAD_SLOTS
} NodeHeadSlot;

/* A build's, after the head. */
typedef enum BuildSlot
{
	BUILD_OUTER_ROWS = HEAD_SLOTS, /* Float */
	BUILD_INNER_ROWS,              /* Float */
	BUILD_PASS,                    /* Float */
	BUILD_SHARED_KEYS,             /* Float */
	BUILD_REMOTE_PARAM,            /* Integer */
	BUILD_COLLECT,                 /* Integer: 0 or 1 */
	BUILD_FAMILIES,                /* OidList */
	BUILD_SOURCE,                  /* OidList: the index, or NIL */
	BUILD_SOURCE_KEY,              /* Integer */
	BUILD_SLOTS
} BuildSlot;

/* A probe's, after the head. */
typedef enum ProbeSlot
{
	PROBE_SAVED = HEAD_SLOTS, /* Float */
	PROBE_ROWS,               /* Integer: 0 or 1 */
	PROBE_SKIP_LINEAGE,       /* OidList, or NIL */
	PROBE_SKIP_ATTNOS,        /* IntList, or NIL */
	PROBE_NOT_SHIPPED,        /* String, or NIL */
	PROBE_SLOTS
} ProbeSlot;

/* A scan's: few allocations (private.h). */
typedef enum ScanSlot
{
	SCAN_NUMBERS,   /* IntList: ScanNumber's */
	SCAN_INDEXES,   /* OidList: the BRIN index, the B-tree index (either invalid), or NIL */
	SCAN_PARTITION, /* OidList, or NIL */
	SCAN_ATTNOS,    /* IntList, or NIL */
	SCAN_SLOTS
} ScanSlot;

typedef enum ScanNumber
{
	NUMBER_ID,
	NUMBER_BRIN_KEY,
	NUMBER_COLUMN,
	NUMBER_BTREE_KEY,
	NUMBER_HEAP,
	NUMBER_COUNT
} ScanNumber;

/*
 * A Float: a float8 Const, which the plan's copy to parallel workers (as
 * text) carries as its bytes, with no printing and parsing of numbers.
 */
static Node *
float_node(double value)
{
	return (Node *) makeConst(FLOAT8OID, -1, InvalidOid, sizeof(float8), Float8GetDatum(value),
	                          false, FLOAT8PASSBYVAL);
}

/* Slot n of private, a Float. */
static double
float_at(List *private, int n)
{
	Const *c = (Const *) list_nth(private, n);

	Assert(IsA(c, Const) && c->consttype == FLOAT8OID && !c->constisnull);
	return DatumGetFloat8(c->constvalue);
}

static List *
make_head(const RuntimeNodeHead *head)
{
	return list_make3(makeInteger(head->id), list_copy(head->operators),
	                  list_copy(head->collations));
}

void
bloom_rf_private_read_head(List *private, RuntimeNodeHead *head)
{
	Assert(list_length(private) == BUILD_SLOTS || list_length(private) == PROBE_SLOTS);
	head->id = intVal(list_nth(private, HEAD_ID));
	head->operators = list_nth(private, HEAD_OPERATORS);
	head->collations = list_nth(private, HEAD_COLLATIONS);
}

List *
bloom_rf_private_make_build(const RuntimeBuildPrivate *p)
{
	List *private = make_head(&p->head);

	private = lappend(private, float_node(p->outer_rows));
	private = lappend(private, float_node(p->inner_rows));
	private = lappend(private, float_node(p->pass));
	private = lappend(private, float_node(p->shared_keys));
	private = lappend(private, makeInteger(p->remote_param));
	private = lappend(private, makeInteger(p->collect));
	private = lappend(private, list_copy(p->families));
	private = lappend(private, OidIsValid(p->source_index) ? list_make1_oid(p->source_index) : NIL);
	private = lappend(private, makeInteger(p->source_key));
	Assert(list_length(private) == BUILD_SLOTS);
	return private;
}

void
bloom_rf_private_read_build(List *private, RuntimeBuildPrivate *p)
{
	List *source;

	Assert(list_length(private) == BUILD_SLOTS);
	bloom_rf_private_read_head(private, &p->head);
	p->outer_rows = float_at(private, BUILD_OUTER_ROWS);
	p->inner_rows = float_at(private, BUILD_INNER_ROWS);
	p->pass = float_at(private, BUILD_PASS);
	p->shared_keys = float_at(private, BUILD_SHARED_KEYS);
	p->remote_param = intVal(list_nth(private, BUILD_REMOTE_PARAM));
	p->collect = intVal(list_nth(private, BUILD_COLLECT)) != 0;
	p->families = list_nth(private, BUILD_FAMILIES);
	source = list_nth(private, BUILD_SOURCE);
	p->source_index = source != NIL ? linitial_oid(source) : InvalidOid;
	p->source_key = intVal(list_nth(private, BUILD_SOURCE_KEY));
}

List *
bloom_rf_private_make_probe(const RuntimeProbePrivate *p)
{
	List *private = make_head(&p->head);

	private = lappend(private, float_node(p->saved));
	private = lappend(private, makeInteger(p->probe_rows));
	private = lappend(private, p->skip_lineage);
	private = lappend(private, p->skip_attnos);
	private = lappend(private, p->not_shipped ? makeString(pstrdup(p->not_shipped)) : NULL);
	Assert(list_length(private) == PROBE_SLOTS);
	return private;
}

void
bloom_rf_private_read_probe(List *private, RuntimeProbePrivate *p)
{
	Node *not_shipped;

	Assert(list_length(private) == PROBE_SLOTS);
	bloom_rf_private_read_head(private, &p->head);
	p->saved = float_at(private, PROBE_SAVED);
	p->probe_rows = intVal(list_nth(private, PROBE_ROWS)) != 0;
	p->skip_lineage = list_nth(private, PROBE_SKIP_LINEAGE);
	p->skip_attnos = list_nth(private, PROBE_SKIP_ATTNOS);
	not_shipped = list_nth(private, PROBE_NOT_SHIPPED);
	p->not_shipped = not_shipped ? strVal(not_shipped) : NULL;
}

List *
bloom_rf_private_make_scan(const RuntimeScanPrivate *p)
{
	List *numbers = list_make5_int(p->id, p->brin_key, p->column, p->btree_key, p->heap);
	List *indexes = OidIsValid(p->brin_index) || OidIsValid(p->btree_index)
	                    ? list_make2_oid(p->brin_index, p->btree_index)
	                    : NIL;

	Assert(list_length(numbers) == NUMBER_COUNT);
	return list_make4(numbers, indexes, p->partition, p->attnos);
}

void
bloom_rf_private_read_scan(List *private, RuntimeScanPrivate *p)
{
	List *numbers = list_nth(private, SCAN_NUMBERS);
	List *indexes = list_nth(private, SCAN_INDEXES);

	Assert(list_length(private) == SCAN_SLOTS && list_length(numbers) == NUMBER_COUNT &&
	       list_length(indexes) % 2 == 0);
	p->id = list_nth_int(numbers, NUMBER_ID);
	p->brin_key = list_nth_int(numbers, NUMBER_BRIN_KEY);
	p->column = (AttrNumber) list_nth_int(numbers, NUMBER_COLUMN);
	p->btree_key = list_nth_int(numbers, NUMBER_BTREE_KEY);
	p->heap = list_nth_int(numbers, NUMBER_HEAP) != 0;
	p->brin_index = indexes != NIL ? linitial_oid(indexes) : InvalidOid;
	p->btree_index = indexes != NIL ? lsecond_oid(indexes) : InvalidOid;
	p->partition = list_nth(private, SCAN_PARTITION);
	p->attnos = list_nth(private, SCAN_ATTNOS);
}

bool
bloom_rf_private_scan_heap(List *private)
{
	Assert(list_length(private) == SCAN_SLOTS);
	return list_nth_int(list_nth(private, SCAN_NUMBERS), NUMBER_HEAP) != 0;
}

AttrNumber *
bloom_rf_private_attnos(List *attnos)
{
	AttrNumber *out = palloc(Max(list_length(attnos), 1) * sizeof(AttrNumber));
	ListCell *lc;

	foreach (lc, attnos)
		out[foreach_current_index(lc)] = (AttrNumber) lfirst_int(lc);
	return out;
}
