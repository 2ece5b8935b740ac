// expect-error: .undeclared_scale. was not declared
// A helper that uses a name it never declared (plain C++: fails fast without TensorFlow headers).

float ScaleByUndeclared(float x) { return x * undeclared_scale; }
