"""A test-only kubelet for Argo Workflows pods on the kwok node: runs their steps locally.

kwok runs no containers, so a workflow node that runs a container would stay Running
forever. This process plays the part of the kubelet and of Argo's executor for exactly those
pods, so the real workflow-controller sees each node finish with its exit code, message and
outputs:

1. It watches pods bound to the kwok node (``--node``) that carry
   ``workflows.argoproj.io/workflow``. kwok's stage (manifests/kwok-stages.yaml) has already
   marked them Running, with the ``init`` container done and ``wait`` and ``main`` running;
   nothing else touches them afterwards.
2. It runs the ``main`` container's command as a local process: the argv after the emissary
   wrapper (``/var/run/argo/argoexec emissary ... -- CMD``) plus ``args``, with the
   container's environment (values, and ``secretKeyRef``/``configMapKeyRef``/``fieldRef``
   resolved from the API as the kubelet would) and only that, except ``PATH``, which leads
   with the directory of ``--bin`` (the image is never pulled: ``promoflow`` comes from the
   checkout's virtualenv). Paths under the container's own file system (``/tmp``,
   ``/var/run/argo``, the termination-message path) are mapped into a private directory per
   pod, so parallel steps do not share ``/tmp/outputs``; the termination message is read
   from ``PROMOFLOW_TERMINATION_LOG``, promoflow's name for ``/dev/termination-log``.
3. It reports as Argo's ``wait`` container does (workflow/executor, v4.0.5): output
   parameters are read from their ``valueFrom.path`` (one trailing newline trimmed,
   ``default`` when the file is missing), the progress file becomes ``progress``, and both go
   into a ``WorkflowTaskResult`` named after the node, labelled with the workflow and
   ``workflows.argoproj.io/report-outputs-completed: "true"``, owned by the Workflow.
4. Then, as the kubelet would, it writes the pod status: ``main`` terminated with the exit
   code, reason ``Completed``/``Error`` and the termination message; ``wait`` terminated
   with 0 (1 with the reason when an output could not be read); phase Succeeded or Failed.
   The controller then does the rest: node phase, retries on exit 75, outputs, messages.

A pod deleted while its step runs gets its process killed; a step running past the pod's
``activeDeadlineSeconds`` is killed and reported as ``DeadlineExceeded``. Each step's
stdout and stderr go to ``--logs/<namespace>.<pod>.log``.

Run as ``python -m tests.e2e.podrunner --kubeconfig FILE [--node kwok-node-0]``; the e2e
fixtures start it when ``PROMOFLOW_E2E_POD_RUNNER=1`` and it is not running yet.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from kubernetes import client, config, watch
from kubernetes.client.exceptions import ApiException

WORKFLOW_LABEL = "workflows.argoproj.io/workflow"
NODE_ID_ANNOTATION = "workflows.argoproj.io/node-id"
COMPLETED_LABEL = "workflows.argoproj.io/report-outputs-completed"
CONTAINER_ROOTS = ("/tmp", "/var/run/argo", "/dev/termination-log")
"""Paths of the container's own file system, mapped into the pod's private directory."""
TERMINATION_LOG = "/dev/termination-log"
MESSAGE_LIMIT = 4096
"""The kubelet keeps at most 4 KiB of a termination message."""

log = logging.getLogger("podrunner")


def now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Step:
    """One pod's main container, ready to run here."""

    namespace: str
    pod: str
    uid: str
    node_id: str
    workflow: str
    workflow_uid: str
    argv: list[str]
    env: dict[str, str]
    template: dict[str, Any]
    root: Path
    deadline: float | None
    termination_path: str = TERMINATION_LOG
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    killed: str = ""

    def local(self, path: str) -> str:
        """A container path as seen here (mapped when it lies in the container's own file
        system), else unchanged."""
        for root in CONTAINER_ROOTS:
            if path == root or path.startswith(root.rstrip("/") + "/"):
                return str(self.root / path.lstrip("/"))
        return path


