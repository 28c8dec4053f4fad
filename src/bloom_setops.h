/*
 * bloom_setops.h
 *	  Estimates from a filter's bits (bloom_setops.c, with the set operations
 *	  that derive filters).
 */
#ifndef BLOOM_SETOPS_H
#define BLOOM_SETOPS_H

#include "bloom_datum.h"

/*
 * Estimated distinct values held: for a derived filter the recorded
 * estimate, else -(m/k) ln(1 - X/m) for X occupied; never above the values
 * added.
 */
extern double bloom_estimate_distinct(const bf_view *v, uint64 occupied);

/* The set bits that bound the false-positive rate: the bound if derived, else X. */
extern uint64 bloom_effective_bits(const bf_view *v, uint64 occupied);

/*
 * The false-positive rate a probe of a value outside the set meets now:
 * (X/m)^k for the bit layouts, by the blocked formula at the estimated count
 * for blocked512 (its blocks fill unevenly), the bound for a derived filter.
 */
extern double bloom_current_fpp(const bf_view *v, uint64 occupied);

#endif /* BLOOM_SETOPS_H */
