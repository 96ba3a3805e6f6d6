"""The real node: Debian's containerd, runc and CNI plugins, and a kubelet built here.

kwok's node runs no containers; this one does. ``pfnode-0`` registers with a taint, so only
pods that ask for it land here: the workflow-controller's ``workflowDefaults`` send every
workflow pod (with ``hostNetwork``, so steps reach Argo CD, the Argo Server and the git
server on 127.0.0.1), and the apps a test deploys with :data:`SELECTOR` and
:data:`TOLERATION`. Pods get an address on a CNI bridge (``pfcni0``, 10.88.0.0/16).

The kubelet runs as upstream documents for cgroup v1 hosts (``failCgroupV1: false``,
``cgroupDriver: cgroupfs``), authenticates with the admin kubeconfig, and keeps its state
under CACHE/state. This machine gives root every capability but ``CAP_SYS_RESOURCE``, so a
process may not lower its ``oom_score_adj``, and runc refuses the -998 the kubelet asks for
a pod's sandbox ("failed to update /proc/self/oom_score_adj: Permission denied"). The
runtime containerd calls is therefore :data:`RUNC_WRAPPER`, which raises a container's
``oomScoreAdj`` to the node's own before it runs runc: only the OOM killer's order changes.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from . import debian, images
from .config import LOOPBACK, PATHS, PORTS
from .gobuild import BuildError
from .kube import get_json, http_ok
from .pki import PKI

NODE_NAME = "pfnode-0"
LABEL = "promoflow.dev/real-pods"
SELECTOR = {LABEL: "true"}
TOLERATION = {"key": LABEL, "operator": "Exists", "effect": "NoSchedule"}
CONTAINERD = PATHS.state / "containerd"
SOCKET = CONTAINERD / "containerd.sock"
KUBELET = PATHS.state / "kubelet"
RUNC_WRAPPER = PATHS.run / "runc"
LOG = PATHS.logs / "build-images.log"

_WRAPPER = '''#!{python}
"""runc, with a container's oomScoreAdj no lower than this node's (no CAP_SYS_RESOURCE)."""
import json, os, sys

args = sys.argv[1:]
if "--bundle" in args:
    config = os.path.join(args[args.index("--bundle") + 1], "config.json")
    with open(config) as f:
        spec = json.load(f)
    with open("/proc/self/oom_score_adj") as f:
        own = int(f.read())
    process = spec.get("process") or {{}}
    if process.get("oomScoreAdj", own) < own:
        process["oomScoreAdj"] = own
        with open(config, "w") as f:
            json.dump(spec, f)
os.execv({runc!r}, [{runc!r}, *args])
'''


def _write(path: Path, text: str, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    return path


def containerd_config() -> Path:
    runc = str(debian.node_bin("runc"))
    _write(RUNC_WRAPPER, _WRAPPER.format(python=sys.executable, runc=runc), 0o755)
    cni = CONTAINERD / "cni"
    conflist = {
        "cniVersion": "1.0.0",
        "name": "promoflow",
        "plugins": [
            {
                "type": "bridge",
                "bridge": "pfcni0",
                "isGateway": True,
                "hairpinMode": True,
                "ipam": {
                    "type": "host-local",
                    "ranges": [[{"subnet": "10.88.0.0/16"}]],
                    "routes": [{"dst": "0.0.0.0/0"}],
                    "dataDir": str(cni / "ipam"),
                },
            },
            {"type": "loopback"},
        ],
    }
    _write(cni / "net.d" / "10-promoflow.conflist", json.dumps(conflist, indent=1))
    cri = 'plugins."io.containerd.grpc.v1.cri"'
    text = f"""version = 2
root = "{CONTAINERD / "root"}"
state = "{CONTAINERD / "run"}"
[grpc]
  address = "{SOCKET}"
