/*
 * node.c
 *	  What the two executor nodes of a runtime filter (build.c, probe.c)
 *	  share: their state's first part (RuntimeNode), its creation and start,
 *	  end and rescan of the child, and the counts' share of their shared
 *	  memory.  Both nodes pass their child's tuples through, in its slots.
 */
#include "exec.h"
#include "../private.h"

#include "executor/executor.h"

Node *
bloom_rf_node_create(Size size, const CustomExecMethods *methods)
{
	RuntimeNode *node;

	Assert(size >= sizeof(RuntimeNode));
	node = palloc0(size);
	NodeSetTag(node, T_CustomScanState);
	node->css.methods = methods;
	return (Node *) node;
}

void
bloom_rf_node_begin(RuntimeNode *node, EState *estate, int eflags, bool outer_side)
{
	CustomScanState *css = &node->css;
	CustomScan *cscan = (CustomScan *) css->ss.ps.plan;
	RuntimeNodeHead head;

	bloom_rf_private_read_head(cscan->custom_private, &head);
	/* the child, and our result: its tuples, in its slots */
	outerPlanState(css) = ExecInitNode(outerPlan(cscan), estate, eflags);
	css->ss.ps.resultops = ExecGetResultSlotOps(outerPlanState(css), &css->ss.ps.resultopsfixed);
	css->ss.ps.resultopsset = true;
	bloom_rf_keys_init(&node->keys, css, outer_side);
	node->filter_id = head.id;
}

void
bloom_rf_node_end(CustomScanState *node)
{
	ExecEndNode(outerPlanState(node));
}

void
bloom_rf_node_rescan_child(CustomScanState *node)
{
	if (outerPlanState(node)->chgParam == NULL)
		ExecReScan(outerPlanState(node));
}

Size
bloom_rf_node_dsm_size(CustomScanState *node, ParallelContext *pcxt)
{
	return MAXALIGN(bloom_rf_counts_size(pcxt));
}

/* At executor start and again at a rescan of Gather: the counts start over. */
void
bloom_rf_node_dsm_init(CustomScanState *node, ParallelContext *pcxt, void *coordinate)
{
	bloom_rf_counts_init(&((RuntimeNode *) node)->par, pcxt, coordinate);
}

void
bloom_rf_node_dsm_attach(CustomScanState *node, shm_toc *toc, void *coordinate)
{
	bloom_rf_counts_attach(&((RuntimeNode *) node)->par, coordinate);
}

Size
bloom_rf_node_dsm_attached_size(CustomScanState *node)
{
	/* the counts' size depends on the number of workers, which the leader wrote */
	return MAXALIGN(bloom_rf_counts_attached_size(&((RuntimeNode *) node)->par));
}
