/*
 * bloom_functions.h
 *	  Adding a SQL value to a filter (bloom_functions.c, with the functions
 *	  that create, add to, probe and inspect filters from SQL).
 */
#ifndef BLOOM_FUNCTIONS_H
#define BLOOM_FUNCTIONS_H

#include "bloom_datum.h"
#include "bloom_value.h"

/*
 * Add a value to a filter the caller may modify.  An empty filter takes the
 * value's element key, which reallocates it in the current memory context:
 * use f->raw afterwards.
 */
extern void bloom_add_datum(BloomFilter *f, BloomHasher *hasher, Datum value);

#endif /* BLOOM_FUNCTIONS_H */