class Runner:
    def __init__(self, api: client.ApiClient, node: str, bin_dir: Path, logs: Path) -> None:
        self.core = client.CoreV1Api(api)
        self.custom = client.CustomObjectsApi(api)
        self.node = node
        self.bin_dir = bin_dir
        self.logs = logs
        self.work = Path(tempfile.mkdtemp(prefix="promoflow-podrunner-"))
        self.seen: set[str] = set()
        self.running: dict[str, Step] = {}
        self.lock = threading.Lock()

    # --- watching --------------------------------------------------------------------------

    def serve(self) -> None:
        log.info("watching pods on node %s (work dir %s)", self.node, self.work)
        while True:
            try:
                stream = watch.Watch().stream(  # type: ignore[no-untyped-call]
                    self.core.list_pod_for_all_namespaces,
                    label_selector=WORKFLOW_LABEL,
                    field_selector=f"spec.nodeName={self.node}",
                    timeout_seconds=300,
                )
                for event in stream:
                    pod = event["raw_object"]
                    if event["type"] == "DELETED":
                        self.gone(pod)
                    else:
                        self.consider(pod)
            except Exception as exc:  # the API server restarted, a watch expired: list again
                log.warning("watch ended (%s); listing again", exc)
                time.sleep(1)

    def consider(self, pod: dict[str, Any]) -> None:
        meta, status = pod["metadata"], pod.get("status") or {}
        uid = meta["uid"]
        if meta.get("deletionTimestamp"):
            self.gone(pod)
            return
        if status.get("phase") != "Running" or uid in self.seen:
            return
        main = next(
            (c for c in status.get("containerStatuses") or [] if c.get("name") == "main"), None
        )
        if main is None or "running" not in (main.get("state") or {}):
            return
        self.seen.add(uid)
        threading.Thread(target=self.run_pod, args=(pod,), daemon=True).start()

    def gone(self, pod: dict[str, Any]) -> None:
        with self.lock:
            step = self.running.get(pod["metadata"]["uid"])
        if step is not None and step.process is not None and step.process.poll() is None:
            step.killed = "the pod was deleted"
            log.info("%s/%s deleted: killing its step", step.namespace, step.pod)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(step.process.pid, signal.SIGKILL)

    # --- one pod -----------------------------------------------------------------------------

    def run_pod(self, pod: dict[str, Any]) -> None:
        name = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
        try:
            step = self.prepare(pod)
        except Exception as exc:
            log.exception("%s: cannot prepare the step", name)
            self.finish(pod, 1, f"podrunner: cannot start the step: {exc}", None, [])
            return
        with self.lock:
            self.running[step.uid] = step
        try:
            code, message = self.execute(step)
            outputs, problems = self.outputs(step)
            self.report(step, outputs)
            self.finish(pod, code, message, step, problems)
            log.info("%s: exit %s%s", name, code, f" ({message[:120]})" if message else "")
        except Exception:
            log.exception("%s: the runner failed", name)
        finally:
            with self.lock:
                self.running.pop(step.uid, None)
            shutil.rmtree(step.root, ignore_errors=True)

    def prepare(self, pod: dict[str, Any]) -> Step:
        meta, spec = pod["metadata"], pod["spec"]
        main = next(c for c in spec["containers"] if c["name"] == "main")
        init = next((c for c in spec.get("initContainers") or [] if c["name"] == "init"), None)
        template: dict[str, Any] = {}
        for var in (init or main).get("env") or []:
            if var["name"] == "ARGO_TEMPLATE":
                template = json.loads(var["value"])
        argv = list(main.get("command") or []) + list(main.get("args") or [])
        if "emissary" in argv and "--" in argv:
            argv = argv[argv.index("--") + 1 :]
        owner = next(
            (o for o in meta.get("ownerReferences") or [] if o.get("kind") == "Workflow"), {}
        )
        started = (pod.get("status") or {}).get("startTime")
        deadline = None
        if spec.get("activeDeadlineSeconds") and started:
            begun = datetime.fromisoformat(started.replace("Z", "+00:00")).timestamp()
            deadline = begun + int(spec["activeDeadlineSeconds"])
        root = self.work / meta["uid"]
        for sub in ("tmp", "var/run/argo", "dev", "home"):
            (root / sub).mkdir(parents=True, exist_ok=True)
        step = Step(
            namespace=meta["namespace"],
            pod=meta["name"],
            uid=meta["uid"],
            node_id=(meta.get("annotations") or {}).get(NODE_ID_ANNOTATION, meta["name"]),
            workflow=(meta.get("labels") or {})[WORKFLOW_LABEL],
            workflow_uid=owner.get("uid", ""),
            argv=[],
            env={},
            template=template,
            root=root,
            deadline=deadline,
            termination_path=main.get("terminationMessagePath") or TERMINATION_LOG,
        )
        env = {name: step.local(value) for name, value in self.environment(pod, main).items()}
        env["PATH"] = os.pathsep.join([str(self.bin_dir), "/usr/local/bin", "/usr/bin", "/bin"])
        env.setdefault("HOME", str(root / "home"))
        env["PROMOFLOW_TERMINATION_LOG"] = step.local(step.termination_path)
        step.env = env
        step.argv = [step.local(arg) for arg in argv]
        return step

    def environment(self, pod: dict[str, Any], container: dict[str, Any]) -> dict[str, str]:
        """The container's variables, resolved as the kubelet resolves them."""
        out: dict[str, str] = {}
        namespace = pod["metadata"]["namespace"]
        for source in container.get("envFrom") or []:
            prefix = source.get("prefix", "")
            if "secretRef" in source:
                data = self._secret(namespace, source["secretRef"]["name"], source["secretRef"])
                out |= {prefix + k: v for k, v in (data or {}).items()}
            if "configMapRef" in source:
                cm = self._configmap(namespace, source["configMapRef"]["name"])
                out |= {prefix + k: v for k, v in (cm or {}).items()}
        for var in container.get("env") or []:
            if "valueFrom" not in var:
                out[var["name"]] = _expand(var.get("value", ""), out)
                continue
            ref = var["valueFrom"]
            value: str | None = None
            if "secretKeyRef" in ref:
                data = self._secret(namespace, ref["secretKeyRef"]["name"], ref["secretKeyRef"])
                value = (data or {}).get(ref["secretKeyRef"]["key"])
                if value is None and not ref["secretKeyRef"].get("optional"):
                    raise RuntimeError(
                        f"secret {ref['secretKeyRef']['name']} has no key "
                        f"{ref['secretKeyRef']['key']}"
                    )
            elif "configMapKeyRef" in ref:
                cm = self._configmap(namespace, ref["configMapKeyRef"]["name"])
                value = (cm or {}).get(ref["configMapKeyRef"]["key"])
            elif "fieldRef" in ref:
                value = _field(pod, ref["fieldRef"]["fieldPath"])
            if value is not None:
                out[var["name"]] = value
        return out

    def _secret(self, namespace: str, name: str, ref: dict[str, Any]) -> dict[str, str] | None:
        try:
            secret = self.core.read_namespaced_secret(name, namespace)
        except ApiException as exc:
            if exc.status == 404 and ref.get("optional"):
                return None
            raise
        return {k: base64.b64decode(v).decode() for k, v in (secret.data or {}).items()}

    def _configmap(self, namespace: str, name: str) -> dict[str, str] | None:
        try:
            return dict(self.core.read_namespaced_config_map(name, namespace).data or {})
        except ApiException as exc:
            if exc.status == 404:
                return None
            raise

    def execute(self, step: Step) -> tuple[int, str]:
        """Run the command; the exit code and the termination message."""
        self.logs.mkdir(parents=True, exist_ok=True)
        logfile = self.logs / f"{step.namespace}.{step.pod}.log"
        with logfile.open("ab") as out:
            out.write(f"==== {now()} {json.dumps(step.argv)}\n".encode())
            out.flush()
            try:
                step.process = subprocess.Popen(
                    step.argv,
                    env=step.env,
                    cwd=step.root,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,
                )
            except OSError as exc:  # what a runtime reports for a missing executable
                return 127, f"failed to start {step.argv[:1]}: {exc}"
            timeout = None if step.deadline is None else max(step.deadline - time.time(), 0)
            try:
                code = step.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                step.killed = "DeadlineExceeded"
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(step.process.pid, signal.SIGKILL)
                code = step.process.wait()
        message = ""
        with contextlib.suppress(OSError):
            raw = Path(step.local(step.termination_path)).read_bytes()[:MESSAGE_LIMIT]
            message = raw.decode(errors="replace")
        if step.killed:
            message = message or step.killed
        return (code if code >= 0 else 128 - code), message

    def outputs(self, step: Step) -> tuple[dict[str, Any], list[str]]:
        """Output parameters as the executor saves them (SaveParameters), and what failed."""
        declared = (step.template.get("outputs") or {}).get("parameters") or []
        params: list[dict[str, Any]] = []
        problems: list[str] = []
        for param in declared:
            value_from = param.get("valueFrom") or {}
            saved = dict(param)
            if value_from.get("path"):
                try:
                    saved["value"] = (
                        Path(step.local(value_from["path"])).read_text().removesuffix("\n")
                    )
                except OSError as exc:
                    if "default" in value_from:
                        saved["value"] = str(value_from["default"]).removesuffix("\n")
                    else:
                        problems.append(f"open {value_from['path']}: {exc.strerror}")
                        continue
            params.append(saved)
        return ({"parameters": params} if params else {}), problems

    def report(self, step: Step, outputs: dict[str, Any]) -> None:
        """The WorkflowTaskResult the wait container would leave, completed."""
        body: dict[str, Any] = {
            "apiVersion": "argoproj.io/v1alpha1",
            "kind": "WorkflowTaskResult",
            "metadata": {
                "name": step.node_id,
                "namespace": step.namespace,
                "labels": {WORKFLOW_LABEL: step.workflow, COMPLETED_LABEL: "true"},
                "ownerReferences": [
                    {
                        "apiVersion": "argoproj.io/v1alpha1",
                        "kind": "Workflow",
                        "name": step.workflow,
                        "uid": step.workflow_uid,
                    }
                ],
            },
        }
        if outputs:
            body["outputs"] = outputs
        progress = ""
        with contextlib.suppress(OSError):
            progress = Path(step.root / "var/run/argo/progress").read_text().strip()
        if progress.count("/") == 1:
            body["progress"] = progress
        try:
            self.custom.create_namespaced_custom_object(
                "argoproj.io", "v1alpha1", step.namespace, "workflowtaskresults", body
            )
        except ApiException as exc:
            if exc.status != 409:
                raise
            patch = {k: v for k, v in body.items() if k in ("outputs", "progress")}
            patch["metadata"] = {"labels": body["metadata"]["labels"]}
            self.custom.patch_namespaced_custom_object(
                "argoproj.io", "v1alpha1", step.namespace, "workflowtaskresults",
                step.node_id, patch,
            )  # fmt: skip

    def finish(
        self,
        pod: dict[str, Any],
        code: int,
        message: str,
        step: Step | None,
        problems: list[str],
    ) -> None:
        """The pod status the kubelet would write once every container has exited."""
        namespace, name = pod["metadata"]["namespace"], pod["metadata"]["name"]
        stamp = now()
        wait_code = 1 if problems else 0
        for _ in range(10):
            current = self.core.read_namespaced_pod(name, namespace)
            body = client.ApiClient().sanitize_for_serialization(current)
            status = body.setdefault("status", {})
            started = status.get("startTime") or stamp
            statuses = []
            for ctr in status.get("containerStatuses") or []:
                ctr = dict(ctr)
                if ctr["name"] == "main":
                    exit_code, text = code, message
                elif ctr["name"] == "wait":
                    exit_code, text = wait_code, "; ".join(problems)
                else:
                    exit_code, text = 0, ""
                terminated = {
                    "exitCode": exit_code,
                    "reason": "Completed" if exit_code == 0 else "Error",
                    "startedAt": started,
                    "finishedAt": stamp,
                }
                if text:
                    terminated["message"] = text
                ctr.update(ready=False, started=False, state={"terminated": terminated})
                statuses.append(ctr)
            status["containerStatuses"] = statuses
            status["phase"] = "Succeeded" if code == 0 and wait_code == 0 else "Failed"
            if step is not None and step.killed == "DeadlineExceeded":
                status["reason"] = "DeadlineExceeded"
                status["message"] = "Pod was active on the node longer than the specified deadline"
            for cond in status.get("conditions") or []:
                if cond.get("type") in ("Ready", "ContainersReady"):
                    cond.update(status="False", reason="PodCompleted", lastTransitionTime=stamp)
            try:
                self.core.replace_namespaced_pod_status(name, namespace, body)
                return
            except ApiException as exc:
                if exc.status == 404:
                    return
                if exc.status != 409:
                    raise
                time.sleep(0.2)
        raise RuntimeError(f"{namespace}/{name}: pod status kept conflicting")


