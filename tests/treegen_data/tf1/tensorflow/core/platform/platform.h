/* Stand-in written for tfbuild's test trees: NOT TensorFlow's platform.h.

The platform macros TensorFlow derives from the compiler's: PLATFORM_POSIX_ANDROID
and IS_MOBILE_PLATFORM for Android (the NDK's compilers define __ANDROID__),
PLATFORM_POSIX elsewhere.
==============================================================================*/

#ifndef TENSORFLOW_PLATFORM_PLATFORM_DEFINE_H_
#define TENSORFLOW_PLATFORM_PLATFORM_DEFINE_H_

#if !defined(PLATFORM_POSIX) && !defined(PLATFORM_POSIX_ANDROID)
#if defined(__ANDROID__)
#define PLATFORM_POSIX_ANDROID
#define IS_MOBILE_PLATFORM
#else
#define PLATFORM_POSIX
#endif
#endif

#endif  // TENSORFLOW_PLATFORM_PLATFORM_DEFINE_H_
