# gpuwhy's container image, the one deploy/kubernetes/daemonset.yaml runs. Its name and tag
# live in deploy/IMAGE (the tag is the project version; ctest install_layout checks both):
#
#   docker build -t "$(cat deploy/IMAGE)" .
#
# Stage 1 builds the Release binary and its Debian package (cpack -G DEB); stage 2 installs
# only that package on a slim Debian, so the runtime image holds the binary, its shared
# libraries, the man page, completions and docs, and nothing of the build.
ARG DEBIAN_RELEASE=bookworm

FROM debian:${DEBIAN_RELEASE} AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      build-essential cmake ninja-build pkg-config dpkg-dev file \
      libsimdjson-dev libfmt-dev libcli11-dev zlib1g-dev libsqlite3-dev \
      libcpp-httplib-dev libssl-dev libbrotli-dev python3 \
 && rm -rf /var/lib/apt/lists/*
COPY . /src
RUN cmake -S /src -B /build -G Ninja -DCMAKE_BUILD_TYPE=Release \
      -DGPUWHY_BUILD_TESTS=OFF -DGPUWHY_BUILD_BENCH=OFF \
 && cmake --build /build \
 && cd /build && cpack -G DEB

FROM debian:${DEBIAN_RELEASE}-slim
COPY --from=build /build/gpuwhy_*.deb /tmp/
# python3 runs the at-scale recipes' driver (python -m gpuwhy.epilogue, docs/at-scale.md),
# which the package installs in /usr/share/gpuwhy/python.
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends /tmp/gpuwhy_*.deb \
      python3 \
 && rm -rf /var/lib/apt/lists/* /tmp/gpuwhy_*.deb
# The DaemonSet runs as nobody (runAsUser 65534) with its own arguments (serve --listen ...).
USER 65534:65534
EXPOSE 9612
ENTRYPOINT ["gpuwhy"]
CMD ["serve", "--listen=0.0.0.0:9612"]
