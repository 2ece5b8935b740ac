"""What an Android build ships besides the static libraries: the JNI library and its Java class
(:mod:`.jni_library`), and the AAR that packs them for Gradle (:mod:`.aar`)."""
