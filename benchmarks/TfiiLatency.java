import java.io.FileInputStream;
import java.io.InputStream;
import java.util.Random;
import org.tensorflow.contrib.android.TensorFlowInferenceInterface;

/**
 * One model through TensorFlow's Android interface as an app drives it each frame: feed, run,
 * fetch. Prints the average over the timed runs in microseconds, in the C++ benchmark's words,
 * so benchmarks/jvm_latency.py reads both the same way.
 *
 * <p>Arguments: GRAPH INPUT SHAPE(comma-separated) OUTPUT WARMUP RUNS.
 */
public final class TfiiLatency {
  private TfiiLatency() {}

  public static void main(String[] args) throws Exception {
    String graph = args[0];
    String input = args[1];
    String[] dims = args[2].split(",");
    String output = args[3];
    int warmup = Integer.parseInt(args[4]);
    int runs = Integer.parseInt(args[5]);

    long[] shape = new long[dims.length];
    long count = 1;
    for (int i = 0; i < dims.length; i++) {
      shape[i] = Long.parseLong(dims[i].trim());
      count *= shape[i];
    }
    float[] values = new float[(int) count];
    Random random = new Random(1);
    for (int i = 0; i < values.length; i++) {
      values[i] = random.nextFloat();
    }
    // fetch() copies into the buffer given; one larger than any output of the models measured
    float[] result = new float[1 << 22];

    TensorFlowInferenceInterface tfii;
    try (InputStream model = new FileInputStream(graph)) {
      tfii = new TensorFlowInferenceInterface(model);
    }
    String[] outputs = {output};
    for (int i = 0; i < warmup; i++) {
      tfii.feed(input, values, shape);
      tfii.run(outputs);
      tfii.fetch(output, result);
    }
    long start = System.nanoTime();
    for (int i = 0; i < runs; i++) {
      tfii.feed(input, values, shape);
      tfii.run(outputs);
      tfii.fetch(output, result);
    }
    long average = (System.nanoTime() - start) / 1000 / runs;
    tfii.close();
    System.out.println("Average inference timings in us: Warmup: 0, no stats: " + average);
  }
}
