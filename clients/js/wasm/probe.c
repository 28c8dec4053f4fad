/*
 * probe.c
 *	  Hash scheme 1's probe, compiled to WebAssembly for pg-bloomfilter
 *	  (build.sh writes ../src/probe_wasm.js; ../src/wasm.js loads it).
 *
 * The positions are the core's own code (core/bf_hash.h: fmix64, the
 * reduction, the blocked512 offsets and their refills), the code the
 * server runs, so that JavaScript computes with native 64-bit arithmetic
 * what probe.js computes from 32-bit halves, and a batch's loads of 256
 * blocks overlap: containsMany ran 1.36 to 1.75 times as fast as in
 * JavaScript (bench/clients.sh, side by side).
 *
 * Memory (exported, grown by JavaScript to hold the filter): this module's own data (the batch's
 * hashes and answers, the filter's shape) below __heap_base; the filter's
 * data above it, where JavaScript copies it once (bf_set_filter's data).
 * Every index into the data is below its length by construction: a
 * position is reduce(x, m) < m, a block reduce(x, blocks) < blocks, an
 * offset in a block below 512, and the shape was checked by format.js
 * against the data's length before any call here.  A window filter (1.12)
 * is probed by the core's own scan (core/bf_window_scan.h) on the data that
 * its WindowFilter reads and writes (wasm.js's wasmWindow): a position in
 * slot p < S is below (p + 1) slice_bits.
 */
#include "bf_bits.h"
#include "bf_hash.h"
#include "bf_window_scan.h"

#define BATCH 256     /* values a batch: probe.js's BATCH too */
#define MAX_LAYERS 64 /* BF_MAX_LAYERS */

#define EXPORT(name) __attribute__((export_name(name)))

/* The filter's shape: its layout, its data, and per layer (one for a
 * blocked512 filter) where its bits start, its blocks and its k. */
static struct
{
	uint32_t layout;
	const uint8_t *data;
	uint64_t m; /* classic, counting4: cells */
	uint32_t k; /* classic, counting4 */
	uint32_t nlayers;
	uint32_t offset[MAX_LAYERS];
	uint64_t blocks[MAX_LAYERS];
	uint32_t ks[MAX_LAYERS];
} filter;

/* The batch: its hashes in, its answers out, and between them each value's
 * x and y and its block's byte index in the layer being probed. */
static uint64_t batch_hashes[BATCH];
static uint8_t batch_held[BATCH];
static uint64_t batch_x[BATCH];
static uint64_t batch_y[BATCH];
static uint32_t batch_block[BATCH];

/* A load's result, kept where the compiler cannot prove it unused: a load
 * made only to start a block's trip into the caches must stay. */
static volatile uint32_t loaded;

EXPORT("bf_hashes") uint64_t *bf_hashes(void)
{
	return batch_hashes;
}
EXPORT("bf_held") uint8_t *bf_held(void)
{
	return batch_held;
}
EXPORT("bf_batch") uint32_t bf_batch(void)
{
	return BATCH;
}

/* The filter: layout (1 classic, 2 counting4, 3 blocked512, 5 layered; not
 * 4, explicit, which JavaScript searches itself), its data's address, and
 * m and k (classic, counting4); then bf_set_layer for each layer. */
EXPORT("bf_set_filter")
void
bf_set_filter(uint32_t layout, const uint8_t *data, uint32_t m_lo, uint32_t m_hi, uint32_t k,
              uint32_t nlayers)
{
	filter.layout = layout;
	filter.data = data;
	filter.m = (uint64_t) m_hi << 32 | m_lo;
	filter.k = k;
	filter.nlayers = nlayers <= MAX_LAYERS ? nlayers : MAX_LAYERS;
}

/* Layer i (0 for a blocked512 filter): its bits start at byte offset of the
 * data; blocks of 512 bits; k bits a value. */
EXPORT("bf_set_layer")
void
bf_set_layer(uint32_t i, uint32_t offset, uint32_t blocks, uint32_t k)
{
	if (i >= MAX_LAYERS)
		return;
	filter.offset[i] = offset;
	filter.blocks[i] = blocks;
	filter.ks[i] = k;
}

/* Whether the block at block has the k bits of y (a hash state's offsets). */
static int
block_holds(const uint8_t *block, uint64_t y, uint32_t k)
{
	bf_hash_state s = {0, 0, y, y, 0};

	for (uint32_t i = 0; i < k; i++)
		if (!bf_bit_test(block, bf_hash_next_in_block(&s)))
			return 0;
	return 1;
}

