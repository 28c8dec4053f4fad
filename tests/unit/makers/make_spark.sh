#!/usr/bin/env bash
# tests/unit/makers/make_spark.sh: writes this folder's spark-*.txt, the
# vectors that tests/unit/test_makers.c checks core/bf_spark.c against, with
# Spark's own classes (../shared/vendor/spark-sketch, driven by
# ../shared/interop/Spark.java and SparkExtra.java here).  Not run by the
# suite: run it by hand, with a JDK (openjdk-17-jdk-headless), when the
# vectors are to change, and commit what it writes.
#   spark-vV-TYPE.txt   "vV TYPE 200 0.05 FILTERHEX", then "KEY ANSWER" per
#                       key: the first 200 were added (putLong, putString),
#                       ANSWER is mightContain's (1 or 0); a string KEY is
#                       "x" and its UTF-8 bytes in hex
#   spark-v2seed-long.txt  the same, version 2 under seed -123456789
#   spark-sizing.txt    "N FPP BITS WORDS K": optimalNumOfBits(N, FPP), the
#                       words and k of create(V2, N, BITS, 0)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=$(cd "$here/../../../../shared" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/b" "$work/k"
mapfile -t sources < <(find "$shared/vendor/spark-sketch/src" -name '*.java')
javac -nowarn -XDignore.symbol.file -d "$work/b" "${sources[@]}" "$shared/interop/Spark.java" "$here/SparkExtra.java"
# keys: int64 edges and values of every width; strings of 0 to 20 characters,
# ASCII and not (a tail byte >= 0x80 is sign-extended by Spark's hash)
python3 - "$work/k" <<'EOF'
import random, sys
d = sys.argv[1]
r = random.Random(51)
longs = [0, 1, -1, -2**63, 2**63 - 1, 2**31, -2**31 - 1, 2**32, -2**32, 255, -256]
while len(longs) < 600:
    b = r.choice([8, 16, 31, 32, 33, 48, 63, 64])
    longs.append(r.randrange(-2**(b - 1), 2**(b - 1)))
strs = ["", "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "é", "éé", "日本",
        "日本語", "ÿÿÿ", "\u00ff", "€", "𝄞", "a€", "ab€", "abc\u00e9"]
alpha = "abcXYZ019 -_é€日𝄞ÿ\u0080"
while len(strs) < 600:
    strs.append("".join(r.choice(alpha) for _ in range(r.randrange(0, 21))))
for name, values in (("long", longs), ("string", strs)):
    seen, unique = set(), []
    for v in values:
        if v not in seen:
            seen.add(v)
            unique.append(v)
    with open(f"{d}/{name}.txt", "w", encoding="utf-8") as f:
        f.writelines(f"{v}\n" for v in unique)
    with open(f"{d}/{name}_in.txt", "w", encoding="utf-8") as f:
        f.writelines(f"{v}\n" for v in unique[:200])
EOF
# vectors FILTER ANSWERS TYPE HEADER OUT
vectors() {
	python3 - "$@" <<'EOF'
import sys
filt, ans, keys, kind, header, out = sys.argv[1:]
keys = open(keys, encoding="utf-8").read().split("\n")[:-1]
ans = open(ans).read().split("\n")[:-1]
assert len(keys) == len(ans)
with open(out, "w") as f:
    f.write(f"{header} {open(filt, 'rb').read().hex()}\n")
    for k, a in zip(keys, ans):
        f.write(f"{k if kind == 'long' else 'x' + k.encode('utf-8').hex()} {a}\n")
EOF
}
for v in v1 v2; do
	for t in long string; do
		java -cp "$work/b" Spark write "$v" 200 0.05 "$t" "$work/k/${t}_in.txt" "$work/$v-$t.bin"
		java -cp "$work/b" Spark probe "$t" "$work/$v-$t.bin" "$work/k/$t.txt" >"$work/$v-$t.ans"
		vectors "$work/$v-$t.bin" "$work/$v-$t.ans" "$work/k/$t.txt" "$t" "$v $t 200 0.05" "$here/spark-$v-$t.txt"
	done
done
java -cp "$work/b" SparkExtra seeded -123456789 "$work/k/long_in.txt" "$work/seeded.bin" "$work/k/long.txt" >"$work/seeded.ans"
vectors "$work/seeded.bin" "$work/seeded.ans" "$work/k/long.txt" long "v2 long 200 0.05" "$here/spark-v2seed-long.txt"
{
	echo "# n fpp bits words k, from BloomFilter.optimalNumOfBits and create(V2, n, bits, 0)"
	java -cp "$work/b" SparkExtra sizing | grep -v refused
} >"$here/spark-sizing.txt"
echo "make_spark: wrote the vectors in $here"
