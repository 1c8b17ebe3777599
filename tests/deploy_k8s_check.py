#!/usr/bin/env python3
"""Structure of deploy/kubernetes: the DaemonSet, Service and ServiceMonitor fit together,
and so do the reduce (Indexed) Job and the merge Job of the at-scale recipe.

Checks what a reviewer would: host PID for process attribution, a non-root user, resource
limits, read-only driver libraries and NVML path, probes on /healthz, and that the Service
and ServiceMonitor select the DaemonSet's pods and name its port. For the Jobs: Indexed
completion with as many pods as GPUWHY_NODES and as the merge's --expect-nodes, one summaries
claim, traces read-only, the image of deploy/IMAGE, and arguments that the real
`python -m gpuwhy.epilogue` parser accepts (docs/at-scale.md). Exit 77 (skip) without PyYAML.
"""
import argparse
import os
import sys

try:
    import yaml
except ImportError:
    print("PyYAML (Debian python3-yaml) is absent: Kubernetes manifest check skipped")
    sys.exit(77)


def load(path):
    with open(path, encoding="utf-8") as f:
        return {doc["kind"]: doc for doc in yaml.safe_load_all(f) if doc}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--python", help="the folder holding the gpuwhy package")
    args = parser.parse_args()
    ds = load(f"{args.dir}/daemonset.yaml")["DaemonSet"]
    svc_docs = load(f"{args.dir}/service.yaml")
    svc = svc_docs["Service"]
    monitor = load(f"{args.dir}/servicemonitor.yaml")["ServiceMonitor"]
    errors = []

    def check(cond, what):
        if not cond:
            errors.append(what)

    pod = ds["spec"]["template"]
    spec = pod["spec"]
    labels = pod["metadata"]["labels"]
    check(ds["apiVersion"] == "apps/v1", "DaemonSet apiVersion apps/v1")
    check(all(labels.get(k) == v for k, v in ds["spec"]["selector"]["matchLabels"].items()),
          "DaemonSet selector matches its pod labels")
    check(spec.get("hostPID") is True, "hostPID: true (process attribution)")
    check(spec["securityContext"].get("runAsNonRoot") is True, "pod runs as non-root")
    (container,) = spec["containers"]
    check(container["args"][0] == "serve", "container runs `gpuwhy serve`")
    check(any(a.startswith("--listen=") for a in container["args"]),
          "explicit --listen (the default is loopback only)")
    limits = container.get("resources", {}).get("limits", {})
    check("cpu" in limits and "memory" in limits, "CPU and memory limits")
    sec = container.get("securityContext", {})
    check(sec.get("allowPrivilegeEscalation") is False, "no privilege escalation")
    check(sec.get("readOnlyRootFilesystem") is True, "read-only root filesystem")
    mounts = {m["name"]: m for m in container.get("volumeMounts", [])}
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for name, mount in mounts.items():
        check(name in volumes, f"volume {name} is defined")
        check(mount.get("readOnly") is True, f"volume {name} is mounted read-only")
    driver = [m for m in mounts.values() if "nvidia" in m["mountPath"] and "lib" in m["mountPath"]]
    check(len(driver) == 1, "the NVIDIA driver libraries are mounted")
    env = {e["name"]: e.get("value", "") for e in container.get("env", [])}
    nvml = env.get("GPUWHY_NVML_LIBRARY", "")
    check(bool(driver) and nvml.startswith(driver[0]["mountPath"] + "/"),
          "GPUWHY_NVML_LIBRARY points into the mounted driver directory")
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    check("metrics" in ports, "a port named metrics")
    for probe in ("readinessProbe", "livenessProbe"):
        get = container.get(probe, {}).get("httpGet", {})
        check(get.get("path") == "/healthz" and get.get("port") in ports,
              f"{probe} on /healthz of a declared port")
    check(all(labels.get(k) == v for k, v in svc["spec"]["selector"].items()),
          "Service selects the DaemonSet's pods")
    svc_ports = {p["name"]: p for p in svc["spec"]["ports"]}
    check("metrics" in svc_ports and svc_ports["metrics"]["targetPort"] in ports,
          "Service port targets the container port")
    check(svc["metadata"]["namespace"] == ds["metadata"]["namespace"] ==
          monitor["metadata"]["namespace"], "one namespace")
    check(all(svc["metadata"]["labels"].get(k) == v
              for k, v in monitor["spec"]["selector"]["matchLabels"].items()),
          "ServiceMonitor selects the Service")
    endpoints = monitor["spec"]["endpoints"]
    check(all(e["port"] in svc_ports and e.get("path") == "/metrics" for e in endpoints),
          "ServiceMonitor scrapes /metrics on the Service port")
    secret_names = {d["metadata"]["name"] for k, d in svc_docs.items() if k == "Secret"}
    token_volume = volumes.get("token", {}).get("secret", {}).get("secretName")
    check(token_volume in secret_names, "the token Secret is shipped")
    for e in endpoints:
        cred = e.get("authorization", {}).get("credentials", {})
        check(cred.get("name") in secret_names, "ServiceMonitor uses the same token Secret")
    check_jobs(args.dir, args.python, check)
    if errors:
        for e in errors:
            print(f"deploy/kubernetes: FAILED: {e}")
        return 1
    print("deploy/kubernetes: DaemonSet, Service, Secret and ServiceMonitor fit together; "
          "so do the reduce and merge Jobs")
    return 0


