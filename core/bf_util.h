/*
 * bf_util.h
 *	  The bottom of the core: errors, the host's tick, little-endian integers
 *	  (and the big-endian 32-bit ones of other makers' formats).
 *
 * Every other file of the core may include this one; it includes nothing of
 * the core but the format's types.  Not part of the core's interface.
 */
#ifndef BF_UTIL_H
#define BF_UTIL_H

#include "bf_format.h"

#include <assert.h>

/* Fill err with a status and a printf-style message; always returns false. */
extern bool bf_fail(bf_error *err, bf_status status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Call the host's tick function (see bf_set_tick() in bf_core.h), if it set one. */
extern void bf_tick(void);

/* Entries of a long loop between two ticks, as a mask: tick when (i & mask) == mask. */
#define BF_TICK_MASK ((size_t) (1u << 20) - 1)

/* The nbytes-byte little-endian unsigned integer at p (nbytes <= 8). */
static inline uint64_t
bf_load_le(const uint8_t *p, int nbytes)
{
	uint64_t v = 0;

	assert(nbytes >= 1 && nbytes <= 8);
	for (int i = nbytes - 1; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Write v as an nbytes-byte little-endian integer at p (v fits in nbytes). */
static inline void
bf_store_le(uint8_t *p, uint64_t v, int nbytes)
{
	assert(nbytes >= 1 && nbytes <= 8);
	assert(nbytes == 8 || v >> (8 * nbytes) == 0);
	for (int i = 0; i < nbytes; i++, v >>= 8)
		p[i] = (uint8_t) v;
}

/* The big-endian 32-bit integer at p (other makers' formats: Spark's, Guava's). */
static inline uint32_t
bf_load_be32(const uint8_t *p)
{
	return ((uint32_t) p[0] << 24) | ((uint32_t) p[1] << 16) | ((uint32_t) p[2] << 8) | p[3];
}

/* Write v as a big-endian 32-bit integer at p. */
static inline void
bf_store_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t) (v >> 24);
	p[1] = (uint8_t) (v >> 16);
	p[2] = (uint8_t) (v >> 8);
	p[3] = (uint8_t) v;
}

/*
 * a mod m without a division on the probe's path: recip = bf_mod_recip(m),
 * computed once per filter, and a multiply-high (Barrett reduction).  The
 * estimated quotient q = floor(a recip / 2^64) is at most 2 below a / m's,
 * so two subtractions at most make the remainder exact.  recip 0 (or no
 * 128-bit product): a division.
 */
static inline uint64_t
bf_mod_recip(uint64_t m)
{
	assert(m >= 1);
	return UINT64_MAX / m;
}

static inline uint64_t
bf_mod(uint64_t a, uint64_t m, uint64_t recip)
{
#ifdef __SIZEOF_INT128__
	if (recip != 0)
	{
		__extension__ typedef unsigned __int128 bf_u128;
		uint64_t r = a - (uint64_t) (((bf_u128) a * recip) >> 64) * m;

		while (r >= m)
			r -= m;
		return r;
	}
#endif
	return a % m;
}

#endif /* BF_UTIL_H */
