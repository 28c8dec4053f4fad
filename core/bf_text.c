/*
 * bf_text.c
 *	  The text form of a filter: a readable header and the bits in base64.
 *
 *	  v1 classic m=9586 k=7 scheme=1 seed=0 n=1000 elem=pg_catalog.integer_ops bits=AAQ...
 *
 * A layered filter (1.9) names its layers' shapes, m:k each, between the
 * element key and its bits (all layers' bits, in layer order):
 *
 *	  v1 layered m=3584 k=2 scheme=1 seed=0 n=40 elem=pg_catalog.integer_ops layers=1024:5,2560:6 bits=...
 *
 * and a window filter (1.12) its shape, clock and counts per slice slot
 * (bf_text_tables.c):
 *
 *	  v1 window m=1152 k=9 scheme=1 seed=0 n=3 elem=pg_catalog.integer_ops window=7:10:4:0 counts=0,0,0,0,3,0,0,0,0 bits=...
 *
 * Base64 keeps the text form at 4/3 of the bit array (plus the header line),
 * which matters because postgres_fdw ships filters as text.  The form is
 * canonical and the parser accepts nothing else (no extra spaces, no leading
 * zeros, no non-zero padding bits), so that text -> value -> text is the
 * identity and two equal filters always print alike.  The parser trusts no
 * length: every number is range-checked before it is used to size anything.
 */
#include "bf_core.h"
#include "bf_makers.h"
#include "bf_text_tables.h"
#include "bf_util.h"

#include <stdio.h>
#include <string.h>

/* Base64 quanta (3 bytes, 4 characters) between two ticks: 3 MB of data. */
#define TICK_QUANTA (1u << 20)

static inline void
maybe_tick(size_t quantum)
{
	if (quantum % TICK_QUANTA == TICK_QUANTA - 1)
		bf_tick();
}

static const char b64_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char hex_digits[] = "0123456789ABCDEF";

/* Bytes of the element key that are written as themselves. */
static bool
elem_char_plain(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
	       c == '.' || c == '@' || c == '$' || c == '-';
}

static size_t
b64_length(size_t nbytes)
{
	return (nbytes + 2) / 3 * 4;
}

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1; /* lower case is not canonical */
}

static const char *
data_name(uint8_t layout)
{
	if (layout == BF_LAYOUT_COUNTING4)
		return " counters=";
	return layout == BF_LAYOUT_EXPLICIT ? " hashes=" : " bits=";
}

/* ---- output ---- */

/* The text before the element key; at most 200 bytes. */
static size_t
header_text(const bf_view *view, char *out, size_t outlen)
{
	int len = snprintf(out, outlen, "v%u %s m=%llu k=%u scheme=%u seed=%llu ",
	                   (unsigned) view->version, bf_layout_name(view->p.layout),
	                   (unsigned long long) view->p.ncells, (unsigned) view->p.nhashes,
	                   (unsigned) view->p.scheme, (unsigned long long) view->p.seed);

	/* another maker's filter whose count is unknown (flag bit 2) */
	if (view->flags & BF_FLAG_N_UNKNOWN)
		len += snprintf(out + len, outlen - (size_t) len, "n=unknown ");
	else
		len += snprintf(out + len, outlen - (size_t) len, "n=%llu ",
		                (unsigned long long) view->nadded);

	if (view->flags & BF_FLAG_DERIVED)
		len += snprintf(out + len, outlen - (size_t) len, "bound=%llu est=%llu ",
		                (unsigned long long) view->bound, (unsigned long long) view->est_distinct);
	if (view->flags & BF_FLAG_TARGET)
	{
		/* parts per billion as a decimal fraction: 10000000 -> 0.01 */
		char digits[10];
		int n = snprintf(digits, sizeof(digits), "%09u", (unsigned) view->target_ppb);

		while (n > 1 && digits[n - 1] == '0')
			n--;
		len += snprintf(out + len, outlen - (size_t) len, "target=0.%.*s ", n, digits);
	}
	len += snprintf(out + len, outlen - (size_t) len, "elem=");
	return (size_t) len;
}

size_t
bf_text_length(const bf_view *view)
{
	char header[200];
	size_t len = header_text(view, header, sizeof(header));

	for (size_t i = 0; i < view->elemlen; i++)
		len += elem_char_plain((unsigned char) view->elem[i]) ? 1 : 3;
	return len + bf_text_table_write(view, NULL) + strlen(data_name(view->p.layout)) +
	       b64_length(view->nbytes);
}

