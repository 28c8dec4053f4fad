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

/*
 * A build's and a probe's lists are described by a table of slots, in
 * their order: one table per layout, read and written by the same two
 * functions, so that the writer and the reader cannot disagree on a
 * position.  Both start with the head (id, operators, collations).
 */
typedef enum SlotKind
{
	SLOT_INT,    /* an int: an Integer */
	SLOT_BOOL,   /* a bool: an Integer 0 or 1 */
	SLOT_FLOAT,  /* a double: a float8 Const (float_node) */
	SLOT_LIST,   /* a List * (copied when it is the planner's own), or NIL */
	SLOT_OID,    /* an Oid: a one-element OidList, or NIL for InvalidOid */
	SLOT_STRING, /* a const char *: a String, or NULL */
} SlotKind;

typedef struct Slot
{
	SlotKind kind;
	size_t offset; /* of the field in the layout's struct */
	bool copy;     /* SLOT_LIST: copy it (the planner keeps using its own) */
} Slot;

#define HEAD_SLOTS(type)                                                                           \
	{SLOT_INT, offsetof(type, head.id), false}, {SLOT_LIST, offsetof(type, head.operators), true}, \
	{                                                                                              \
		SLOT_LIST, offsetof(type, head.collations), true                                           \
	}

static const Slot build_slots[] = {
    HEAD_SLOTS(RuntimeBuildPrivate),
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, outer_rows), false},
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, inner_rows), false},
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, pass), false},
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, shared_keys), false},
    {SLOT_INT, offsetof(RuntimeBuildPrivate, remote_param), false},
    {SLOT_BOOL, offsetof(RuntimeBuildPrivate, collect), false},
    {SLOT_BOOL, offsetof(RuntimeBuildPrivate, stretch), false},
    {SLOT_LIST, offsetof(RuntimeBuildPrivate, families), true},
    {SLOT_OID, offsetof(RuntimeBuildPrivate, source_index), false},
    {SLOT_INT, offsetof(RuntimeBuildPrivate, source_key), false},
    {SLOT_INT, offsetof(RuntimeBuildPrivate, planned.kind), false},
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, planned.scans_read), false},
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, planned.scans), false},
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, planned.rows), false},
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, planned.cost), false},
    {SLOT_FLOAT, offsetof(RuntimeBuildPrivate, planned.cost_whole), false},
};

static const Slot planned_slots[] = {
    {SLOT_INT, offsetof(RuntimePlannedSkip, kind), false},
    {SLOT_FLOAT, offsetof(RuntimePlannedSkip, scans_read), false},
    {SLOT_FLOAT, offsetof(RuntimePlannedSkip, scans), false},
    {SLOT_FLOAT, offsetof(RuntimePlannedSkip, rows), false},
    {SLOT_FLOAT, offsetof(RuntimePlannedSkip, cost), false},
    {SLOT_FLOAT, offsetof(RuntimePlannedSkip, cost_whole), false},
};

static const Slot probe_slots[] = {
    HEAD_SLOTS(RuntimeProbePrivate),
    {SLOT_FLOAT, offsetof(RuntimeProbePrivate, saved), false},
    {SLOT_BOOL, offsetof(RuntimeProbePrivate, probe_rows), false},
    {SLOT_BOOL, offsetof(RuntimeProbePrivate, fallback), false},
    {SLOT_LIST, offsetof(RuntimeProbePrivate, skip_lineage), false},
    {SLOT_LIST, offsetof(RuntimeProbePrivate, skip_attnos), false},
    {SLOT_STRING, offsetof(RuntimeProbePrivate, not_shipped), false},
};

/* the head's three slots, in both tables */
#define NHEAD 3

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

/* The list of the layout struct p, as slots (n of them) describe it. */
static List *
make_list(const void *p, const Slot *slots, int n)
{
	List *private = NIL;

	for (int i = 0; i < n; i++)
	{
		const char *field = (const char *) p + slots[i].offset;
		Node *node = NULL;

		switch (slots[i].kind)
		{
			case SLOT_INT:
				node = (Node *) makeInteger(*(const int *) field);
				break;
			case SLOT_BOOL:
				node = (Node *) makeInteger(*(const bool *) field ? 1 : 0);
				break;
			case SLOT_FLOAT:
				node = float_node(*(const double *) field);
				break;
			case SLOT_LIST:
				node = (Node *) (slots[i].copy ? list_copy(*(List *const *) field)
				                               : *(List *const *) field);
				break;
			case SLOT_OID:
				node = (Node *) (OidIsValid(*(const Oid *) field)
				                     ? list_make1_oid(*(const Oid *) field)
				                     : NIL);
				break;
			case SLOT_STRING:
				node = *(const char *const *) field
				           ? (Node *) makeString(pstrdup(*(const char *const *) field))
				           : NULL;
				break;
		}
		private = lappend(private, node);
	}
	return private;
}

/* Fill the layout struct p from private's first n slots, as slots describe them. */
static void
read_list(List *private, void *p, const Slot *slots, int n)
{
	Assert(list_length(private) >= n);
	for (int i = 0; i < n; i++)
	{
		char *field = (char *) p + slots[i].offset;
		Node *node = list_nth(private, i);

		switch (slots[i].kind)
		{
			case SLOT_INT:
				*(int *) field = intVal(node);
				break;
			case SLOT_BOOL:
				*(bool *) field = intVal(node) != 0;
				break;
			case SLOT_FLOAT:
				Assert(IsA(node, Const) && ((Const *) node)->consttype == FLOAT8OID &&
				       !((Const *) node)->constisnull);
				*(double *) field = DatumGetFloat8(((Const *) node)->constvalue);
				break;
			case SLOT_LIST:
				*(List **) field = (List *) node;
				break;
			case SLOT_OID:
				*(Oid *) field = node != NULL ? linitial_oid((List *) node) : InvalidOid;
				break;
			case SLOT_STRING:
				*(const char **) field = node != NULL ? strVal(node) : NULL;
				break;
		}
	}
}

void
bloom_rf_private_read_head(List *private, RuntimeNodeHead *head)
{
	/* the head's slots of either table, read into a RuntimeBuildPrivate's head */
	RuntimeBuildPrivate p;

	Assert(list_length(private) == lengthof(build_slots) ||
	       list_length(private) == lengthof(probe_slots));
	read_list(private, &p, build_slots, NHEAD);
	*head = p.head;
}

List *
bloom_rf_private_make_build(const RuntimeBuildPrivate *p)
{
	return make_list(p, build_slots, lengthof(build_slots));
}

void
bloom_rf_private_read_build(List *private, RuntimeBuildPrivate *p)
{
	Assert(list_length(private) == lengthof(build_slots));
	read_list(private, p, build_slots, lengthof(build_slots));
}

List *
bloom_rf_private_make_probe(const RuntimeProbePrivate *p)
{
	return make_list(p, probe_slots, lengthof(probe_slots));
}

void
bloom_rf_private_read_probe(List *private, RuntimeProbePrivate *p)
{
	Assert(list_length(private) == lengthof(probe_slots));
	read_list(private, p, probe_slots, lengthof(probe_slots));
}

List *
bloom_rf_private_make_planned(const RuntimePlannedSkip *p)
{
	return make_list(p, planned_slots, lengthof(planned_slots));
}

void
bloom_rf_private_read_planned(List *private, RuntimePlannedSkip *p)
{
	Assert(list_length(private) == lengthof(planned_slots));
	read_list(private, p, planned_slots, lengthof(planned_slots));
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
