#!/usr/bin/env bash
# tests/unit/makers/make_vectors.sh: writes this folder's spark-*.txt and
# guava-*.txt, the vectors that tests/unit/test_makers.c checks
# core/bf_spark.c and core/bf_guava.c against, with the makers' own code:
# Spark's classes (../shared/vendor/spark-sketch, driven by
# ../shared/interop/Spark.java and SparkExtra.java here) and Guava 31.1
# (Debian's libguava-java, driven by ../shared/interop/Guava.java and
# GuavaExtra.java here).  Not run by the suite: run it by hand, with a JDK
# (openjdk-17-jdk-headless) and libguava-java, when the vectors are to
# change, and commit what it writes.
#   spark-vV-TYPE.txt   "vV TYPE 200 0.05 FILTERHEX", then "KEY ANSWER" per
#                       key: the first 200 were added (putLong, putString),
#                       ANSWER is mightContain's (1 or 0); a string KEY is
#                       "x" and its UTF-8 bytes in hex
#   spark-v2seed-long.txt  the same, version 2 under seed -123456789
#   spark-sizing.txt    "N FPP BITS WORDS K": optimalNumOfBits(N, FPP), the
#                       words and k of create(V2, N, BITS, 0)
#   guava-FUNNEL.txt    "guava FUNNEL 200 0.05 FILTERHEX", then "KEY ANSWER"
#                       (long, integer, utf8, chars: a text KEY is "x" and the
#                       funnel's bytes in hex, UTF-8 or UTF-16LE)
#   guava-sizing.txt    "N FPP WORDS K" of create(longFunnel, N, FPP), or
#                       "N FPP refused"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shared=$(cd "$here/../../../../shared" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/b" "$work/k"
guava=/usr/share/java/guava.jar
mapfile -t sources < <(find "$shared/vendor/spark-sketch/src" -name '*.java')
javac -nowarn -XDignore.symbol.file -d "$work/b" -cp "$guava" "${sources[@]}" "$shared/interop/Spark.java" \
	"$here/SparkExtra.java" "$shared/interop/Guava.java" "$here/GuavaExtra.java"
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
ints = [0, 1, -1, -2**31, 2**31 - 1, 255, -256, 65536]
while len(ints) < 600:
    ints.append(r.randrange(-2**31, 2**31))
for name, values in (("long", longs), ("string", strs), ("integer", ints)):
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
# vectors FILTER ANSWERS KEYS KIND HEADER OUT (KIND: long or integer, a
# decimal key; utf8 or chars, the key's bytes in hex)
vectors() {
	python3 - "$@" <<'EOF'
import sys
filt, ans, keys, kind, header, out = sys.argv[1:]
keys = open(keys, encoding="utf-8").read().split("\n")[:-1]
ans = open(ans).read().split("\n")[:-1]
assert len(keys) == len(ans)
code = {"utf8": "utf-8", "chars": "utf-16-le"}
with open(out, "w") as f:
    f.write(f"{header} {open(filt, 'rb').read().hex()}\n")
    for k, a in zip(keys, ans):
        f.write(f"{k if kind not in code else 'x' + k.encode(code[kind], 'surrogatepass').hex()} {a}\n")
EOF
}
for v in v1 v2; do
	for t in long string; do
		java -cp "$work/b" Spark write "$v" 200 0.05 "$t" "$work/k/${t}_in.txt" "$work/$v-$t.bin"
		java -cp "$work/b" Spark probe "$t" "$work/$v-$t.bin" "$work/k/$t.txt" >"$work/$v-$t.ans"
		kind=$t
		[ "$t" = string ] && kind=utf8
		vectors "$work/$v-$t.bin" "$work/$v-$t.ans" "$work/k/$t.txt" "$kind" "$v $t 200 0.05" "$here/spark-$v-$t.txt"
	done
done
java -cp "$work/b" SparkExtra seeded -123456789 "$work/k/long_in.txt" "$work/seeded.bin" "$work/k/long.txt" >"$work/seeded.ans"
vectors "$work/seeded.bin" "$work/seeded.ans" "$work/k/long.txt" long "v2 long 200 0.05" "$here/spark-v2seed-long.txt"
{
	echo "# n fpp bits words k, from BloomFilter.optimalNumOfBits and create(V2, n, bits, 0)"
	java -cp "$work/b" SparkExtra sizing | grep -v refused
} >"$here/spark-sizing.txt"
for funnel in long:long integer:integer utf8:string chars:string; do
	f=${funnel%%:*} keys=${funnel##*:}
	java -cp "$work/b:$guava" Guava write "$f" 200 0.05 "$work/k/${keys}_in.txt" "$work/guava-$f.bin"
	java -cp "$work/b:$guava" Guava probe "$f" "$work/guava-$f.bin" "$work/k/$keys.txt" >"$work/guava-$f.ans"
	vectors "$work/guava-$f.bin" "$work/guava-$f.ans" "$work/k/$keys.txt" "$f" "guava $f 200 0.05" "$here/guava-$f.txt"
done
{
	echo "# n fpp words k of create(longFunnel, n, fpp), or refused"
	java -cp "$work/b:$guava" GuavaExtra
} >"$here/guava-sizing.txt"
echo "make_vectors: wrote the vectors in $here"