void
bf_text_write(const bf_view *view, char *out)
{
	char *p = out;
	const uint8_t *b = view->data;
	size_t i;

	p += header_text(view, p, 200);
	for (i = 0; i < view->elemlen; i++)
	{
		unsigned char c = (unsigned char) view->elem[i];

		if (elem_char_plain(c))
			*p++ = (char) c;
		else
		{
			*p++ = '%';
			*p++ = hex_digits[c >> 4];
			*p++ = hex_digits[c & 15];
		}
	}
	p += bf_text_table_write(view, p);
	memcpy(p, data_name(view->p.layout), strlen(data_name(view->p.layout)));
	p += strlen(data_name(view->p.layout));
	for (i = 0; i + 3 <= view->nbytes; i += 3)
	{
		uint32_t v = ((uint32_t) b[i] << 16) | ((uint32_t) b[i + 1] << 8) | b[i + 2];

		maybe_tick(i / 3);
		*p++ = b64_alphabet[(v >> 18) & 63];
		*p++ = b64_alphabet[(v >> 12) & 63];
		*p++ = b64_alphabet[(v >> 6) & 63];
		*p++ = b64_alphabet[v & 63];
	}
	if (i < view->nbytes)
	{
		bool two = i + 1 < view->nbytes;
		uint32_t v = ((uint32_t) b[i] << 16) | (two ? (uint32_t) b[i + 1] << 8 : 0);

		*p++ = b64_alphabet[(v >> 18) & 63];
		*p++ = b64_alphabet[(v >> 12) & 63];
		*p++ = two ? b64_alphabet[(v >> 6) & 63] : '=';
		*p++ = '=';
	}
	*p = '\0';
}

/* ---- input ---- */

typedef bf_text_cursor cursor;

#define take_literal bf_text_take_literal

/*
 * Read "<name>=<decimal>" followed by a space.  Canonical decimal only: no
 * sign, no leading zero unless the number is 0, at most UINT64_MAX.
 */
