// The server's value that the format tests and the fuzzer start from.
const hex = (h) => Uint8Array.from(h.match(/../g), (x) => parseInt(x, 16));
// 1 added to a classic filter of m = 97, k = 7 (the server's bloom_agg(1::int8, 10, 0.01))
export const ONE = hex(
  "424c4f4d010101000700160000000000000000006100000000000000010000000000000070675f" +
  "636174616c6f672e696e74656765725f6f707308008000000400400000020000");
export const ONE_TEXT =
  "v1 classic m=97 k=7 scheme=1 seed=0 n=1 elem=pg_catalog.integer_ops bits=CACAAAAEAEAAAAIAAA==";
