// Vectors of Guava's BloomFilter that ../shared/interop/Guava.java does not
// write: the sizing of BloomFilter.create(funnel, n, fpp), as the words and
// k of the bytes it writes.
//   sizing    N FPP WORDS K, one line per case (refused: N FPP refused)
import com.google.common.hash.BloomFilter;
import com.google.common.hash.Funnels;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;

public class GuavaExtra {
  public static void main(String[] a) throws Exception {
    long[] ns = {0, 1, 2, 10, 100, 1000, 12345, 1000000};
    double[] fpps = {0.9, 0.5, 0.3, 0.1, 0.05, 0.03, 0.01, 0.001, 1e-6, 1e-9, 1e-30, 1e-80};
    for (long n : ns)
      for (double p : fpps) {
        try {
          BloomFilter<Long> bf = BloomFilter.create(Funnels.longFunnel(), n, p);
          ByteArrayOutputStream bo = new ByteArrayOutputStream();
          bf.writeTo(bo);
          byte[] b = bo.toByteArray();
          System.out.println(n + " " + p + " " + ByteBuffer.wrap(b, 2, 4).getInt() + " " + (b[1] & 0xff));
        } catch (IllegalArgumentException e) {
          System.out.println(n + " " + p + " refused");
        }
      }
  }
}
