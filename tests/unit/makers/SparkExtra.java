// Vectors of Spark's sketch BloomFilter that ../shared/interop/Spark.java
// does not write: a version 2 filter under another seed, and the sizing of
// BloomFilter.create(n, fpp) (optimalNumOfBits, the words, k).
//   sizing                      N FPP BITS WORDS K, one line per case
//   seeded SEED KEYSFILE OUT    create(V2, 200, optimalNumOfBits(200, 0.05), SEED), putLong each key
import org.apache.spark.util.sketch.BloomFilter;
import java.io.*;
import java.nio.file.*;

public class SparkExtra {
  public static void main(String[] a) throws Exception {
    if (a[0].equals("sizing")) {
      long[] ns = {1, 2, 10, 100, 1000, 12345, 1000000, 1000000000L};
      double[] fpps = {0.5, 0.3, 0.1, 0.05, 0.03, 0.01, 0.001, 1e-6, 1e-9};
      for (long n : ns)
        for (double p : fpps) {
          long bits = BloomFilter.optimalNumOfBits(n, p);
          if (bits <= 0 || (bits + 63) / 64 > Integer.MAX_VALUE) { System.out.println(n + " " + p + " refused"); continue; }
          BloomFilter bf = BloomFilter.create(BloomFilter.Version.V2, n, bits, 0);
          java.io.ByteArrayOutputStream bo = new java.io.ByteArrayOutputStream();
          if (bits < 1L << 24) { bf.writeTo(bo); byte[] b = bo.toByteArray();
            int k = java.nio.ByteBuffer.wrap(b, 4, 4).getInt();
            System.out.println(n + " " + p + " " + bits + " " + bf.bitSize() / 64 + " " + k); }
        }
    } else if (a[0].equals("seeded")) {
      int seed = Integer.parseInt(a[1]);
      BloomFilter bf = BloomFilter.create(BloomFilter.Version.V2, 200, BloomFilter.optimalNumOfBits(200, 0.05), seed);
      for (String k : Files.readAllLines(Path.of(a[2]))) bf.putLong(Long.parseLong(k.trim()));
      try (OutputStream o = new FileOutputStream(a[3])) { bf.writeTo(o); }
      for (String k : Files.readAllLines(Path.of(a[4]))) System.out.println(bf.mightContainLong(Long.parseLong(k.trim())) ? "1" : "0");
    }
  }
}
