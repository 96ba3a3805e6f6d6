"""The local cluster's real node, without running it: the OCI archives its images are
imported from, and the runtime wrapper that lets runc start sandboxes here."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from tests.e2e.cluster import images, node


def _members(archive: Path) -> dict[str, bytes]:
    with tarfile.open(archive) as tar:
        return {
            m.name: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile()
        }


def test_an_image_archive_is_an_oci_layout_ctr_names(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "hello").write_text("#!/bin/sh\necho hi\n")
    (root / "bin" / "hello").chmod(0o755)
    layer = images._layer(images._tar(root))
    archive = images.write_image(
        "promoflow.local/x:v1", [layer], ["/bin/hello"], tmp_path / "x.tar"
    )

    files = _members(archive)
    assert json.loads(files["oci-layout"]) == {"imageLayoutVersion": "1.0.0"}
    [entry] = json.loads(files["index.json"])["manifests"]
    assert entry["annotations"]["io.containerd.image.name"] == "promoflow.local/x:v1"
    for name, data in files.items():  # every blob is stored under its own digest
        if name.startswith("blobs/sha256/"):
            assert hashlib.sha256(data).hexdigest() == name.rsplit("/", 1)[1]
    manifest = json.loads(files["blobs/sha256/" + entry["digest"].split(":")[1]])
    config = json.loads(files["blobs/sha256/" + manifest["config"]["digest"].split(":")[1]])
    assert config["config"]["Entrypoint"] == ["/bin/hello"]
    # uncompressed layers: the diff id is the layer's own digest
    assert config["rootfs"]["diff_ids"] == [d["digest"] for d in manifest["layers"]]
    with tarfile.open(fileobj=io.BytesIO(layer.data)) as tar:
        hello = tar.getmember("bin/hello")
    assert (hello.uid, hello.mtime, hello.mode & 0o777) == (0, 0, 0o755)


def test_the_same_tree_makes_the_same_layer(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "opt" / "app").mkdir(parents=True)
    (root / "opt" / "app" / "f").write_text("1")
    (root / "etc").mkdir()
    first = images._layer(images._tar(root, skip=("opt",)))
    os.utime(root / "etc", (1, 1))
    assert images._layer(images._tar(root, skip=("opt",))).digest == first.digest
    with tarfile.open(fileobj=io.BytesIO(images._tar(root, only="opt/app"))) as t:
        assert t.getnames() == ["opt", "opt/app", "opt/app/f"]


@pytest.mark.parametrize(("asked", "expected"), [(-998, "own"), (500, 500)])
def test_the_runtime_wrapper_never_lowers_the_oom_score(
    tmp_path: Path, asked: int, expected: int | str
) -> None:
    """No CAP_SYS_RESOURCE here: runc would fail to set a lower oom_score_adj than ours."""
    fake_runc = tmp_path / "runc"
    fake_runc.write_text(
        "#!/bin/sh\n"
        f'{sys.executable} -c "import json,sys; '
        "print(json.load(open(sys.argv[1]))['process']['oomScoreAdj'])\" \"$3/config.json\"\n"
    )
    fake_runc.chmod(0o755)
    wrapper = tmp_path / "wrapper"
    wrapper.write_text(node._WRAPPER.format(python=sys.executable, runc=str(fake_runc)))
    wrapper.chmod(0o755)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    (bundle / "config.json").write_text(json.dumps({"process": {"oomScoreAdj": asked}}))

    done = subprocess.run(
        [str(wrapper), "create", "--bundle", str(bundle), "id"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip

    own = int(Path("/proc/self/oom_score_adj").read_text())
    want = max(own, asked) if expected == "own" else expected
    assert int(done.stdout) == want
