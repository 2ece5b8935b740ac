# Toolchain image for TensorFlow's Bazel builds: g++ plus one pinned Bazel release.
#
# Bazel is the binary of the npm package @bazel/bazel-linux_x64 (which ships real Bazel releases
# up to 2.1.0). tfbuild puts it into the build context as bazel-<version>-linux-x86_64, taken
# from the host's npm install (~/.cache/tfbuild/bazel, see scripts/install-bazel.sh), because
# the npm registry is often reachable from the build host but not from inside a container.
# These binaries embed their own JDK (embedded_tools/jdk), so the image carries no Java.
# Bazel 0.26.1 builds C++ targets offline; later releases fetch rules_cc from the network.
#
# BAZEL_SHA256 pins the binary: the build fails if the copied file differs. The digest of what
# was installed is recorded in /etc/tfbuild/packages.txt either way.
# BASE_IMAGE is the Debian image from `tfbuild toolchain base`.
ARG BASE_IMAGE=tfbuild-base:bookworm
FROM ${BASE_IMAGE}

ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      g++ make binutils git python3 python-is-python3 ca-certificates unzip zip patch file \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb

ARG BAZEL_VERSION=0.26.1
ARG BAZEL_SHA256=
COPY bazel-${BAZEL_VERSION}-linux-x86_64 /usr/local/bin/bazel
RUN set -eu; \
    chmod 0755 /usr/local/bin/bazel; \
    actual="$(sha256sum /usr/local/bin/bazel | cut -d' ' -f1)"; \
    if [ -n "${BAZEL_SHA256}" ] && [ "${actual}" != "${BAZEL_SHA256}" ]; then \
      echo "bazel ${BAZEL_VERSION}: sha256 ${actual}, expected ${BAZEL_SHA256}" >&2; exit 1; \
    fi; \
    mkdir -p /etc/tfbuild /cache/bazel; \
    chmod 1777 /cache /cache/bazel; \
    { dpkg-query -W -f='${Package}=${Version}\n' | LC_ALL=C sort; \
      echo "bazel=${BAZEL_VERSION} sha256=${actual}"; } > /etc/tfbuild/packages.txt
# /cache/bazel is image content so that a named volume mounted there for Bazel's output base
# takes its mode, and a build running as the calling user (--user uid:gid) can write to it.