[{cri}]
  sandbox_image = "{images.PAUSE}"
  [{cri}.containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"
    [{cri}.containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [{cri}.containerd.runtimes.runc.options]
        BinaryName = "{RUNC_WRAPPER}"
        SystemdCgroup = false
  [{cri}.cni]
    bin_dir = "{debian.cni_bin_dir()}"
    conf_dir = "{cni / "net.d"}"
"""
    return _write(CONTAINERD / "config.toml", text)


def containerd_command() -> list[str]:
    return [str(debian.node_bin("containerd")), "--config", str(containerd_config())]


def containerd_env() -> dict[str, str]:
    """The shims are found on PATH."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(debian.node_bin("containerd").parent), env["PATH"]])
    return env


def _ctr(*args: str) -> subprocess.CompletedProcess[str]:
    ctr = [str(debian.node_bin("ctr")), "--address", str(SOCKET), "-n", "k8s.io"]
    return subprocess.run([*ctr, *args], capture_output=True, text=True, check=False)


def containerd_ready() -> bool:
    return SOCKET.exists() and _ctr("version").returncode == 0


def load_images() -> None:
    """Build and import the images containerd lacks. The step image's tag follows the
    checkout, so ``up`` calls this every time, also on a running cluster; what is present
    costs one ``ctr images ls``."""
    step = images.step_name()
    builders: dict[str, Callable[[], Path]] = {
        images.PAUSE: lambda: images.pause_image(LOG),
        images.argoexec_name(): images.argoexec_image,
        images.HTTPD: images.httpd_image,
        images.HTTPD_NEXT: lambda: images.httpd_image(images.HTTPD_NEXT),
        step: lambda: images.step_image(step, LOG),
    }
    present = set(_ctr("images", "ls", "-q").stdout.split())
    for name, build in builders.items():
        if name in present:
            continue
        imported = _ctr("images", "import", str(build()))
        if imported.returncode != 0:
            raise BuildError(f"ctr images import {name}: {imported.stderr.strip()}")
    _write(images.STEP_IMAGE_FILE, step + "\n")


def step_image() -> str:
    """The step image ``up`` last loaded ("" before the first)."""
    try:
        return images.STEP_IMAGE_FILE.read_text().strip()
    except OSError:
        return ""


def kill_containers() -> None:
    """Every task containerd runs, killed and deleted: stopping containerd leaves its
    shims and containers running, and their mounts held."""
    for task in _ctr("tasks", "ls", "-q").stdout.split():
        _ctr("tasks", "kill", "-s", "SIGKILL", task)
    for container in _ctr("containers", "ls", "-q").stdout.split():
        _ctr("tasks", "delete", "-f", container)
        _ctr("containers", "delete", container)
    for pid in _shim_pids():
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def _shim_pids() -> list[int]:
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            cmdline = (proc / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if (
            cmdline
            and cmdline[0].endswith(b"containerd-shim-runc-v2")
            and str(SOCKET).encode() in b" ".join(cmdline)
        ):
            found.append(int(proc.name))
    return found


def remove_bridge() -> None:
    """The CNI bridge outlives containerd: remove it with the node."""
    subprocess.run(["ip", "link", "delete", "pfcni0"], capture_output=True, check=False)


def unmount_kubelet() -> None:
    """Secrets and service-account tokens are tmpfs mounts under the kubelet's root."""
    mounts = Path("/proc/mounts").read_text().splitlines()
    points = sorted((line.split()[1] for line in mounts), key=len, reverse=True)
    for point in points:
        if point.startswith(str(KUBELET) + "/"):
            subprocess.run(["umount", "-l", point], capture_output=True, check=False)


def kubelet_config() -> Path:
    config = {
        "apiVersion": "kubelet.config.k8s.io/v1beta1",
        "kind": "KubeletConfiguration",
        "cgroupDriver": "cgroupfs",
        "failCgroupV1": False,
        "failSwapOn": False,
        "containerRuntimeEndpoint": f"unix://{SOCKET}",
        # the API server reaches it as on a real node, at the node's InternalIP with its
        # client certificate (signed by the cluster's CA): so `kubectl logs`, and the Argo
        # Server's and helm test's logs through the API server, read real pods' output
        "authentication": {
            "anonymous": {"enabled": False},
            "webhook": {"enabled": False},
            "x509": {"clientCAFile": str(PKI.ca_crt)},
        },
        "authorization": {"mode": "AlwaysAllow"},
        "address": "0.0.0.0",
        "port": PORTS.kubelet,
        "readOnlyPort": 0,
        "healthzBindAddress": LOOPBACK,
        "healthzPort": PORTS.kubelet_healthz,
        "enforceNodeAllocatable": [],
        "localStorageCapacityIsolation": False,
        # a developer's disk or memory must not evict the suite's pods
        "evictionHard": {
            "memory.available": "0%",
            "nodefs.available": "0%",
            "imagefs.available": "0%",
            "nodefs.inodesFree": "0%",
        },
        "imageGCHighThresholdPercent": 100,
        "imageGCLowThresholdPercent": 99,
        "resolvConf": "/etc/resolv.conf",
        # how often a running pod's ConfigMap volumes are brought up to date (default 1m)
        "syncFrequency": "10s",
        "registerWithTaints": [{"key": LABEL, "value": "true", "effect": "NoSchedule"}],
    }
    return _write(KUBELET / "config.json", json.dumps(config, indent=1))


def kubelet_command() -> list[str]:
    return [
        str(PATHS.bin / "kubelet"),
        f"--config={kubelet_config()}",
        f"--kubeconfig={PATHS.kubeconfig}",
        f"--hostname-override={NODE_NAME}",
        f"--root-dir={KUBELET / 'root'}",
        f"--cert-dir={KUBELET / 'pki'}",
        f"--node-labels={LABEL}=true",
        "--v=1",
    ]


def kubelet_ready() -> bool:
    if not http_ok(f"http://{LOOPBACK}:{PORTS.kubelet_healthz}/healthz"):
        return False
    node = get_json("node", NODE_NAME)
    conditions = (node or {}).get("status", {}).get("conditions") or []
    return any(c.get("type") == "Ready" and c.get("status") == "True" for c in conditions)


KUBE_PROXY_TABLES = (("ip", "kube-proxy"), ("ip6", "kube-proxy"))


def kube_proxy_config() -> Path:
    """nftables mode (GA since 1.33): Services' cluster IPs reach the real node's pods,
    from pods and from this machine. No conntrack tuning (sysctls it may not set here),
    no localhost NodePorts."""
    config = {
        "apiVersion": "kubeproxy.config.k8s.io/v1alpha1",
        "kind": "KubeProxyConfiguration",
        "clientConnection": {"kubeconfig": str(PATHS.kubeconfig)},
        "hostnameOverride": NODE_NAME,
        "mode": "nftables",
        "clusterCIDR": "10.88.0.0/16",
        "bindAddress": LOOPBACK,
        "healthzBindAddress": f"{LOOPBACK}:{PORTS.kube_proxy_healthz}",
        "metricsBindAddress": f"{LOOPBACK}:{PORTS.kube_proxy_metrics}",
        "conntrack": {
            "maxPerCore": 0,
            "min": 0,
            "tcpEstablishedTimeout": "0s",
            "tcpCloseWaitTimeout": "0s",
        },
    }
    return _write(KUBELET / "kube-proxy.json", json.dumps(config, indent=1))


def kube_proxy_command() -> list[str]:
    return [str(PATHS.bin / "kube-proxy"), f"--config={kube_proxy_config()}", "--v=1"]


def nft_env() -> dict[str, str]:
    """``nft`` and its libraries from the unpacked Debian packages."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(debian.NODE_ROOT / "usr" / "sbin"), env["PATH"]])
    env["LD_LIBRARY_PATH"] = str(debian.NODE_ROOT / "usr" / "lib" / "x86_64-linux-gnu")
    return env


def kube_proxy_ready() -> bool:
    return http_ok(f"http://{LOOPBACK}:{PORTS.kube_proxy_healthz}/healthz")


def remove_kube_proxy_rules() -> None:
    """kube-proxy leaves its nftables tables behind when it stops: the host is left as
    it was found."""
    nft = str(debian.NODE_ROOT / "usr" / "sbin" / "nft")
    for family, table in KUBE_PROXY_TABLES:
        subprocess.run(
            [nft, "delete", "table", family, table], env=nft_env(), capture_output=True, check=False
        )


def executor_config() -> str:
    """The workflow-controller's ``executor``: the image built here, and the API server's
    address for argoexec (the pods use the host's network; there is no Service VIP)."""
    return json.dumps(
        {
            "image": images.argoexec_name(),
            "imagePullPolicy": "IfNotPresent",
            "env": [
                {"name": "KUBERNETES_SERVICE_HOST", "value": LOOPBACK},
                {"name": "KUBERNETES_SERVICE_PORT", "value": str(PORTS.apiserver)},
            ],
        }
    )


def workflow_defaults() -> str:
    """Every workflow's pods on this node, on the host's network. The agent pod (of plugin
    steps) takes neither ``hostNetwork`` nor the executor's environment from the Workflow,
    only its ``podSpecPatch``: this one gives it the host's network and the API server's
    address, as the executor config gives argoexec in step pods (their ``main`` gets the
    same address, the one the API server has on the host's network)."""
    patch = {
        "hostNetwork": True,
        "containers": [
            {
                "name": "main",
                "env": [
                    {"name": "KUBERNETES_SERVICE_HOST", "value": LOOPBACK},
                    {"name": "KUBERNETES_SERVICE_PORT", "value": str(PORTS.apiserver)},
                ],
            }
        ],
    }
    return json.dumps(
        {
            "spec": {
                "hostNetwork": True,
                "nodeSelector": SELECTOR,
                "tolerations": [TOLERATION],
                "podSpecPatch": json.dumps(patch),
            }
        }
    )
