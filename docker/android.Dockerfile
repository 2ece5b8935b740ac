# PLANNED ONLY: this image has never been built by tfbuild's tests. The Android SDK and NDK are
# downloaded from dl.google.com, which the build machines tfbuild is developed on cannot reach;
# the Android targets are planned (and their plans tested) without it. The URLs and versions
# below are the ones TensorFlow 1.x's Android docs name, passed as ARGs so a machine that can
# reach them (or a mirror) builds this unchanged, with the digests pinned via *_SHA256.
#
# Toolchain image for TensorFlow's Android Bazel builds (--config=android_arm / android_arm64):
# the bazel toolchain image (pass its tag as BASE_IMAGE) plus an Android NDK and SDK at the
# paths the rendered WORKSPACE block's android_ndk_repository / android_sdk_repository use.
ARG BASE_IMAGE=tfbuild-toolchain:bazel
FROM ${BASE_IMAGE}

ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl ca-certificates unzip openjdk-17-jdk-headless \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb

# NDK: TF 1.x supports r14b..r18b for its Android builds.
ARG ANDROID_NDK_VERSION=r18b
ARG ANDROID_NDK_URL=https://dl.google.com/android/repository/android-ndk-${ANDROID_NDK_VERSION}-linux-x86_64.zip
ARG ANDROID_NDK_SHA256=
ARG ANDROID_NDK_HOME=/opt/android-ndk
RUN set -eu; \
    curl -fsSL -o /tmp/ndk.zip "${ANDROID_NDK_URL}"; \
    if [ -n "${ANDROID_NDK_SHA256}" ]; then echo "${ANDROID_NDK_SHA256}  /tmp/ndk.zip" | sha256sum -c -; fi; \
    unzip -q /tmp/ndk.zip -d /opt; \
    mv "/opt/android-ndk-${ANDROID_NDK_VERSION}" "${ANDROID_NDK_HOME}"; \
    rm /tmp/ndk.zip

# SDK: command-line tools, then the platform and build tools the WORKSPACE block names.
ARG ANDROID_CMDLINE_TOOLS_URL=https://dl.google.com/android/repository/commandlinetools-linux-9477386_latest.zip
ARG ANDROID_CMDLINE_TOOLS_SHA256=
ARG ANDROID_SDK_HOME=/opt/android-sdk
ARG ANDROID_API_LEVEL=23
ARG ANDROID_BUILD_TOOLS_VERSION=23.0.2
RUN set -eu; \
    curl -fsSL -o /tmp/tools.zip "${ANDROID_CMDLINE_TOOLS_URL}"; \
    if [ -n "${ANDROID_CMDLINE_TOOLS_SHA256}" ]; then echo "${ANDROID_CMDLINE_TOOLS_SHA256}  /tmp/tools.zip" | sha256sum -c -; fi; \
    mkdir -p "${ANDROID_SDK_HOME}/cmdline-tools"; \
    unzip -q /tmp/tools.zip -d "${ANDROID_SDK_HOME}/cmdline-tools"; \
    mv "${ANDROID_SDK_HOME}/cmdline-tools/cmdline-tools" "${ANDROID_SDK_HOME}/cmdline-tools/latest"; \
    rm /tmp/tools.zip; \
    yes | "${ANDROID_SDK_HOME}/cmdline-tools/latest/bin/sdkmanager" --sdk_root="${ANDROID_SDK_HOME}" --licenses > /dev/null; \
    "${ANDROID_SDK_HOME}/cmdline-tools/latest/bin/sdkmanager" --sdk_root="${ANDROID_SDK_HOME}" \
      "platforms;android-${ANDROID_API_LEVEL}" "build-tools;${ANDROID_BUILD_TOOLS_VERSION}" "platform-tools"

ENV ANDROID_NDK_HOME=${ANDROID_NDK_HOME} \
    ANDROID_SDK_HOME=${ANDROID_SDK_HOME}

RUN mkdir -p /etc/tfbuild \
 && { dpkg-query -W -f='${Package}=${Version}\n' | LC_ALL=C sort; \
      echo "android-ndk=${ANDROID_NDK_VERSION}"; \
      echo "android-sdk=api-${ANDROID_API_LEVEL} build-tools-${ANDROID_BUILD_TOOLS_VERSION}"; \
      grep -h '^bazel=' /etc/tfbuild/packages.txt 2>/dev/null || true; } > /tmp/packages.txt \
 && mv /tmp/packages.txt /etc/tfbuild/packages.txt
