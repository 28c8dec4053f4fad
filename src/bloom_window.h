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
#include "bloom_value.h"

#include "datatype/timestamp.h"

/*
 * A new empty window filter for capacity values a generation (>= 1) over
 * `generations` (1 to 4096) at rate fpp, at generation `generation`, its
 * generations `interval` microseconds long (0: advanced by hand); 22023
 * (or 54000 past 1 GB) for parameters out of range.
 */
extern void bloom_window_make(int64 capacity, double fpp, int32 generations, int64 generation,
                              int64 interval, BloomFilter *out);

/* A generation length in microseconds: a fixed, positive interval (no months; else 22023). */
extern int64 bloom_window_generation_length(const Interval *len);

/*
 * The generation a time falls in, for a clock of len microseconds:
 * floor(t / len), t counted from 2000-01-01 00:00 UTC; 22008 for an
 * infinite time.
 */
extern int64 bloom_window_generation_of(TimestampTz t, int64 len);

/*
 * a := a | b, two window filters of the same shape and clock (checked by
 * the caller): the one behind advanced to the other's generation first
 * (b through a copy), then the bits ORed and the counts added.  a is
 * modifiable and may be replaced.
 */
extern void bloom_window_union_in_place(BloomFilter *a, const BloomFilter *b);

/*
 * Check a value's family against the window filter f's element key (42804),
 * and give f, if it has none yet (no value added), the hasher's: in a new
 * value (in the current memory context) that replaces f's.
 */
extern void bloom_window_take_elem(BloomFilter *f, const BloomHasher *hasher);

/*
 * Add a value in generation r (G - S < r <= G) of the window filter f, a
 * modifiable one: the value's family checked against f's element key
 * (42804), the key set by the first value (in a new value, which replaces
 * f), n and the generation's count raised.
 */
extern void bloom_window_add_value(BloomFilter *f, BloomHasher *hasher, Datum value, int64 r);

/* The values counted in the window's generations (the current one and generations - 1 before). */
extern uint64 bloom_window_values_in_window(const bf_view *v);

#endif /* BLOOM_WINDOW_H */
