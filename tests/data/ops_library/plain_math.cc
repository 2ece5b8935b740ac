// A small source without TensorFlow headers, for building real archives and shared objects fast.

extern "C" int tfbuild_plain_math_twice(int x) { return 2 * x; }
