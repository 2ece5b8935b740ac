/* Stand-in written for tfbuild's test trees: NOT TensorFlow's package-info.java.

TensorFlow's Java API keeps its package documentation in a package-info.java, as r1.9 does: a
Java source without a class, which the AAR's classes.jar compiles like the others.
==============================================================================*/

/** The stand-in of TensorFlow's Java API: Graph, Session, Tensor and the types they use. */
package org.tensorflow;