def _field(pod: dict[str, Any], path: str) -> str | None:
    """``fieldRef.fieldPath`` of the downward API."""
    meta, spec, status = pod["metadata"], pod["spec"], pod.get("status") or {}
    simple = {
        "metadata.name": meta.get("name"),
        "metadata.namespace": meta.get("namespace"),
        "metadata.uid": meta.get("uid"),
        "spec.nodeName": spec.get("nodeName"),
        "spec.serviceAccountName": spec.get("serviceAccountName"),
        "status.podIP": status.get("podIP"),
        "status.hostIP": status.get("hostIP"),
    }
    if path in simple:
        return simple[path]
    for kind in ("labels", "annotations"):
        prefix = f"metadata.{kind}['"
        if path.startswith(prefix) and path.endswith("']"):
            return (meta.get(kind) or {}).get(path[len(prefix) : -2])
    return None


def _expand(value: str, known: dict[str, str]) -> str:
    """``$(VAR)`` references to earlier variables, as the kubelet expands them."""
    for name, resolved in known.items():
        value = value.replace(f"$({name})", resolved)
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kubeconfig", required=True)
    parser.add_argument("--node", default="kwok-node-0")
    parser.add_argument(
        "--bin", type=Path, default=Path(sys.executable).parent, help="Put first on PATH."
    )
    parser.add_argument("--logs", type=Path, default=Path(tempfile.gettempdir()) / "podrunner")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    api = config.new_client_from_config(config_file=args.kubeconfig)  # type: ignore[no-untyped-call]
    Runner(api, args.node, args.bin, args.logs).serve()


if __name__ == "__main__":
    main()
