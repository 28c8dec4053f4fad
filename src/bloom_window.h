/*
 * bloom_window.h
 *	  Window filters in SQL (1.12, bloom_window.c): making, advancing and
 *	  describing them, adds of a row's time, and the union of two, their
 *	  clocks aligned.  Probes and plain adds go through the functions every
 *	  layout shares (bloom_functions.c), which the core dispatches.
 */
#ifndef BLOOM_WINDOW_H
#define BLOOM_WINDOW_H

#include "bloom_datum.h"

/*
 * a := a | b, two window filters of the same shape and clock (checked by
 * the caller): the one behind advanced to the other's generation first
 * (b through a copy), then the bits ORed and the counts added.  a is
 * modifiable and may be replaced.
 */
extern void bloom_window_union_in_place(BloomFilter *a, const BloomFilter *b);

/* The values counted in the window's generations (the current one and generations - 1 before). */
extern uint64 bloom_window_values_in_window(const bf_view *v);

#endif /* BLOOM_WINDOW_H */