def job_container(job, check, name):
    spec = job["spec"]["template"]["spec"]
    check(job["apiVersion"] == "batch/v1", f"{name} apiVersion batch/v1")
    check(spec.get("restartPolicy") == "Never", f"{name}: restartPolicy Never")
    check(spec["securityContext"].get("runAsNonRoot") is True, f"{name} runs as non-root")
    (container,) = spec["containers"]
    sec = container.get("securityContext", {})
    check(sec.get("allowPrivilegeEscalation") is False and sec.get("readOnlyRootFilesystem"),
          f"{name}: no privilege escalation, read-only root")
    limits = container.get("resources", {}).get("limits", {})
    check("cpu" in limits and "memory" in limits, f"{name}: CPU and memory limits")
    env = {e["name"]: e.get("value", "") for e in container.get("env", [])}
    check(container.get("command") == ["python3", "-m", "gpuwhy.epilogue"],
          f"{name} runs python3 -m gpuwhy.epilogue")
    check("/usr/share/gpuwhy/python" in env.get("PYTHONPATH", "").split(":"),
          f"{name}: PYTHONPATH holds the package the .deb installs")
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    mounts = {m["mountPath"]: m for m in container.get("volumeMounts", [])}
    claims = {path: volumes[m["name"]].get("persistentVolumeClaim", {})
              for path, m in mounts.items() if m["name"] in volumes}
    check(len(claims) == len(mounts), f"{name}: every mount is a defined volume")
    return container, env, mounts, claims


def check_jobs(directory, python_dir, check):
    reduce = load(f"{directory}/reduce-job.yaml")["Job"]
    merge = load(f"{directory}/merge-job.yaml")["Job"]
    with open(os.path.join(directory, "..", "IMAGE"), encoding="utf-8") as f:
        image = f.read().strip()
    r, r_env, r_mounts, r_claims = job_container(reduce, check, "reduce Job")
    m, _, m_mounts, m_claims = job_container(merge, check, "merge Job")
    spec = reduce["spec"]
    check(spec.get("completionMode") == "Indexed", "reduce Job: completionMode Indexed")
    nodes = str(spec.get("completions"))
    check(str(spec.get("parallelism")) == nodes, "reduce Job: every index runs at once")
    check(r_env.get("GPUWHY_NODES") == nodes, "reduce Job: GPUWHY_NODES = completions")
    check(f"--expect-nodes={nodes}" in m["args"], "merge waits for the reduce Job's completions")
    check(r.get("image") == image and m.get("image") == image, f"both Jobs run {image}")
    check(r["args"][0] == "reduce" and m["args"][0] == "merge", "reduce, then merge")
    out = [a.split("=", 1)[1] for a in r["args"] if a.startswith("--out=")]
    m_out = [a.split("=", 1)[1] for a in m["args"] if a.startswith("--out=")]
    check(out and out == m_out, "both Jobs name one summaries folder")
    check(out and m_claims.get(out[0]) == r_claims.get(out[0]) and r_claims.get(out[0]),
          "that folder is the same claim in both Jobs")
    check(out and not r_mounts.get(out[0], {}).get("readOnly"), "reduce writes the summaries")
    traces = [a.split("=", 1)[1] for a in r["args"] if a.startswith("--traces=")]
    check(traces and r_mounts.get(traces[0], {}).get("readOnly") is True
          and r_claims.get(traces[0], {}).get("readOnly") is True, "traces are read-only")
    if python_dir:
        sys.path.insert(0, python_dir)
        from gpuwhy import epilogue

        for job in (r, m):
            try:
                epilogue._parser().parse_args(job["args"])
            except SystemExit:
                check(False, f"python -m gpuwhy.epilogue accepts {job['args']}")


if __name__ == "__main__":
    sys.exit(main())