static bool
take_number(cursor *c, const char *name, uint64_t *value, bf_error *err)
{
	const char *start;
	uint64_t v = 0;

	if (!take_literal(c, name) || !take_literal(c, "="))
		return bf_fail(err, BF_ERR_FORMAT, "expected \"%s=\"", name);
	start = c->p;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
	{
		unsigned d = (unsigned) (*c->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return bf_fail(err, BF_ERR_PARAM, "value of %s is out of range", name);
		v = v * 10 + d;
		c->p++;
	}
	if (c->p == start)
		return bf_fail(err, BF_ERR_FORMAT, "%s must be an unsigned decimal number", name);
	if (*start == '0' && c->p - start > 1)
		return bf_fail(err, BF_ERR_FORMAT, "%s has leading zeros", name);
	if (!take_literal(c, " "))
		return bf_fail(err, BF_ERR_FORMAT, "expected a single space after %s", name);
	*value = v;
	return true;
}

/*
 * Read "target=0.<digits> ": 1 to 9 digits, the last not 0 (so that every
 * rate has one form), as parts per billion.
 */
static bool
take_target(cursor *c, uint64_t *ppb, bf_error *err)
{
	uint64_t v = 0;
	int n = 0;

	if (!take_literal(c, "target=0."))
		return bf_fail(err, BF_ERR_FORMAT, "expected \"target=0.\" and the rate's digits");
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
	{
		if (++n > 9)
			return bf_fail(err, BF_ERR_FORMAT,
			               "target has more than 9 digits after the point (parts per billion)");
		v = v * 10 + (uint64_t) (*c->p - '0');
		c->p++;
	}
	if (n == 0 || c->p[-1] == '0')
		return bf_fail(err, BF_ERR_FORMAT,
		               "target must be a decimal fraction without trailing zeros, as 0.01");
	for (; n < 9; n++)
		v *= 10;
	if (!take_literal(c, " "))
		return bf_fail(err, BF_ERR_FORMAT, "expected a single space after target");
	*ppb = v;
	return true;
}

/* Decode the percent-encoded element key up to the next space. */
static bool
take_elem(cursor *c, char *elem, size_t *elemlen, bf_error *err)
{
	size_t n = 0;

	if (!take_literal(c, "elem="))
		return bf_fail(err, BF_ERR_FORMAT, "expected \"elem=\"");
	while (c->p < c->end && *c->p != ' ')
	{
		unsigned char ch = (unsigned char) *c->p;

		if (n >= BF_MAX_ELEM_LEN)
			return bf_fail(err, BF_ERR_FORMAT, "element key is longer than %d bytes",
			               BF_MAX_ELEM_LEN);
		if (ch == '%')
		{
			int hi, lo;

			if (c->end - c->p < 3 || (hi = hex_value((unsigned char) c->p[1])) < 0 ||
			    (lo = hex_value((unsigned char) c->p[2])) < 0)
				return bf_fail(err, BF_ERR_FORMAT,
				               "bad percent escape in element key (use %%XX, upper-case hex)");
			ch = (unsigned char) (hi * 16 + lo);
			if (elem_char_plain(ch) || ch < 0x20 || ch == 0x7F)
				return bf_fail(
				    err, BF_ERR_FORMAT,
				    "element key escapes a byte that must not be escaped, or a control character");
			c->p += 3;
		}
		else if (elem_char_plain(ch))
			c->p++;
		else
			return bf_fail(err, BF_ERR_FORMAT, "element key holds an unescaped '%c'", ch);
		elem[n++] = (char) ch;
	}
	if (!take_literal(c, " "))
		return bf_fail(err, BF_ERR_FORMAT, "expected a space after the element key");
	*elemlen = n;
	return true;
}

/* Check (and, if out is not NULL, decode) "name=" and nbytes of canonical base64. */
static bool
take_data(cursor *c, const char *name, size_t nbytes, uint8_t *out, bf_error *err)
{
	size_t need = b64_length(nbytes);
	size_t full = nbytes / 3;
	size_t rest = nbytes % 3;
	const unsigned char *s;
	const char *label = name + 1; /* "bits=", "counters=" or "hashes=" */
	int ll = (int) strlen(label) - 1;

	if (!take_literal(c, name + 1))
		return bf_fail(err, BF_ERR_FORMAT, "expected \"%s\"", name + 1);
	if ((size_t) (c->end - c->p) != need)
		return bf_fail(err, BF_ERR_FORMAT, "%.*s has %zu base64 characters, m requires exactly %zu",
		               ll, label, (size_t) (c->end - c->p), need);
	s = (const unsigned char *) c->p;
	for (size_t q = 0; q < full; q++, s += 4)
	{
		int a = b64_value(s[0]), b = b64_value(s[1]), d = b64_value(s[2]), e = b64_value(s[3]);

		maybe_tick(q);
		if ((a | b | d | e) < 0)
			return bf_fail(err, BF_ERR_FORMAT, "%.*s holds a character that is not base64", ll,
			               label);
		if (out)
		{
			uint32_t v =
			    ((uint32_t) a << 18) | ((uint32_t) b << 12) | ((uint32_t) d << 6) | (uint32_t) e;

			*out++ = (uint8_t) (v >> 16);
			*out++ = (uint8_t) (v >> 8);
			*out++ = (uint8_t) v;
		}
	}
	if (rest > 0)
	{
		int a = b64_value(s[0]), b = b64_value(s[1]);
		int d = rest == 2 ? b64_value(s[2]) : 0;
		uint32_t v;

		if (a < 0 || b < 0 || (rest == 2 && s[2] != '=' && d < 0) ||
		    (s[3] != '=' && b64_value(s[3]) < 0))
			return bf_fail(err, BF_ERR_FORMAT, "%.*s holds a character that is not base64", ll,
			               label);
		if ((rest == 1 && s[2] != '=') || d < 0 || s[3] != '=')
			return bf_fail(err, BF_ERR_FORMAT,
			               "%.*s has wrong base64 padding for %zu bytes of data", ll, label,
			               nbytes);
		v = ((uint32_t) a << 18) | ((uint32_t) b << 12) | ((uint32_t) d << 6);
		if ((rest == 1 && (v & 0xFFFF) != 0) || (rest == 2 && (v & 0xFF) != 0))
			return bf_fail(err, BF_ERR_FORMAT, "%.*s has non-zero base64 padding bits", ll, label);
		if (out)
		{
			*out++ = (uint8_t) (v >> 16);
			if (rest == 2)
				*out++ = (uint8_t) (v >> 8);
		}
	}
	c->p = c->end;
	return true;
}

bool
bf_text_parse(const char *text, size_t len, uint8_t *buf, size_t *payload_len, bf_error *err)
{
	cursor c = {text, text + len};
	bf_params p;
	uint8_t flags = 0;
	uint64_t ncells = 0, nhashes = 0, scheme = 0, seed = 0, nadded = 0, bound = 0, est = 0;
	uint64_t target = 0;
	char elem[BF_MAX_ELEM_LEN];
	size_t elemlen = 0;
	uint64_t layer_cells[BF_MAX_LAYERS];
	uint16_t layer_hashes[BF_MAX_LAYERS];
	cursor window;
	bf_view view;

	if (!take_literal(&c, "v"))
		return bf_fail(err, BF_ERR_FORMAT, "a bloom value starts with \"v1 \"");
	if (!take_literal(&c, "1 "))
		return bf_fail(err, BF_ERR_VERSION, "unknown format version (this build reads \"v1\")");
	if (take_literal(&c, "classic "))
		p.layout = BF_LAYOUT_CLASSIC;
	else if (take_literal(&c, "counting4 "))
		p.layout = BF_LAYOUT_COUNTING4;
	else if (take_literal(&c, "blocked512 "))
		p.layout = BF_LAYOUT_BLOCKED512;
	else if (take_literal(&c, "explicit "))
		p.layout = BF_LAYOUT_EXPLICIT;
	else if (take_literal(&c, "layered "))
		p.layout = BF_LAYOUT_LAYERED;
	else if (take_literal(&c, "spark "))
		p.layout = BF_LAYOUT_SPARK;
	else if (take_literal(&c, "guava "))
		p.layout = BF_LAYOUT_GUAVA;
	else if (take_literal(&c, "parquet "))
		p.layout = BF_LAYOUT_PARQUET;
	else if (take_literal(&c, "window "))
		p.layout = BF_LAYOUT_WINDOW;
	else
		return bf_fail(err, BF_ERR_VERSION,
		               "unknown layout (this build reads \"classic\", \"counting4\", "
		               "\"blocked512\", \"explicit\", \"layered\", \"spark\", \"guava\", "
		               "\"parquet\" and \"window\")");
	if (!take_number(&c, "m", &ncells, err) || !take_number(&c, "k", &nhashes, err) ||
	    !take_number(&c, "scheme", &scheme, err) || !take_number(&c, "seed", &seed, err))
		return false;
	if (take_literal(&c, "n=unknown "))
		flags = BF_FLAG_N_UNKNOWN;
	else if (!take_number(&c, "n", &nadded, err))
		return false;
	if (c.end - c.p >= 6 && memcmp(c.p, "bound=", 6) == 0)
	{
		if (!take_number(&c, "bound", &bound, err) || !take_number(&c, "est", &est, err))
			return false;
		flags |= BF_FLAG_DERIVED;
	}
	if (c.end - c.p >= 7 && memcmp(c.p, "target=", 7) == 0)
	{
		if (!take_target(&c, &target, err))
			return false;
		flags |= BF_FLAG_TARGET;
	}
	if (!take_elem(&c, elem, &elemlen, err))
		return false;
	if (p.layout == BF_LAYOUT_LAYERED &&
	    !bf_text_layers_take(&c, nhashes, ncells, layer_cells, layer_hashes, err))
		return false;
	window = c; /* (read again into the value, in the second pass) */
	if (p.layout == BF_LAYOUT_WINDOW && !bf_text_window_take(&c, nhashes, nadded, NULL, err))
		return false;

	if (nadded > INT64_MAX)
		return bf_fail(err, BF_ERR_PARAM,
		               "number of values added n = %llu is out of range (0 to %lld)",
		               (unsigned long long) nadded, (long long) INT64_MAX);
	/* (bf_params_check() knows each layout's range; a window's k was checked with its table) */
	if (p.layout != BF_LAYOUT_WINDOW &&
	    nhashes > (bf_layout_is_maker(p.layout) ? BF_MAKER_MAX_K_SPARK : BF_MAX_HASHES))
		return bf_fail(err, BF_ERR_PARAM, "number of hashes k = %llu is out of range (1 to %d)",
		               (unsigned long long) nhashes,
		               bf_layout_is_maker(p.layout) ? BF_MAKER_MAX_K_SPARK : BF_MAX_HASHES);
	p.scheme = scheme > 255 ? 0 : (uint8_t) scheme;
	p.nhashes = (uint16_t) nhashes;
	p.seed = seed;
	p.ncells = ncells;
	if (!bf_params_check(&p, elemlen, err))
		return false;
	if (!bf_flags_check(p.layout, flags, err))
		return false;
	if (bf_layout_is_maker(p.layout) && bf_maker_key_find(p.layout, elem, elemlen) == NULL)
		return bf_fail(err, BF_ERR_FORMAT, "a %s filter's element key is not one of its encodings",
		               bf_layout_name(p.layout));
	if (bound > ncells)
		return bf_fail(err, BF_ERR_FORMAT, "bound %llu exceeds m = %llu",
		               (unsigned long long) bound, (unsigned long long) ncells);
	if (est > INT64_MAX)
		return bf_fail(err, BF_ERR_PARAM, "estimated distinct count is out of range");
	if (!bf_payload_size(&p, flags, elemlen, payload_len, err))
		return false;

	if (buf == NULL)
		return take_data(&c, data_name(p.layout), bf_data_bytes(p.layout, ncells), NULL, err);

	bf_init(buf, &p, flags, elem, elemlen, nadded, &view);
	if (flags & BF_FLAG_DERIVED)
		bf_view_set_derived(&view, bound, est);
	if (flags & BF_FLAG_TARGET)
		bf_view_set_target(&view, (uint32_t) target);
	if (p.layout == BF_LAYOUT_LAYERED)
		for (unsigned i = 0; i < p.nhashes; i++)
			bf_view_set_layer(&view, i, layer_cells[i], layer_hashes[i]);
	if (p.layout == BF_LAYOUT_WINDOW && !bf_text_window_take(&window, nhashes, nadded, &view, err))
		return false;
	return take_data(&c, data_name(p.layout), view.nbytes, view.data, err);
}
