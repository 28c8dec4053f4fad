/*
 * test_window.c
 *	  Unit tests of window filters (core/bf_window.c, bf_window_sizing.c,
 *	  bf_format_window.c and their text, bf_text_tables.c): the paper's
 *	  shapes, no false negative within the window, the measured rate and
 *	  recall against the formulas, order, union and batched adds giving the
 *	  same bytes,
 *	  and the format's and the text's checks.
 */
#include "bf_core.h"
#include "unit.h"

#include <math.h>
#include <stdlib.h>

/* a value's 64-bit hash, as the SQL layer would give it (any good mix will do) */
static uint64_t
hash_of(uint64_t v)
{
	v += UINT64_C(0x9E3779B97F4A7C15);
	v = (v ^ (v >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
	v = (v ^ (v >> 27)) * UINT64_C(0x94D049BB133111EB);
	return v ^ (v >> 31);
}

/* add a value in generation r, counting it in n as the SQL layer does */
static void
add(bf_view *v, uint64_t h, int64_t r)
{
	bf_view_set_nadded(v, v->nadded + 1);
	bf_window_add(v, h, r);
}

/* a new empty window filter (malloc'd payload in *buf), or NULL */
static uint8_t *
new_window(double capacity, double fpp, unsigned generations, int64_t generation, int64_t interval,
           bf_view *view)
{
	unsigned hashes;
	uint64_t slice_bits;
	bf_params p;
	bf_error err;
	size_t size;
	uint8_t *buf;

	if (!bf_window_size_for(capacity, fpp, generations, &hashes, &slice_bits, &err))
		return NULL;
	bf_window_params(hashes, generations, slice_bits, &p);
	if (!bf_payload_size(&p, 0, 22, &size, &err) || (buf = malloc(size)) == NULL)
		return NULL;
	bf_init(buf, &p, 0, "pg_catalog.integer_ops", 22, 0, view);
	bf_view_set_window(view, hashes, (uint64_t) capacity, generation, interval);
	return buf;
}

/* The paper's shapes (k, l) for its rates: the same hashes here for l + 1 generations. */
static void
test_paper_shapes(void)
{
	static const struct
	{
		double fpp;
		unsigned k, l;
	} paper[] = {{1e-1, 4, 3}, {1e-2, 7, 5}, {1e-3, 10, 7}, {1e-4, 14, 11}, {1e-5, 17, 13}};

	for (size_t i = 0; i < sizeof(paper) / sizeof(paper[0]); i++)
	{
		unsigned hashes = 0;
		uint64_t slice_bits = 0;
		bf_error err;

		uint64_t paper_bits =
		    (uint64_t) ceil(ceil(paper[i].k * 100000 / 0.6931471805599453) / 64) * 64;

		CHECK(bf_window_size_for(100000, paper[i].fpp, paper[i].l + 1, &hashes, &slice_bits, &err));
		printf("     rate %g over %u generations: hashes %u (the paper's k %u), %.2f bits per "
		       "value of the window; the paper's shape %.3g at its fullest, %.3g just after a "
		       "shift\n",
		       paper[i].fpp, paper[i].l + 1, hashes, paper[i].k,
		       (double) slice_bits * (hashes + paper[i].l) / (100000.0 * (paper[i].l + 1)),
		       bf_window_fpp(paper[i].k, paper[i].l + 1, paper_bits, 100000),
		       bf_window_fpp(paper[i].k, paper[i].l, paper_bits, 100000));
		/*
		 * The paper's rate is that of a filter just after a shift (its
		 * newest slice empty, the same as one slice fewer); met here at the
		 * filter's fullest, just before one, it takes one hash more.
		 */
		CHECK(hashes == paper[i].k + 1);
		CHECK(bf_window_fpp(paper[i].k, paper[i].l, paper_bits, 100000) <= paper[i].fpp);
		CHECK(slice_bits % 64 == 0 && slice_bits >= (uint64_t) ceil(hashes * 100000 / log(2)));
		CHECK(bf_window_fpp(hashes, paper[i].l + 1, slice_bits, 100000) <= paper[i].fpp);
		CHECK(bf_window_fpp(paper[i].k, paper[i].l + 1, paper_bits, 100000) > paper[i].fpp);
	}
}

/* The sizing's refusals. */
static void
test_sizing_rejects(void)
{
	unsigned hashes;
	uint64_t slice_bits;
	bf_error err;

	CHECK(!bf_window_size_for(0, 0.01, 10, &hashes, &slice_bits, &err) &&
	      err.status == BF_ERR_PARAM);
	CHECK(!bf_window_size_for(10, 0, 10, &hashes, &slice_bits, &err) && err.status == BF_ERR_PARAM);
	CHECK(!bf_window_size_for(10, 1, 10, &hashes, &slice_bits, &err) && err.status == BF_ERR_PARAM);
	CHECK(!bf_window_size_for(10, 0.01, 0, &hashes, &slice_bits, &err) &&
	      err.status == BF_ERR_PARAM);
	CHECK(!bf_window_size_for(10, 0.01, 4097, &hashes, &slice_bits, &err) &&
	      err.status == BF_ERR_PARAM);
	CHECK(!bf_window_size_for(1e12, 0.01, 10, &hashes, &slice_bits, &err) &&
	      err.status == BF_ERR_TOO_LARGE);
	/* 4096 generations at 1e-18 needs more than 64 hashes */
	CHECK(!bf_window_size_for(10, 1e-18, 4096, &hashes, &slice_bits, &err) &&
	      err.status == BF_ERR_PARAM);
	CHECK(bf_window_size_for(1, 0.5, 1, &hashes, &slice_bits, &err) && hashes == 1 &&
	      slice_bits == 64);
}

/*
 * Generations of distinct values, the filter advanced after each: every
 * value of the window found after every advance, the rate of values never
 * added at most 1.15 times the target at its fullest, and the recall of
 * older values against bf_window_recall().
 */
static void
test_window_life(void)
{
	const unsigned gens = 10, cap = 20000, rounds = 30;
	bf_view v;
	bf_window_shape w;
	uint8_t *buf = new_window(cap, 0.01, gens, 0, 0, &v);
	unsigned misses = 0;
	double found_at_age[40] = {0};
	unsigned asked_at_age[40] = {0};
	uint64_t fp = 0, asked = 0;
	bf_error err;

	CHECK(buf != NULL);
	if (buf == NULL)
		return;
	bf_window_get(&v, &w);
	for (unsigned r = 0; r < rounds; r++)
	{
		if (r > 0)
			bf_window_advance(&v, (int64_t) r);
		for (unsigned i = 0; i < cap; i++)
			add(&v, hash_of((uint64_t) r * cap + i), (int64_t) r);
		/* every value of the last gens generations, and older ones for the recall */
		for (unsigned age = 0; age <= r && age < w.slices + 2; age++)
			for (unsigned i = 0; i < cap; i += (age < gens ? 1 : 4))
			{
				bool held = bf_window_contains(&v, hash_of((uint64_t) (r - age) * cap + i));

				if (age < gens && !held)
					misses++;
				if (r >= w.slices + 2 && age < 40)
				{
					asked_at_age[age]++;
					found_at_age[age] += held;
				}
			}
		if (r >= w.slices)
			for (uint64_t i = 0; i < 50000; i++, asked++)
				fp += bf_window_contains(&v, hash_of(UINT64_C(1) << 40 | (r << 20) | i));
	}
	CHECK(misses == 0);
	printf("     %u generations of %u at 1 %%: hashes %u, %u slices of %llu bits; false "
	       "negatives %u; rate of values never added %.5f (formula %.5f, now %.5f)\n",
	       gens, cap, w.hashes, w.slices, (unsigned long long) w.slice_bits, misses,
	       (double) fp / (double) asked, bf_window_fpp(w.hashes, gens, w.slice_bits, cap),
	       bf_window_current_fpp(&v));
	CHECK((double) fp / (double) asked <= 0.0115);
	CHECK(fabs(bf_window_current_fpp(&v) - bf_window_fpp(w.hashes, gens, w.slice_bits, cap)) <
	      0.001);
	for (unsigned age = gens; age < w.slices + 2; age++)
	{
		double measured = found_at_age[age] / asked_at_age[age];
		double formula = bf_window_recall(w.hashes, gens, w.slice_bits, cap, age);

		printf("     age %u: recalled %.4f (formula %.4f)\n", age, measured, formula);
		CHECK(fabs(measured - formula) < 0.02 + 0.1 * formula);
	}
	CHECK(bf_check_data(&v, 0, &err));
	free(buf);
}

/*
 * The bytes depend on the values, their generations and G alone: values
 * added late into their own generations, and two halves joined by union
 * after the one behind advanced, give the bytes of adding as time went.
 */
static void
test_order_and_union(void)
{
	const unsigned gens = 5, cap = 3000, last = 9;
	bf_view seq, late, half_a, half_b;
	uint8_t *b_seq = new_window(cap, 0.02, gens, -3, 0, &seq);
	uint8_t *b_late = new_window(cap, 0.02, gens, -3, 0, &late);
	uint8_t *b_a = new_window(cap, 0.02, gens, -3, 0, &half_a);
	uint8_t *b_b = new_window(cap, 0.02, gens, -3, 0, &half_b);
	size_t size = seq.nbytes + (size_t) (seq.data - seq.payload);
	bf_error err;

	CHECK(b_seq && b_late && b_a && b_b);
	if (!(b_seq && b_late && b_a && b_b))
		return;
	bf_window_advance(&late, last); /* then every generation's values, newest first */
	bf_window_advance(&half_b, 4);
	for (int64_t r = -3; r <= last; r++)
	{
		if (r > -3)
		{
			bf_window_advance(&seq, r);
			if (r > 4)
				bf_window_advance(&half_b, r);
			if (r > -3)
				bf_window_advance(&half_a, r <= 6 ? r : 6);
		}
		for (unsigned i = 0; i < cap; i++)
		{
			uint64_t h = hash_of((uint64_t) (r + 100) * 7919 + i);

			add(&seq, h, r);
			if (r <= 6 && i % 2 == 0)
				add(&half_a, h, r);
			if (r > 6 || i % 2 == 1)
				add(&half_b, h, r);
		}
	}
	for (int64_t r = last; r > last - (int64_t) late.p.nhashes; r--)
		for (unsigned i = 0; i < cap; i++)
			add(&late, hash_of((uint64_t) (r + 100) * 7919 + i), r);
	/* late's n and counts are its slices' generations'; seq's n counts every value ever */
	CHECK(memcmp(seq.data, late.data, seq.nbytes) == 0);
	for (unsigned s = 0; s < seq.p.nhashes; s++)
		CHECK(bf_window_count(&seq, s) == bf_window_count(&late, s));
	/* half_a stopped at 6 (it is behind): advanced to 9, then the union */
	bf_window_advance(&half_a, last);
	CHECK(bf_same_shape(&half_a, &half_b));
	bf_window_union(&half_a, &half_b);
	CHECK(memcmp(seq.data, half_a.data, seq.nbytes) == 0);
	CHECK(bf_check_header_all(b_seq, size, &seq, &err) && bf_check_data(&seq, 0, &err));
	CHECK(bf_check_header_all(b_a, size, &half_a, &err) && bf_check_data(&half_a, 0, &err));
	free(b_seq);
	free(b_late);
	free(b_a);
	free(b_b);
}

/*
 * bf_window_add_many: the bytes and counts of one add at a time, for values
 * of every age the window still has (older than the window too), in runs of
 * one generation and mixed, in batches of 1 to 97 (shorter and longer than
 * its prefetch distance), and with counts that saturate.
 */
static void
test_add_many(void)
{
	enum
	{
		VALUES = 20000
	};
	const unsigned gens = 4;
	bf_view one, many;
	uint8_t *b_one = new_window(2000, 0.01, gens, 50, 0, &one);
	uint8_t *b_many = new_window(2000, 0.01, gens, 50, 0, &many);
	static uint64_t hashes[VALUES];
	static int64_t generations[VALUES];
	size_t done = 0, batch = 1;

	CHECK(b_one && b_many);
	if (!(b_one && b_many))
		return;
	srand(52);
	for (unsigned i = 0; i < VALUES; i++)
	{
		hashes[i] = hash_of(i);
		/* the first half in runs of one generation, the rest of any age left */
		generations[i] = 50 - (int64_t) (i < VALUES / 2 ? (i / 1000) % one.p.nhashes
		                                                : (unsigned) rand() % one.p.nhashes);
		bf_window_add(&one, hashes[i], generations[i]);
	}
	while (done < VALUES)
	{
		size_t n = batch < VALUES - done ? batch : VALUES - done;

		bf_window_add_many(&many, hashes + done, generations + done, n);
		done += n;
		batch = batch % 97 + 7;
	}
	CHECK(memcmp(one.data, many.data, one.nbytes) == 0);
	for (unsigned s = 0; s < one.p.nhashes; s++)
		CHECK(bf_window_count(&one, s) == bf_window_count(&many, s));
	/* a count at 2^63-2 takes one more and then stops, as one at a time does */
	bf_window_set_count(&one, 50 % one.p.nhashes, INT64_MAX - 1);
	bf_window_set_count(&many, 50 % one.p.nhashes, INT64_MAX - 1);
	for (unsigned i = 0; i < 3; i++)
		bf_window_add(&one, hashes[i], 50);
	bf_window_add_many(&many, hashes, (const int64_t[]){50, 50, 50}, 3);
	CHECK(bf_window_count(&many, 50 % one.p.nhashes) == INT64_MAX);
	CHECK(bf_window_count(&one, 50 % one.p.nhashes) == INT64_MAX);
	CHECK(memcmp(one.data, many.data, one.nbytes) == 0);
	free(b_one);
	free(b_many);
}

/* Advancing: by 0 nothing, by S or more everything, far and across zero. */
static void
test_advance(void)
{
	bf_view v;
	uint8_t *buf = new_window(100, 0.01, 3, INT64_MAX - 20, 3600000000, &v);
	bf_window_shape w;
	uint64_t before;

	CHECK(buf != NULL);
	if (buf == NULL)
		return;
	for (unsigned i = 0; i < 100; i++)
		add(&v, hash_of(i), INT64_MAX - 20);
	before = bf_occupied(&v, 0, v.nbytes);
	bf_window_advance(&v, INT64_MAX - 20);
	CHECK(bf_occupied(&v, 0, v.nbytes) == before && before > 0);
	bf_window_advance(&v, INT64_MAX - 18); /* two generations: within the window of 3 */
	CHECK(bf_window_contains(&v, hash_of(7)));
	bf_window_advance(&v, INT64_MAX);
	bf_window_get(&v, &w);
	CHECK(w.generation == INT64_MAX && bf_occupied(&v, 0, v.nbytes) == 0);
	for (unsigned s = 0; s < w.slices; s++)
		CHECK(bf_window_count(&v, s) == 0);
	CHECK(v.nadded == 100 && w.interval == 3600000000);
	free(buf);
}

/* The format's checks, and the text form: round trips and refusals. */
static void
test_format_and_text(void)
{
	bf_view v, back;
	uint8_t *buf = new_window(50, 0.05, 4, -7, 0, &v);
	size_t size = v.nbytes + (size_t) (v.data - v.payload), plen = 0;
	bf_error err;
	char *text;
	uint8_t *parsed;

	CHECK(buf != NULL);
	if (buf == NULL)
		return;
	for (unsigned i = 0; i < 60; i++)
		add(&v, hash_of(i), -7 - (int64_t) (i % 3));
	/* taken only by the code that opts in */
	CHECK(!bf_check_header(buf, size, &back, &err) && err.status == BF_ERR_PARAM);
	CHECK(bf_check_header_all(buf, size, &back, &err) && bf_check_data(&back, 0, &err));
	text = malloc(bf_text_length(&v) + 1);
	bf_text_write(&v, text);
	printf("     %.*s...\n", 150, text);
	CHECK(strstr(text, "v1 window ") == text && strstr(text, " window=") != NULL &&
	      strstr(text, ":-7:0 counts=") != NULL);
	CHECK(bf_text_parse(text, strlen(text), NULL, &plen, &err) && plen == size);
	parsed = malloc(plen);
	CHECK(bf_text_parse(text, strlen(text), parsed, &plen, &err) && memcmp(parsed, buf, size) == 0);
	/* refusals: the text's */
	{
		static const char *const bad[][2] = {
		    {":-7:0 counts=", ":-07:0 counts="}, {":-7:0 counts=", ":-7:-0 counts="},
		    {":-7:0 counts=", ":-7: counts="},   {" counts=", " counts=,"},
		    {" window=", " window=0"},           {" window=", " windows="},
		};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		{
			char *t = malloc(strlen(text) + 8), *at = strstr(text, bad[i][0]);

			CHECK(at != NULL);
			if (at == NULL)
				continue;
			memcpy(t, text, (size_t) (at - text));
			strcpy(t + (at - text), bad[i][1]);
			strcat(t, at + strlen(bad[i][0]));
			CHECK(!bf_text_parse(t, strlen(t), NULL, &plen, &err));
			free(t);
		}
	}
	/* refusals: the bytes' (hashes 0, hashes past S, counts past n, bits past the counts) */
	{
		uint8_t *copy = malloc(size);
		bf_view cv;
		size_t table = (size_t) (v.window - v.payload);

		memcpy(copy, buf, size);
		copy[table] = 0;
		CHECK(!bf_check_header_all(copy, size, &cv, &err));
		memcpy(copy, buf, size);
		copy[table] = 200;
		CHECK(!bf_check_header_all(copy, size, &cv, &err));
		memcpy(copy, buf, size);
		copy[table + 26] = 61; /* slot 0 counts 61 values: more than n = 60 with the rest */
		copy[table + 27] = 0;
		/* (the counts are the data's check: O(S), once when a value enters) */
		CHECK(bf_check_header_all(copy, size, &cv, &err) && !bf_check_data(&cv, 0, &err));
		bf_view_set_nadded(&cv, INT64_MAX); /* past a saturated n, their sum is not bounded */
		CHECK(bf_check_header_all(copy, size, &cv, &err) && bf_check_data(&cv, 0, &err));
		memcpy(copy, buf, size);
		copy[BF_OFF_SEED] = 7; /* a window filter's seed is 0 */
		CHECK(!bf_check_header_all(copy, size, &cv, &err));
		memcpy(copy, buf, size);
		memset(copy + (v.data - v.payload), 0xFF, v.nbytes); /* every bit: more than counted */
		CHECK(bf_check_header_all(copy, size, &cv, &err) && !bf_check_data(&cv, 0, &err));
		memcpy(copy, buf, size);
		copy[BF_OFF_FLAGS] = BF_FLAG_DERIVED;
		CHECK(!bf_check_header_all(copy, size, &cv, &err));
		free(copy);
	}
	free(parsed);
	free(text);
	free(buf);
}

/* docs/format.md's window table is core/bf_format_window.h's. */
static void
test_window_table(void)
{
	char *header = table_of("core/bf_format_window.h", "WINDOW TABLE");
	char *doc = table_of("docs/format.md", "WINDOW TABLE");

	CHECK(header != NULL && doc != NULL);
	if (header != NULL && doc != NULL && strcmp(header, doc) != 0)
	{
		CHECK(!"docs/format.md's window table differs from core/bf_format_window.h's: copy it");
	}
	free(header);
	free(doc);
}

int
main(void)
{
	run("paper_shapes", test_paper_shapes);
	run("sizing_rejects", test_sizing_rejects);
	run("window_life", test_window_life);
	run("order_and_union", test_order_and_union);
	run("add_many", test_add_many);
	run("advance", test_advance);
	run("format_and_text", test_format_and_text);
	run("window_table", test_window_table);
	return unit_summary();
}
