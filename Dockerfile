# replhost in a container. Build: docker build -t replhost .
#
# What the container needs from the host kernel (see docs/operating.md):
#   - Landlock ABI 6 or newer (Linux 6.12+), enabled in the kernel's LSM list
#     (lsm=...,landlock): workers confine themselves with it, and the host
#     refuses to start in process isolation without it. The engine's seccomp
#     profile must allow landlock_create_ruleset, landlock_add_rule and
#     landlock_restrict_self (check yours; add them to a custom profile if
#     the host says Landlock is unavailable).
#   - A writable, delegated cgroup for the per-worker memory and pids caps:
#     cgroup v2 with --cgroupns=private and a writable /sys/fs/cgroup (Docker
#     mounts it read-only for a container without CAP_SYS_ADMIN), or cgroup
#     v1 with the memory, pids and cpu hierarchies mounted writable. Without one, the host falls back to watching
#     each worker's RSS and ending it at the cap.
#   - CAP_SETUID/CAP_SETGID for --worker-user, CAP_KILL, CAP_CHOWN.
# Run:
#   docker run -d --name replhost -p 2222:2222 -v replhost:/var/lib/replhost \
#     --cgroupns=private --cap-add SYS_ADMIN replhost
#   docker exec replhost replhost sessions --all

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# -trimpath for reproducible paths. replhost version prints the commit the
# toolchain stamps from .git in the context (a clone, not a worktree), or
# the one given: docker build --build-arg COMMIT=$(git rev-parse HEAD) .
ARG COMMIT=
# replhost-worker is each session's worker, without the host's packages
# (docs/memory.md); replhost runs it when it sits beside it. One build, so
# that both have the same build settings (the host checks them).
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-X main.commit=${COMMIT}" -o /out/ ./cmd/replhost ./cmd/replhost-worker

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --no-create-home --shell /usr/sbin/nologin replhost-worker \
 && install -d -m 0700 /var/lib/replhost /etc/replhost
COPY --from=build /out/replhost /out/replhost-worker /usr/local/bin/
VOLUME /var/lib/replhost
EXPOSE 2222 9090
ENV REPLHOST_ROOT=/var/lib/replhost \
    REPLHOST_LISTEN=0.0.0.0:2222
# The host runs as root in the container (it makes cgroups and drops each
# worker to an unprivileged uid); the workers are the untrusted part.
HEALTHCHECK --interval=30s --timeout=3s CMD ["/bin/sh", "-c", "test -S /var/lib/replhost/admin.sock"]
ENTRYPOINT ["/usr/local/bin/replhost"]
CMD ["serve"]
