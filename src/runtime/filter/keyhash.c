/*
 * keyhash.c
 *	  The join keys of a runtime filter node, hashed as the hash join
 *	  hashes them.
 *
 * Each key is hashed with the standard (32-bit) hash function that the hash
 * join itself uses for its operator and side, under the operator's
 * collation, and the hashes of several keys are combined the way the hash
 * join combines them (rotate left by one, then XOR).  Values equal under
 * the join operator therefore hash alike on both sides, even across types
 * (int4 = int8) or under a nondeterministic collation: that is the
 * contract of a hash operator family, and the join relies on it too.
 */
#include "filter.h"
#include "../private.h"

#include "executor/executor.h"
#include "port/pg_bitutils.h"
#include "utils/lsyscache.h"
#include "utils/ruleutils.h"

#include BLOOM_EXPLAIN_STATE_H

void
bloom_rf_keys_init(RuntimeKeys *keys, CustomScanState *node, bool outer_side)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	RuntimeNodeHead head;
	List *operators, *collations;
	int n = list_length(cscan->custom_exprs);
	int i = 0;
	ListCell *lc;

	bloom_rf_private_read_head(cscan->custom_private, &head);
	operators = head.operators;
	collations = head.collations;
	Assert(n >= 1 && list_length(operators) == n && list_length(collations) == n);
	keys->nkeys = n;
	keys->has_exprs = false;
	keys->attnos = palloc0(n * sizeof(AttrNumber));
	keys->exprs = palloc0(n * sizeof(ExprState *));
	keys->hash_fns = palloc0(n * sizeof(FmgrInfo));
	keys->collations = palloc0(n * sizeof(Oid));
	foreach (lc, cscan->custom_exprs)
	{
		Expr *key = lfirst(lc);
		Oid op = list_nth_oid(operators, i);
		Oid left_fn, right_fn;

		if (!get_op_hash_functions(op, &left_fn, &right_fn))
			elog(ERROR, "could not find hash function for hash operator %u", op);
		fmgr_info(outer_side ? left_fn : right_fn, &keys->hash_fns[i]);
		keys->collations[i] = list_nth_oid(collations, i);
		if (IsA(key, Var) && ((Var *) key)->varno == OUTER_VAR)
			keys->attnos[i] = ((Var *) key)->varattno;
		else
		{
			keys->exprs[i] = ExecInitExpr(key, &node->ss.ps);
			keys->has_exprs = true;
		}
		i++;
	}
}

bool
bloom_rf_keys_hash(RuntimeKeys *keys, TupleTableSlot *slot, ExprContext *econtext, uint32 *hash)
{
	return bloom_rf_keys_hash_values(keys, slot, econtext, hash, NULL, NULL);
}

bool
bloom_rf_keys_hash_values(RuntimeKeys *keys, TupleTableSlot *slot, ExprContext *econtext,
                          uint32 *hash, Datum *values, uint32 *hashes)
{
	uint32 h = 0;
	MemoryContext old;

	/*
	 * The key expressions and hash functions allocate in the row's memory
	 * (hash_numeric copies a short-header value, and never frees it), as
	 * ExecHashGetHashValue has them do: nothing is kept across rows.
	 */
	ResetExprContext(econtext);
	econtext->ecxt_outertuple = slot;
	old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
	for (int i = 0; i < keys->nkeys; i++)
	{
		Datum value;
		bool isnull;
		uint32 one;

		if (keys->attnos[i] > 0)
			value = slot_getattr(slot, keys->attnos[i], &isnull);
		else
			value = ExecEvalExprSwitchContext(keys->exprs[i], econtext, &isnull);
		if (isnull)
		{
			MemoryContextSwitchTo(old);
			return false;
		}
		one = DatumGetUInt32(FunctionCall1Coll(&keys->hash_fns[i], keys->collations[i], value));
		h = pg_rotate_left32(h, 1) ^ one;
		if (values != NULL)
		{
			values[i] = value;
			hashes[i] = one;
		}
	}
	MemoryContextSwitchTo(old);
	*hash = h;
	return true;
}

bool
bloom_rf_keys_value(RuntimeKeys *keys, TupleTableSlot *slot, ExprContext *econtext, int i,
                    Datum *value)
{
	bool isnull;

	Assert(i >= 0 && i < keys->nkeys);
	ResetExprContext(econtext);
	if (keys->attnos[i] > 0)
		*value = slot_getattr(slot, keys->attnos[i], &isnull);
	else
	{
		econtext->ecxt_outertuple = slot;
		*value = ExecEvalExprSwitchContext(keys->exprs[i], econtext, &isnull);
	}
	return !isnull;
}

char *
bloom_rf_keys_explain(CustomScanState *node, List *ancestors, ExplainState *es)
{
	CustomScan *cscan = (CustomScan *) node->ss.ps.plan;
	List *context = set_deparse_context_plan(es->deparse_cxt, &cscan->scan.plan, ancestors);
	bool useprefix = list_length(es->rtable) > 1 || es->verbose;
	StringInfoData buf;
	ListCell *lc;

	initStringInfo(&buf);
	foreach (lc, cscan->custom_exprs)
	{
		if (buf.len > 0)
			appendStringInfoString(&buf, ", ");
		appendStringInfoString(&buf, deparse_expression(lfirst(lc), context, useprefix, false));
	}
	return buf.data;
}