/* classic and counting4: whether all k positions of s are set. */
static int
positions_held(bf_hash_state *s)
{
	const uint8_t *data = filter.data;

	for (uint32_t i = 0; i < filter.k; i++)
	{
		uint64_t pos = bf_hash_next(s, filter.m);

		if (filter.layout == BF_LAYOUT_COUNTING4 ? ((data[pos >> 1] >> ((pos & 1) << 2)) & 15) == 0
		                                         : !bf_bit_test(data, pos))
			return 0;
	}
	return 1;
}

/* Whether the filter holds the value whose hash is hi:lo. */
EXPORT("bf_probe_one")
uint32_t
bf_probe_one(uint32_t lo, uint32_t hi)
{
	bf_hash_state s = bf_hash_start((uint64_t) hi << 32 | lo);

	if (filter.layout == BF_LAYOUT_CLASSIC || filter.layout == BF_LAYOUT_COUNTING4)
		return positions_held(&s);
	for (uint32_t l = 0; l < filter.nlayers; l++)
	{
		const uint8_t *block =
		    filter.data + filter.offset[l] + bf_reduce(s.x, filter.blocks[l]) * 64;

		if (block_holds(block, s.y, filter.ks[l]))
			return 1;
	}
	return 0;
}

/*
 * Whether the filter holds each of the batch's first n hashes: batch_held[i]
 * = 1 if it may, else 0; bf_probe_one's answers.  Every block (or a classic
 * value's first position) is loaded before any is tested, in a loop with no
 * branches, so that the loads of a filter beyond the caches overlap.
 */
EXPORT("bf_probe_batch")
void
bf_probe_batch(uint32_t n)
{
	const uint8_t *data = filter.data;
	uint32_t sum = 0;

	if (n > BATCH)
		n = BATCH;
	if (filter.layout == BF_LAYOUT_CLASSIC || filter.layout == BF_LAYOUT_COUNTING4)
	{
		uint32_t shift = filter.layout == BF_LAYOUT_COUNTING4 ? 1 : 3;

		for (uint32_t i = 0; i < n; i++)
			sum += data[bf_reduce(bf_fmix64(batch_hashes[i]), filter.m) >> shift];
		loaded = sum;
		for (uint32_t i = 0; i < n; i++)
		{
			bf_hash_state s = bf_hash_start(batch_hashes[i]);

			batch_held[i] = (uint8_t) positions_held(&s);
		}
		return;
	}
	for (uint32_t i = 0; i < n; i++)
	{
		bf_hash_state s = bf_hash_start(batch_hashes[i]);

		batch_x[i] = s.x;
		batch_y[i] = s.y;
		batch_held[i] = 0;
	}
	/* layer by layer (one for blocked512): a value is held if one holds it */
	for (uint32_t l = 0; l < filter.nlayers; l++)
	{
		for (uint32_t i = 0; i < n; i++)
			batch_block[i] =
			    filter.offset[l] + (uint32_t) bf_reduce(batch_x[i], filter.blocks[l]) * 64;
		/* (one cache line each: the data starts 64-byte aligned, wasm.js) */
		for (uint32_t i = 0; i < n; i++)
			sum += data[batch_block[i]];
		loaded = sum;
		for (uint32_t i = 0; i < n; i++)
			if (!batch_held[i])
				batch_held[i] =
				    (uint8_t) block_holds(data + batch_block[i], batch_y[i], filter.ks[l]);
	}
}

/* A window filter: its data, bits a slice, slices and hashes. */
static struct
{
	const uint8_t *data;
	uint64_t slice_bits;
	uint32_t slices;
	uint32_t hashes;
} window;

/* The window filter this instance probes (its data's address, its shape). */
EXPORT("bf_set_window")
void
bf_set_window(const uint8_t *data, uint32_t slice_bits_lo, uint32_t slice_bits_hi, uint32_t slices,
              uint32_t hashes)
{
	window.data = data;
	window.slice_bits = (uint64_t) slice_bits_hi << 32 | slice_bits_lo;
	window.slices = slices;
	window.hashes = hashes;
}

/* Whether the window filter may hold the value whose hash is hi:lo, its newest slice in slot now. */
EXPORT("bf_window_probe")
uint32_t
bf_window_probe_one(uint32_t lo, uint32_t hi, uint32_t now)
{
	bf_hash_state s = bf_hash_start((uint64_t) hi << 32 | lo);
	bf_window_probe p = {window.data, window.slice_bits, s.x, s.y, window.slices, now};

	if (now >= window.slices || window.hashes == 0 || window.hashes > window.slices)
		return 1; /* (never: wasm.js passes the filter's own; "maybe" is never wrong) */
	return bf_window_scan(&p, window.hashes);
}
